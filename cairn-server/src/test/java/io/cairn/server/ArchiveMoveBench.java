package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.ArchivePointer;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static io.cairn.server.ArchiveMoveLiveTest.*;
import static io.cairn.server.ArchiveScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One bucket moved back and forth between two replicasets (3 members each, folder store), live
 * (copy ahead, chunks through the mover) and archived (server-side copy), timed from the request to
 * the source's drop. Run with {@code -Dcairn.archive.bench=true -Dtest=ArchiveMoveBench}; figures
 * in docs/benchmarks.md. The round interval is 20 ms so the wait for the next round stays small.
 */
@EnabledIfSystemProperty(named = "cairn.archive.bench", matches = "true")
class ArchiveMoveBench {
    private static final int BUCKETS = 64;
    private static final int KEYS = Integer.getInteger("cairn.archive.bench.keys", 20_000);
    private static final int ROUNDS = Integer.getInteger("cairn.archive.bench.rounds", 3);

    @TempDir
    Path dir;

    @Test
    void archivedAndLiveMovesOfTheSameBucket() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 3, BUCKETS, Map.of("rebalancer", Map.of("auto", false, "roundIntervalMs", 20)));
        try (LocalCluster cluster = new LocalCluster(config).start(); Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(cluster.awaitReady(WAIT)).isTrue();
            int bucket = BucketHasher.bucketOf("{bench}".getBytes(StandardCharsets.UTF_8), BUCKETS);
            var load = jedis.pipelined();
            String value = "v".repeat(100);
            for (int i = 0; i < KEYS; i++) load.set("{bench}k" + i, value);
            load.sync();
            for (int round = 1; round <= ROUNDS; round++) {
                String a = owner(cluster, bucket);
                String b = a.equals("rs1") ? "rs2" : "rs1";
                long keysBefore = keysMoved(cluster);
                long liveMs = timeMove(cluster, bucket, a, b, false);
                long liveKeys = keysMoved(cluster) - keysBefore;

                ArchivePointer p = leaderOf(cluster, b).archives().archive(bucket);
                long bytesBefore = storeBytes(cluster);
                keysBefore = keysMoved(cluster);
                long archivedMs = timeMove(cluster, bucket, b, a, true);
                long storeBytes = storeBytes(cluster) - bytesBefore;
                long archivedKeys = keysMoved(cluster) - keysBefore;
                System.out.printf("round %d: %d keys, %d bytes of keys+values (%d-byte object)%n  live move %s->%s: %d ms, %.0f keys/s, "
                                + "%d keys streamed through the mover%n  archived move %s->%s: %d ms, %.0f keys/s, %d keys streamed, %d object bytes "
                                + "through storage nodes, coordinator store counts %s%n",
                        round, p.keyCount(), p.byteCount(), p.sizeBytes(), a, b, liveMs, 1000.0 * KEYS / liveMs, liveKeys, b, a, archivedMs,
                        1000.0 * KEYS / archivedMs, archivedKeys, storeBytes, cluster.coordinator().mover().archiveCounts());
                assertThat(archivedKeys).isZero();
                assertThat(storeBytes).isZero();
                long restoreStartNs = System.nanoTime();
                leaderOf(cluster, a).archives().restore(bucket).get(); // live again for the next round's live move
                System.out.printf("  restore at its new owner: %d ms%n", (System.nanoTime() - restoreStartNs) / 1_000_000);
            }
            assertThat(jedis.get("{bench}k7")).isEqualTo(value);
        }
    }

    /** From the request to every member of {@code from} SENT with its data (or object) dropped and {@code to} ACTIVE. */
    private static long timeMove(LocalCluster cluster, int bucket, String from, String to, boolean archived) {
        long movedBefore = moved(cluster);
        long startNs = System.nanoTime();
        assertThat(cluster.coordinator().mover().requestMove(bucket, to)).isTrue();
        await().atMost(WAIT).pollInterval(java.time.Duration.ofMillis(5)).until(() -> {
            for (StorageProcess m : members(cluster, to)) {
                BucketRecord r = record(m, bucket);
                if (r == null || r.state() != BucketState.ACTIVE || r.isArchived() != archived) return false;
            }
            for (StorageProcess m : members(cluster, from)) {
                BucketRecord r = record(m, bucket);
                if (r == null || r.state() != BucketState.SENT || !r.has(BucketRecord.FLAG_DATA_DROPPED)) return false;
            }
            return true;
        });
        long tookMs = (System.nanoTime() - startNs) / 1_000_000;
        // The driver counts the move (and its keys) once DropData's answer is back, and progress is published every 100 ms.
        await().atMost(WAIT).until(() -> moved(cluster) > movedBefore);
        return tookMs;
    }

    private static long moved(LocalCluster cluster) {
        return cluster.coordinator().mover().progress().get("moved") instanceof Number n ? n.longValue() : -1;
    }
}
