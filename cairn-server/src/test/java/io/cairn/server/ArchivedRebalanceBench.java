package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.cairn.server.ArchiveMoveLiveTest.keysMoved;
import static io.cairn.server.ArchiveMoveLiveTest.storeBytes;
import static io.cairn.server.ArchiveScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A cluster whose every bucket is archived grows by one replicaset: the rebalancer moves a third of
 * the buckets, each by server-side copy (issue 23's "moving many archived buckets to a new
 * replicaset": wall time, store calls, bytes through nodes). Two replicasets of 1 member each plus
 * the new one, {@code cairn.archive.bench.buckets} buckets (default 1000), folder store. Run with
 * {@code -Dcairn.archive.bench=true -Dtest=ArchivedRebalanceBench}; figures in docs/benchmarks.md.
 */
@EnabledIfSystemProperty(named = "cairn.archive.bench", matches = "true")
class ArchivedRebalanceBench {
    private static final int BUCKETS = Integer.getInteger("cairn.archive.bench.buckets", 1_000);
    private static final int KEYS = 20 * BUCKETS;

    @TempDir
    Path dir;

    @Test
    void everyArchivedBucketThatMovesToANewReplicasetMovesAsItsObject() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, 1, Map.of("rebalancer", Map.of("roundIntervalMs", 100)));
        try (LocalCluster cluster = new LocalCluster(config).start(); Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(cluster.awaitReady(WAIT)).isTrue();
            var load = jedis.pipelined();
            for (int i = 0; i < KEYS; i++) load.set("m-" + i, "v".repeat(100));
            load.sync();
            long archiveStart = System.nanoTime();
            int archived = archiveEverything(cluster, "rs1") + archiveEverything(cluster, "rs2");
            System.out.printf("BENCH archived %d buckets in %.1f s%n", archived, (System.nanoTime() - archiveStart) / 1e9);

            long bytesBefore = storeBytes(cluster), keysBefore = keysMoved(cluster);
            var ioBefore = cluster.coordinator().mover().archiveCounts();
            long start = System.nanoTime();
            assertThat(Cli.run("topology", "add-replicaset", "--config", config.source().toString(), "--replicas", "1").exitCode()).isZero();
            int share = BUCKETS / 3;
            await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> cluster.router().router().bucketsByReplicaset().getOrDefault("rs3", 0) >= share - share / 100);
            double seconds = (System.nanoTime() - start) / 1e9;
            var io = cluster.coordinator().mover().archiveCounts();
            int onRs3 = cluster.router().router().bucketsByReplicaset().getOrDefault("rs3", 0);
            System.out.printf("BENCH %d archived buckets moved to rs3 in %.1f s (%.0f buckets/s, from add-replicaset); store calls by the mover: "
                            + "%d copies, %d durable checks (HEAD), %d missing, %d deletes; object bytes through the coordinator %d, through storage "
                            + "nodes %d; keys streamed %d%n", onRs3, seconds, onRs3 / seconds, io.copies() - ioBefore.copies(),
                    io.durableChecks() - ioBefore.durableChecks(), io.missingObjects() - ioBefore.missingObjects(), io.deletes() - ioBefore.deletes(),
                    io.bytesRead() + io.bytesWritten() - ioBefore.bytesRead() - ioBefore.bytesWritten(), storeBytes(cluster) - bytesBefore,
                    keysMoved(cluster) - keysBefore);
            assertThat(storeBytes(cluster) - bytesBefore).as("object bytes through storage nodes").isZero();
            assertThat(keysMoved(cluster) - keysBefore).as("keys streamed").isZero();
            assertThat(jedis.get("m-7")).isEqualTo("v".repeat(100));
        }
    }

    /** Every bucket of {@code rs} that holds keys archived on its leader, 4 at once; how many. */
    private static int archiveEverything(LocalCluster cluster, String rs) throws Exception {
        StorageProcess leader = leaderOf(cluster, rs);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (var r : leader.node().bucketRecords()) {
                if (r.state().servesWrites() && !r.isArchived()) done.add(pool.submit(() -> leader.archives().archive(r.id())));
            }
            for (Future<?> f : done) f.get();
            return done.size();
        } finally {
            pool.shutdownNow();
        }
    }
}
