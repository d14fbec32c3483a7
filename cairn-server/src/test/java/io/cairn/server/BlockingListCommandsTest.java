package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.KeyValue;
import redis.clients.jedis.args.ListDirection;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * BLPOP, BZPOPMAX and friends against an in-process cluster: a blocked client is served by another client's
 * push, times out with a nil array, keeps waiting through a move of its key's bucket, and a client
 * that disconnects while blocked pops nothing.
 */
class BlockingListCommandsTest {
    private static final int BUCKETS = 300;

    @TempDir
    Path dir;

    @Test
    void blockedClientsAreServedByPushesTimeOutAndOutliveABucketMove() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis waiter = TestClusters.jedis(cluster); Jedis pusher = TestClusters.jedis(cluster); Jedis zwaiter = TestClusters.jedis(cluster)) {
                CompletableFuture<List<String>> popped = CompletableFuture.supplyAsync(() -> waiter.blpop(0, "{q}a", "{q}b"));
                assertThat(popped).as("nothing to pop yet").isNotDone();
                assertThat(pusher.rpush("{q}b", "job-1")).isEqualTo(1);
                assertThat(popped.get(30, TimeUnit.SECONDS)).containsExactly("{q}b", "job-1");
                assertThat(pusher.llen("{q}b")).isZero();

                long start = System.nanoTime();
                assertThat(waiter.blpop(0.3, "{q}none")).as("a nil array at the timeout").isNull();
                assertThat(System.nanoTime() - start).as("it waited out its timeout").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));

                CompletableFuture<String> moved = CompletableFuture.supplyAsync(
                        () -> waiter.blmove("{q}src", "{q}dst", ListDirection.LEFT, ListDirection.RIGHT, 0));
                CompletableFuture<KeyValue<String, Tuple>> zpopped = CompletableFuture.supplyAsync(() -> zwaiter.bzpopmax(0, "{q}z"));
                // The waiter polls its list's length (reads): seeing reads grow shows it is blocked at the router.
                long readsBefore = reads(pusher);
                await().atMost(Duration.ofSeconds(30)).until(() -> reads(pusher) >= readsBefore + 3);
                int bucket = BucketHasher.bucketOf("q".getBytes(StandardCharsets.UTF_8), BUCKETS);
                String from = cluster.router().router().ownerOf(bucket);
                String to = from.equals("rs1") ? "rs2" : "rs1";
                assertThat(cluster.coordinator().mover().requestMove(bucket, to)).isTrue();
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> to.equals(cluster.router().router().ownerOf(bucket)));
                assertThat(moved).as("still waiting after its bucket moved").isNotDone();
                assertThat(zpopped).as("the sorted set's waiter too").isNotDone();
                assertThat(pusher.zadd("{q}z", Map.of("low", 1.0, "high", 2.0))).isEqualTo(2);
                KeyValue<String, Tuple> top = zpopped.get(30, TimeUnit.SECONDS);
                assertThat(List.of(top.getKey(), top.getValue().getElement(), top.getValue().getScore())).containsExactly("{q}z", "high", 2.0);
                assertThat(pusher.zrange("{q}z", 0, -1)).containsExactly("low");
                assertThat(pusher.rpush("{q}src", "after-move")).isEqualTo(1);
                assertThat(moved.get(30, TimeUnit.SECONDS)).isEqualTo("after-move");
                assertThat(pusher.lrange("{q}dst", 0, -1)).containsExactly("after-move");
            }
        }
    }

    @Test
    void aClientThatDisconnectsWhileBlockedPopsNothing() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 1, BUCKETS, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis observer = TestClusters.jedis(cluster)) {
                long clientsBefore = clients(observer);
                RawResp gone = new RawResp(cluster.router().respPort());
                CompletableFuture.runAsync(() -> {
                    try {
                        gone.call("BLPOP", "work", "0");
                    } catch (IOException closed) {
                        // expected: the socket is closed under the blocked call
                    }
                });
                await().atMost(Duration.ofSeconds(20)).until(() -> clients(observer) == clientsBefore + 1);
                gone.close();
                await().atMost(Duration.ofSeconds(20)).until(() -> clients(observer) == clientsBefore);
                assertThat(observer.rpush("work", "kept")).isEqualTo(1);
                // Several poll intervals (20 ms) pass: the element must stay for a client still connected.
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> observer.llen("work") == 1);
                assertThat(observer.lpop("work")).isEqualTo("kept");
            }
        }
    }

    /** Read operations the router has sent to storage, over all replicasets (INFO stats). */
    private static long reads(Jedis jedis) {
        return jedis.info("stats").lines().filter(l -> l.startsWith("read_ops_"))
                .mapToLong(l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim())).sum();
    }

    private static long clients(Jedis jedis) {
        return jedis.clientList().lines().filter(l -> !l.isBlank()).count();
    }
}
