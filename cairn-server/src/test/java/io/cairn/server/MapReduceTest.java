package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Map-reduce commands through the real stack (Raft groups, RocksDB, the rebalancer, RESP) while buckets move. */
class MapReduceTest {
    private static final int BUCKETS = 120;
    private static final int KEYS = 1_000;
    private static final String[] REPLICASETS = {"rs1", "rs2", "rs3"};

    @TempDir
    Path dir;

    @Test
    void dbsizeStaysExactAndScanMissesNoKeyWhileBucketsMove() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 3, 1, BUCKETS, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = new Jedis("127.0.0.1", cluster.router().respPort(), 30_000)) {
                Pipeline p = jedis.pipelined();
                for (int i = 0; i < KEYS; i++) p.set("k" + i, "v" + i);
                p.sync();
                assertThat(jedis.dbSize()).isEqualTo(KEYS);

                Map<Integer, String> ownersBefore = owners(cluster);
                long movedBefore = moved(cluster);
                AtomicBoolean stop = new AtomicBoolean();
                AtomicInteger requested = new AtomicInteger();
                Thread mover = new Thread(() -> requestMoves(cluster, stop, requested), "test-move-requests");
                mover.start();
                List<Long> sizes = new ArrayList<>();
                Set<String> scanned = new HashSet<>();
                try {
                    // At least 200 calls, and on until 3 moves ended (manual moves wait for a mover round), however
                    // long a loaded machine takes; a mover that stopped moving fails at this generous bound.
                    long end = System.nanoTime() + Duration.ofSeconds(180).toNanos();
                    for (int i = 0; i < 200 || moved(cluster) - movedBefore < 3; i++) {
                        assertThat(System.nanoTime() - end).as("3 moves ended within 180 s (%d so far)", moved(cluster) - movedBefore).isNegative();
                        sizes.add(jedis.dbSize());
                        if (i % 10 == 0) scanned.addAll(scanAll(jedis));
                    }
                } finally {
                    stop.set(true);
                    mover.join(30_000);
                }

                long movedDuring = moved(cluster) - movedBefore;
                System.out.println("map-reduce test: " + sizes.size() + " DBSIZE calls, " + movedDuring + " buckets moved, "
                        + requested.get() + " moves requested");
                assertThat(movedDuring).as("buckets moved during the DBSIZE loop").isGreaterThanOrEqualTo(3);
                assertThat(sizes).as("DBSIZE while buckets move").hasSizeGreaterThanOrEqualTo(20).containsOnly((long) KEYS);
                assertThat(scanned).as("keys seen by SCAN while buckets move").hasSize(KEYS);
                assertThat(requested.get()).isPositive();
                Map<Integer, String> ownersAfter = owners(cluster);
                assertThat(ownersAfter).as("some bucket changed owner").isNotEqualTo(ownersBefore);
                assertThat(jedis.keys("k1*")).hasSize(111);
                assertThat(jedis.flushAll()).isEqualTo("OK");
                assertThat(jedis.dbSize()).isZero();
            }
        }
    }

    /** Asks the rebalancer to move random buckets to another replicaset, every 50 ms, until stopped. */
    private static void requestMoves(LocalCluster cluster, AtomicBoolean stop, AtomicInteger requested) {
        Random random = new Random(42);
        while (!stop.get()) {
            int bucket = 1 + random.nextInt(BUCKETS);
            String owner = cluster.router().router().ownerOf(bucket);
            String target = REPLICASETS[random.nextInt(REPLICASETS.length)];
            if (owner != null && !owner.equals(target) && cluster.coordinator().mover().requestMove(bucket, target)) {
                requested.incrementAndGet();
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static Set<String> scanAll(Jedis jedis) {
        Set<String> out = new HashSet<>();
        String cursor = "0";
        int pages = 0;
        do {
            ScanResult<String> page = jedis.scan(cursor, new ScanParams().count(100));
            out.addAll(page.getResult());
            cursor = page.getCursor();
            assertThat(++pages).isLessThan(10_000);
        } while (!cursor.equals("0"));
        return out;
    }

    private static long moved(LocalCluster cluster) {
        return cluster.coordinator().mover().progress().get("moved") instanceof Number n ? n.longValue() : 0;
    }

    private static Map<Integer, String> owners(LocalCluster cluster) {
        Map<Integer, String> out = new java.util.HashMap<>();
        for (int b = 1; b <= BUCKETS; b++) out.put(b, cluster.router().router().ownerOf(b));
        return out;
    }
}
