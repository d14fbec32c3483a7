package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.cairn.server.DoubledBucketSupport.alerts;
import static io.cairn.server.DoubledBucketSupport.copyTree;
import static io.cairn.server.DoubledBucketSupport.deleteTree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 21: a source restored from a backup taken while it copied a bucket ahead, after the move
 * finished. Recovery ends the restored copy's copy-ahead; the copy must stay below the new owner's
 * generation, so the double it makes is settled by generations (the old copy contained), never an
 * equal-generation tie.
 */
class CopyAheadRestoreTest {
    private static final int BUCKETS = 60;
    private static final String TAG = "restored";

    @TempDir
    Path dir;

    @Test
    void aSourceRestoredFromABackupTakenDuringTheCopyAheadStaysBelowTheNewOwner() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of(
                "rebalancer", Map.of("auto", false, "chunkKeys", 2, "roundIntervalMs", 100, "copyAhead", true, "maxBytesPerSecond", 25_000),
                "storage", Map.of("doubledSelfCheckBucketsPerSecond", 100),
                "router", Map.of("discoveryIntervalMs", 200)));
        Path backup = dir.resolve("s1-1-backup");
        int bucket = BucketHasher.bucketOf(TAG.getBytes(StandardCharsets.UTF_8), BUCKETS);
        try (LocalCluster cluster = new LocalCluster(config).start(); Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            String source = cluster.router().router().ownerOf(bucket);
            String destination = source.equals("rs1") ? "rs2" : "rs1";
            String sourceNode = source.equals("rs1") ? "s1-1" : "s2-1";
            List<String> kv = new ArrayList<>();
            for (int i = 0; i < 4_000; i++) {
                kv.add("{" + TAG + "}:" + i);
                kv.add("v" + i);
            }
            assertThat(jedis.mset(kv.toArray(String[]::new))).isEqualTo("OK");

            assertThat(cluster.coordinator().mover().requestMove(bucket, destination)).isTrue();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10)).until(() -> record(cluster, sourceNode, bucket).marksChanges());
            cluster.stopNode(sourceNode); // the backup, taken while the copy ahead runs
            copyTree(config.nodeDir(sourceNode), backup);
            cluster.startNode(sourceNode);
            await().atMost(Duration.ofSeconds(60)).until(() -> destination.equals(cluster.router().router().ownerOf(bucket))
                    && record(cluster, sourceNode, bucket).state() == BucketState.SENT);
            long ownerGeneration = record(cluster, destinationNode(destination), bucket).generation();
            long rolledBack = MoveFaultSupport.longOf(cluster.coordinator().mover().progress(), "rolledBack");

            cluster.stopNode(sourceNode); // the restore
            deleteTree(config.nodeDir(sourceNode));
            copyTree(backup, config.nodeDir(sourceNode));
            cluster.startNode(sourceNode);

            // Two ways end the restored copy-ahead, in either order: recovery resumes and rolls it back (the only move that
            // can roll back here), or a router's doubled check contains the copy first (READONLY: recovery leaves it, and the
            // operator's resolve removes it with its copy-ahead mark). Either way the copy ends contained, below the owner.
            await().atMost(Duration.ofSeconds(60)).until(() -> record(cluster, sourceNode, bucket).isContainedDouble());
            boolean rolledBackFirst = MoveFaultSupport.longOf(cluster.coordinator().mover().progress(), "rolledBack") > rolledBack;
            System.out.println("copy-ahead restore: " + (rolledBackFirst ? "rolled back by recovery, then contained" : "contained before recovery"));
            BucketRecord stale = record(cluster, sourceNode, bucket);
            assertThat(stale.generation()).as("the restored copy stays below the owner").isLessThan(ownerGeneration);
            BucketRecord owner = record(cluster, destinationNode(destination), bucket);
            assertThat(owner.state()).isEqualTo(BucketState.ACTIVE);
            assertThat(owner.generation()).isEqualTo(ownerGeneration);
            int routerAdmin = cluster.router().admin().port();
            await().atMost(Duration.ofSeconds(20)).until(() -> alerts(routerAdmin).contains(bucket + " {" + (source.equals("rs1")
                    ? "rs1=READONLY@" + stale.generation() + ", rs2=writable@" + ownerGeneration
                    : "rs1=writable@" + ownerGeneration + ", rs2=READONLY@" + stale.generation()) + "}"));
            assertThat(jedis.get("{" + TAG + "}:7")).isEqualTo("v7");
            assertThat(jedis.set("{" + TAG + "}:7", "after")).isEqualTo("OK");
        }
    }

    private static String destinationNode(String replicaset) {
        return replicaset.equals("rs1") ? "s1-1" : "s2-1";
    }

    private static BucketRecord record(LocalCluster cluster, String node, int bucket) {
        StorageProcess p = cluster.storage(node);
        if (p == null) return new BucketRecord(bucket, BucketState.GARBAGE, -1, 0, "", 0);
        return p.node().bucketRecords().stream().filter(r -> r.id() == bucket).findFirst()
                .orElse(new BucketRecord(bucket, BucketState.GARBAGE, -1, 0, "", 0));
    }
}
