package io.cairn.server;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.server.ArchiveScenarios.Loaded;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

import static io.cairn.server.ArchiveMoveLiveTest.awaitMovedArchived;
import static io.cairn.server.ArchiveMoveLiveTest.owner;
import static io.cairn.server.ArchiveScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The eager-restore list (docs/archive.md, "Eager restore") is replicated state: a bucket adopted
 * archived by a move is restored in the background after a restart of the whole cluster, with no
 * request for it. Here it was adopted while {@code archive.eagerRestore} was off and the cluster
 * restarts with it on: with the list in memory only (as it was), nothing would ever restore it.
 */
class EagerRestoreRestartTest {
    private static final int BUCKETS = 64;

    @TempDir
    Path dir;

    @Test
    void aBucketAdoptedArchivedIsRestoredInTheBackgroundAfterTheWholeClusterRestarts() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false)));
        Loaded l;
        String to;
        try (LocalCluster cluster = new LocalCluster(config).start(); Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(cluster.awaitReady(WAIT)).isTrue();
            l = load(jedis, cluster, "eager", 500);
            String from = owner(cluster, l.bucket());
            to = from.equals("rs1") ? "rs2" : "rs1";
            archiveAndCheck(cluster, from, l);
            assertThat(cluster.coordinator().mover().requestMove(l.bucket(), to)).isTrue();
            awaitMovedArchived(cluster, l.bucket(), from, to);
            assertThat(record(leaderOf(cluster, to), l.bucket()).isArchived()).as("eager restore is off: it stays archived").isTrue();
        }

        Files.writeString(config.source(), "archive:\n  eagerRestore: true\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        ClusterConfig eager = ConfigLoader.load(config.source());
        try (LocalCluster cluster = new LocalCluster(eager).start(); Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(cluster.awaitReady(WAIT)).isTrue();
            StorageProcess newOwner = leaderOf(cluster, to);
            await().atMost(WAIT).untilAsserted(() -> { // no client asked for it
                BucketRecord r = record(newOwner, l.bucket());
                assertThat(r.state()).isEqualTo(BucketState.ACTIVE);
                assertThat(r.isArchived()).as("restored in the background after the restart").isFalse();
            });
            assertThat(newOwner.archives().counts().restored()).isEqualTo(1);
            assertThat(newOwner.archives().eagerRestoresPending()).isEmpty();
            assertServed(jedis, l);
        }
    }
}
