package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A bucket holding a big hash and a list as long moves while a client keeps writing other keys of
 * that bucket and reading the big keys (issue 24): no acknowledged write is lost, both arrive
 * whole, and the slowest foreground request is reported. 100,000 fields and elements in the
 * normal build (each key moves in pieces of the 1 MiB chunk bound); {@code -Dcairn.bigkey.fields=1000000}
 * for the million-element runs recorded in docs/benchmarks.md, with {@code -Dcairn.bigkey.valueBytes=64}
 * for keys above a Raft entry's 64 MiB bound.
 */
class BigKeyMoveTest {
    private static final int BUCKETS = 300;
    private static final int FIELDS = Integer.getInteger("cairn.bigkey.fields", 100_000);
    /** Bytes of each field's value ({@code -Dcairn.bigkey.valueBytes=64}: a million fields pass a Raft entry's 64 MiB); 0 keeps "v123". */
    private static final int VALUE_BYTES = Integer.getInteger("cairn.bigkey.valueBytes", 0);

    @TempDir
    Path dir;

    @Test
    void aBucketWithABigHashAndABigListMovesUnderLoadWithNothingLost() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                long fillStart = System.nanoTime();
                fill(jedis);
                long fillMs = (System.nanoTime() - fillStart) / 1_000_000;
                assertThat(jedis.hlen("{big}hash")).isEqualTo(FIELDS);
                assertThat(jedis.llen("{big}list")).isEqualTo(FIELDS);

                int bucket = BucketHasher.bucketOf("big".getBytes(StandardCharsets.UTF_8), BUCKETS);
                String from = cluster.router().router().ownerOf(bucket);
                String to = from.equals("rs1") ? "rs2" : "rs1";
                Foreground load = new Foreground(cluster);
                Thread client = new Thread(load, "big-key-foreground");
                client.start();
                await().atMost(Duration.ofSeconds(30)).until(() -> load.acknowledged.size() >= 50);
                long movedBefore = moved(cluster);
                long moveStart = System.nanoTime();
                assertThat(cluster.coordinator().mover().requestMove(bucket, to)).isTrue();
                await().atMost(Duration.ofSeconds(240)).pollInterval(Duration.ofMillis(20))
                        .until(() -> to.equals(cluster.router().router().ownerOf(bucket)) && moved(cluster) > movedBefore);
                long moveMs = (System.nanoTime() - moveStart) / 1_000_000;
                long writesAtMove = load.acknowledged.size();
                await().atMost(Duration.ofSeconds(30)).until(() -> load.acknowledged.size() >= writesAtMove + 50);
                load.stop.set(true);
                client.join(30_000);

                System.out.printf("big key move: a hash of %,d fields and a list as long filled in %d ms, moved %s -> %s in %d ms (%,.0f fields/s); "
                                + "foreground: %,d writes and %,d reads acknowledged, %,d errors retried, slowest request %d ms; writes held %s%n",
                        FIELDS, fillMs, from, to, moveMs, FIELDS * 1000.0 / Math.max(1, moveMs), load.acknowledged.size(),
                        load.reads.get(), load.errors.get(), load.slowestNs.get() / 1_000_000,
                        cluster.coordinator().mover().progress().get("writesHeldMs"));
                assertThat(load.failure.get()).as("the big key read wrong during the move").isNull();
                for (Map.Entry<String, String> w : load.acknowledged.entrySet()) {
                    assertThat(jedis.get(w.getKey())).as("acknowledged write %s", w.getKey()).isEqualTo(w.getValue());
                }
                assertThat(jedis.hlen("{big}hash")).isEqualTo(FIELDS);
                for (int i = 0; i < FIELDS; i += Math.max(1, FIELDS / 1_000)) {
                    assertThat(jedis.hget("{big}hash", "f" + i)).isEqualTo(value(i));
                }
                assertThat(jedis.hget("{big}hash", "f" + (FIELDS - 1))).isEqualTo(value(FIELDS - 1));
                assertThat(jedis.llen("{big}list")).isEqualTo(FIELDS);
                for (int i = 0; i < FIELDS; i += Math.max(1, FIELDS / 1_000)) {
                    assertThat(jedis.lindex("{big}list", i)).as("list element %d", i).isEqualTo(value(i));
                }
                assertThat(jedis.lindex("{big}list", -1)).isEqualTo(value(FIELDS - 1));
            }
        }
    }

    private static String value(int i) {
        String v = "v" + i;
        return VALUE_BYTES <= v.length() ? v : "x".repeat(VALUE_BYTES - v.length()) + v;
    }

    /** HSET and RPUSH in pipelined batches of 1,000 fields and elements: element i of the list is field i's value. */
    private static void fill(Jedis jedis) {
        Pipeline pipe = jedis.pipelined();
        for (int from = 0; from < FIELDS; from += 1_000) {
            Map<String, String> batch = new HashMap<>();
            List<String> elements = new ArrayList<>();
            for (int i = from; i < Math.min(FIELDS, from + 1_000); i++) {
                batch.put("f" + i, value(i));
                elements.add(value(i));
            }
            pipe.hset("{big}hash", batch);
            pipe.rpush("{big}list", elements.toArray(String[]::new));
            if ((from / 1_000) % 50 == 49) pipe.sync();
        }
        pipe.sync();
    }

    private static long moved(LocalCluster cluster) {
        return cluster.coordinator().mover().progress().get("moved") instanceof Number n ? n.longValue() : -1;
    }

    /**
     * One client alternating a SET of a new key of the moving bucket and reads of the big keys
     * (HLEN and LLEN, which must always be the full count, one field and one element). A write that fails is not
     * acknowledged and is retried under a new key; the slowest acknowledged request is kept.
     */
    private static final class Foreground implements Runnable {
        final Map<String, String> acknowledged = new ConcurrentHashMap<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong reads = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong slowestNs = new AtomicLong();
        final AtomicReference<String> failure = new AtomicReference<>();
        private final LocalCluster cluster;

        Foreground(LocalCluster cluster) {
            this.cluster = cluster;
        }

        @Override
        public void run() {
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                for (int i = 0; !stop.get(); i++) {
                    String key = "{big}k" + i;
                    try {
                        long start = System.nanoTime();
                        jedis.set(key, "v" + i);
                        slowestNs.accumulateAndGet(System.nanoTime() - start, Math::max);
                        acknowledged.put(key, "v" + i);
                        start = System.nanoTime();
                        long length = jedis.hlen("{big}hash");
                        String field = jedis.hget("{big}hash", "f" + (i % FIELDS));
                        long listLength = jedis.llen("{big}list");
                        String element = jedis.lindex("{big}list", i % FIELDS);
                        slowestNs.accumulateAndGet(System.nanoTime() - start, Math::max);
                        reads.incrementAndGet();
                        if (length != FIELDS || !value(i % FIELDS).equals(field)) {
                            failure.compareAndSet(null, "HLEN " + length + ", f" + (i % FIELDS) + " = " + field);
                        }
                        if (listLength != FIELDS || !value(i % FIELDS).equals(element)) {
                            failure.compareAndSet(null, "LLEN " + listLength + ", element " + (i % FIELDS) + " = " + element);
                        }
                    } catch (redis.clients.jedis.exceptions.JedisException e) {
                        errors.incrementAndGet();
                    }
                }
            }
        }
    }
}
