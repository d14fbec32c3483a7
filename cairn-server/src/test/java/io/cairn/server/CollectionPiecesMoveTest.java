package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.core.BucketState;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.resps.Tuple;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Collections bigger than a move chunk travel in element pieces (issue 24): with the chunk bound
 * at 4 KiB (what a 64 MiB Raft entry is to a collection of millions of elements), a bucket holding
 * a hash, a list, a set and a sorted set moves while a client adds fields to the hash, and moves
 * back with the destination's only member stopped and restarted in the middle of the hash's pieces.
 * Nothing is lost or doubled: every collection reads back exactly, every acknowledged write is
 * there, and the bucket ends ACTIVE on exactly one replicaset.
 */
class CollectionPiecesMoveTest {
    private static final int BUCKETS = 300;
    private static final int FIELDS = 6_000;
    private static final int ELEMENTS = 1_500;
    private static final String VALUE_PAD = "x".repeat(56);

    @TempDir
    Path dir;

    @Test
    void bigCollectionsMoveInPiecesUnderWritesAndADestinationRestartMidPiecesLosesNothing() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false, "chunkBytes", 4096)));
        try (LocalCluster cluster = new LocalCluster(config).start();
             MoveFaultSupport.Records records = new MoveFaultSupport.Records(config.topology())) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                fill(jedis);
                int bucket = BucketHasher.bucketOf("big".getBytes(StandardCharsets.UTF_8), BUCKETS);
                String first = cluster.router().router().ownerOf(bucket);
                String second = first.equals("rs1") ? "rs2" : "rs1";

                // 1. A move while a client adds fields to the hash: the changed hash is sent again, in pieces, once SENDING.
                Writer writer = new Writer(cluster);
                Thread client = new Thread(writer, "pieces-writer");
                client.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> writer.acknowledged.size() >= 20);
                assertThat(cluster.coordinator().mover().requestMove(bucket, second)).isTrue();
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
                        .until(() -> MoveFaultSupport.settled(cluster.coordinator().mover().progress(), 1));
                long atMove = writer.acknowledged.size();
                await().atMost(Duration.ofSeconds(30)).until(() -> writer.acknowledged.size() >= atMove + 20);
                writer.stop.set(true);
                client.join(30_000);
                assertThat(cluster.router().router().ownerOf(bucket)).as("moved: %s", cluster.coordinator().mover().progress()).isEqualTo(second);
                Map<String, String> hash = jedis.hgetAll("{big}hash");
                assertThat(hash).hasSize(FIELDS + writer.acknowledged.size());
                for (int i = 0; i < FIELDS; i++) assertThat(hash.get("f" + i)).isEqualTo(value(i));
                writer.acknowledged.forEach((field, value) -> assertThat(hash.get(field)).as("acknowledged %s", field).isEqualTo(value));
                assertOthers(jedis);

                // 2. Back, with the destination's member stopped while it holds the hash's first pieces and not its last.
                BucketDigest before = records.digest(second, bucket);
                assertThat(cluster.coordinator().mover().requestMove(bucket, first)).isTrue();
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(2)).until(() -> {
                    BucketDigest d = records.digest(first, bucket);
                    return d != null && d.record() != null && d.record().state() == BucketState.RECEIVING && d.keyCount() >= 1;
                });
                BucketDigest partial = records.digest(first, bucket);
                assertThat(partial.keyCount()).as("mid-copy: the destination does not hold every key yet").isLessThan(before.keyCount());
                String node = MoveFaultSupport.nodeIds(cluster, first).get(0);
                cluster.stopNode(node);
                cluster.startNode(node);
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50))
                        .until(() -> MoveFaultSupport.settled(cluster.coordinator().mover().progress(), 2));
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> jedis.hlen("{big}hash") == hash.size());
                assertThat(jedis.hgetAll("{big}hash")).isEqualTo(hash);
                assertOthers(jedis);
                long active = 0;
                for (String rs : List.of("rs1", "rs2")) {
                    BucketDigest d = records.digest(rs, bucket);
                    if (d.record() != null && d.record().state() == BucketState.ACTIVE) active++;
                }
                assertThat(active).as("the bucket is ACTIVE on exactly one replicaset").isEqualTo(1);
                System.out.printf("collection pieces move: moved %s -> %s under %d hash writes, then back with %s restarted mid-copy: %s%n",
                        first, second, writer.acknowledged.size(), node, cluster.coordinator().mover().progress());
            }
        }
    }

    private static String value(int i) {
        return VALUE_PAD + i;
    }

    /** A hash of FIELDS 64-byte values, and a list, a set and a sorted set of ELEMENTS, all in the bucket of {big}. */
    private static void fill(Jedis jedis) {
        Pipeline pipe = jedis.pipelined();
        for (int from = 0; from < FIELDS; from += 500) {
            Map<String, String> batch = new HashMap<>();
            for (int i = from; i < Math.min(FIELDS, from + 500); i++) batch.put("f" + i, value(i));
            pipe.hset("{big}hash", batch);
        }
        for (int from = 0; from < ELEMENTS; from += 500) {
            String[] elements = new String[500];
            Map<String, Double> scores = new HashMap<>();
            for (int i = 0; i < 500; i++) {
                elements[i] = "e" + (from + i);
                scores.put("m" + (from + i), (double) ((from + i) % 97));
            }
            pipe.rpush("{big}list", elements);
            pipe.sadd("{big}set", elements);
            pipe.zadd("{big}zset", scores);
        }
        pipe.sync();
        assertThat(jedis.hlen("{big}hash")).isEqualTo(FIELDS);
    }

    private static void assertOthers(Jedis jedis) {
        List<String> list = jedis.lrange("{big}list", 0, -1);
        assertThat(list).hasSize(ELEMENTS);
        for (int i = 0; i < ELEMENTS; i++) assertThat(list.get(i)).isEqualTo("e" + i);
        Set<String> set = jedis.smembers("{big}set");
        assertThat(set).hasSize(ELEMENTS).contains("e0", "e" + (ELEMENTS - 1));
        List<Tuple> zset = jedis.zrangeWithScores("{big}zset", 0, -1);
        assertThat(zset).hasSize(ELEMENTS);
        for (Tuple t : zset) assertThat(t.getScore()).isEqualTo(Integer.parseInt(t.getElement().substring(1)) % 97);
    }

    /** Adds new fields to the big hash, one at a time; a failed HSET is not acknowledged (the field is never reused). */
    private static final class Writer implements Runnable {
        final Map<String, String> acknowledged = new ConcurrentHashMap<>();
        final AtomicBoolean stop = new AtomicBoolean();
        private final LocalCluster cluster;

        Writer(LocalCluster cluster) {
            this.cluster = cluster;
        }

        @Override
        public void run() {
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                for (int i = 0; !stop.get() && i < 100_000; i++) {
                    try {
                        jedis.hset("{big}hash", "new" + i, "w" + i);
                        acknowledged.put("new" + i, "w" + i);
                    } catch (RuntimeException refused) {
                        // TRYAGAIN while SENDING, or a connection hiccup: not acknowledged
                    }
                }
            }
        }
    }
}
