package io.cairn.server;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.ArchivePointer;
import io.cairn.server.ArchiveScenarios.Loaded;
import io.cairn.server.cli.CliTestAccess;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static io.cairn.server.ArchiveScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Live buckets archived to the default folder store and restored on access, on a real local cluster (issue 23). */
class ArchiveLiveTest {
    @TempDir
    Path dir;

    private LocalCluster start(int replicasets, Map<String, Object> extra) throws Exception {
        ClusterConfig config = TestClusters.config(dir, replicasets, 3, 64, extra);
        LocalCluster cluster = new LocalCluster(config).start();
        assertThat(cluster.awaitReady(WAIT)).isTrue();
        return cluster;
    }

    @Test
    void aBucketIsArchivedReadBackWrittenAndArchivedAgainWithoutLosingAKey() throws Exception {
        try (LocalCluster cluster = start(1, Map.of())) {
            archiveReadWriteReArchive(cluster);
            assertThat(Files.isDirectory(dir.resolve("archive/objects/cairn/rs1/buckets"))).as("the folder store under the data folder").isTrue();
        }
    }

    @Test
    void aNewLeaderServesABucketArchivedByTheOldOne() throws Exception {
        try (LocalCluster cluster = start(1, Map.of()); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "restart", 100);
            ArchivePointer p = archiveAndCheck(cluster, "rs1", l);
            String oldLeader = leaderOf(cluster, "rs1").node().id();
            cluster.stopNode(oldLeader);
            StorageProcess next = leaderOf(cluster, "rs1");
            assertThat(next.node().id()).isNotEqualTo(oldLeader);
            assertServed(jedis, l);
            assertThat(next.archives().counts().restored()).as("the new leader restored it").isEqualTo(1);
            assertThat(next.archiveStore().head(p.objectKey())).isPresent();
            cluster.startNode(oldLeader);
            StorageProcess back = cluster.storage(oldLeader);
            await().atMost(WAIT).until(() -> {
                BucketRecord r = record(back, l.bucket());
                return r != null && !r.isArchived() && back.node().localStats().keyCount() == l.strings().size() + 1;
            });

            // Archived again, then every member restarted: the record and its pointer come back from disk.
            archiveAndCheck(cluster, "rs1", l);
            for (StorageProcess member : members(cluster, "rs1")) cluster.stopNode(member.node().id());
            for (String id : cluster.nodes().keySet()) cluster.startNode(id);
            StorageProcess restarted = leaderOf(cluster, "rs1");
            assertThat(record(restarted, l.bucket()).isArchived()).isTrue();
            assertServed(jedis, l);
        }
    }

    /** A follower refuses a read of an archived bucket (only the leader restores it): the router asks the leader, the client never sees it. */
    @Test
    void withFollowerReadsAnArchivedBucketIsServedThroughItsLeader() throws Exception {
        try (LocalCluster cluster = start(1, Map.of("router", Map.of("followerReads", true))); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "follower", 100);
            archiveAndCheck(cluster, "rs1", l);
            assertServed(jedis, l);
            assertThat(leaderOf(cluster, "rs1").archives().counts().restored()).isEqualTo(1);
        }
    }

    @Test
    void flushAllForgetsAnArchiveSoItsKeysNeverComeBack() throws Exception {
        try (LocalCluster cluster = start(1, Map.of()); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "flushed", 50);
            archiveAndCheck(cluster, "rs1", l);
            assertThat(CliTestAccess.status(cluster.config())).as("cairn status").contains("(1 archived)");
            assertThat(CliTestAccess.bucketRecords(cluster.config(), l.bucket()).get("rs1")).as("cairn bucket show").asString().contains("ACTIVE", "(archived)");
            assertThat(jedis.flushAll()).isEqualTo("OK");
            for (StorageProcess member : members(cluster, "rs1")) {
                await().atMost(WAIT).until(() -> !record(member, l.bucket()).isArchived());
            }
            for (String k : l.strings().keySet()) assertThat(jedis.get(k)).as(k).isNull();
            assertThat(jedis.hgetAll(l.hashKey())).isEmpty();
            assertThat(leaderOf(cluster, "rs1").archives().counts().restored()).as("nothing restored").isZero();
            assertThat(jedis.set(l.hashKey(), "fresh")).isEqualTo("OK");
            assertThat(jedis.get(l.hashKey())).isEqualTo("fresh");
        }
    }

    @Test
    void aMoveOfAnArchivedBucketMovesItsObjectAndTheNewOwnerServesEveryKey() throws Exception {
        Map<String, Object> manual = Map.of("rebalancer", Map.of("auto", false, "roundIntervalMs", 100));
        try (LocalCluster cluster = start(2, manual); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "moving", 100);
            String source = ownerOf(cluster, l.bucket());
            String destination = source.equals("rs1") ? "rs2" : "rs1";
            archiveAndCheck(cluster, source, l);
            var mover = cluster.coordinatorLeader().mover();
            await().atMost(WAIT).until(() -> {
                mover.requestMove(l.bucket(), destination); // moved as its object (ArchiveMoveLiveTest has the details)
                BucketRecord r = record(leaderOf(cluster, destination), l.bucket());
                return r != null && r.state() == io.cairn.core.BucketState.ACTIVE;
            });
            assertThat(record(leaderOf(cluster, destination), l.bucket()).isArchived()).as("not restored before the move").isTrue();
            assertThat(record(leaderOf(cluster, source), l.bucket()).state()).isIn(io.cairn.core.BucketState.SENT, io.cairn.core.BucketState.SENDING);
            assertServed(jedis, l);
        }
    }

    @Test
    void idleBucketsAreArchivedByThemselvesWhenTheThresholdIsSet() throws Exception {
        try (LocalCluster cluster = start(1, Map.of("archive", Map.of("afterIdleMs", 1_500)));
             Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "idle", 40);
            StorageProcess leader = leaderOf(cluster, "rs1");
            await().atMost(WAIT).until(() -> record(leader, l.bucket()).isArchived());
            assertThat(leader.archives().counts().archived()).isPositive();
            assertServed(jedis, l);
        }
    }

    /**
     * One restore at a time, and a store throttled to 500 bytes/s while the first runs: a read of a
     * second archived bucket is told at once that the queue is full (nothing queued, nothing lost), and
     * is served once the first restore is done.
     */
    @Test
    void pastTheRestoreQueueAReadIsToldToRetryAndIsServedLater() throws Exception {
        Map<String, Object> oneAtATime = Map.of("archive", Map.of("maxQueuedRestores", 1, "restoreThreads", 1));
        try (LocalCluster cluster = start(1, oneAtATime); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded first = load(jedis, cluster, "queued", 100);
            Loaded second = load(jedis, cluster, "refused", 100);
            assertThat(second.bucket()).isNotEqualTo(first.bucket());
            archiveAndCheck(cluster, "rs1", first, second.strings().size() + 1);
            archiveAndCheck(cluster, "rs1", second);
            StorageProcess leader = leaderOf(cluster, "rs1");
            leader.archiveStore().throttle().setRates(new io.cairn.archive.StoreThrottle.Rates(0, 500));
            var running = leader.archives().restore(first.bucket());
            assertThat(running).isNotNull();
            assertThat(leader.archives().counts().restoresInFlight()).isEqualTo(1);

            assertThatThrownBy(() -> jedis.get("{refused}k1")).isInstanceOf(redis.clients.jedis.exceptions.JedisDataException.class)
                    .hasMessageContaining("TRYAGAIN").hasMessageContaining("restore queue is full");
            assertThat(leader.archives().counts().queueFullRefusals()).isPositive();
            assertThat(record(leader, second.bucket()).isArchived()).as("nothing was queued for it").isTrue();

            leader.archiveStore().throttle().setRates(io.cairn.archive.StoreThrottle.Rates.UNLIMITED);
            assertThat(running.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertServed(jedis, first);
            assertServed(jedis, second);
        }
    }

    @Test
    void theCliArchivesAndRestoresABucketThroughItsLeader() throws Exception {
        try (LocalCluster cluster = start(1, Map.of()); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "cli", 30);
            String file = cluster.config().source().toString();
            assertThat(Cli.run("bucket", "archive", Integer.toString(l.bucket()), "--config", file).exitCode()).isZero();
            StorageProcess leader = leaderOf(cluster, "rs1");
            assertThat(record(leader, l.bucket()).isArchived()).isTrue();
            assertThat(Cli.run("bucket", "archive", Integer.toString(l.bucket()), "--config", file).exitCode())
                    .as("an archived bucket is not archived twice").isEqualTo(1);
            assertThat(Cli.run("bucket", "restore", Integer.toString(l.bucket()), "--config", file).exitCode()).isZero();
            assertThat(record(leader, l.bucket()).isArchived()).isFalse();
            assertThat(leader.archives().counts().restored()).isEqualTo(1);
            assertServed(jedis, l);
            assertThat(Cli.run("bucket", "archive", "9999", "--config", file).exitCode()).as("a bucket no replicaset owns").isNotZero();
        }
    }

    /**
     * The object deleted behind Cairn's back, then replaced by garbage: each restore fails with a clear
     * reason (an alert, the bucket stays archived, nothing half-restored is served), and once the real
     * object is back every key is served.
     */
    @Test
    void aMissingOrCorruptObjectLeavesTheBucketArchivedWithAnAlertAndLosesNothing() throws Exception {
        try (LocalCluster cluster = start(1, Map.of()); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "lost", 60);
            ArchivePointer p = archiveAndCheck(cluster, "rs1", l);
            StorageProcess leader = leaderOf(cluster, "rs1");
            var store = leader.archiveStore();
            String aside = p.objectKey() + "-aside";
            store.copy(p.objectKey(), aside);
            store.delete(p.objectKey());

            assertThat(leader.archives().restore(l.bucket()).get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isFalse();
            assertThat(leader.archives().failures().get(l.bucket())).contains("OBJECT_NOT_FOUND");
            assertThat(leader.alerts()).anyMatch(a -> a.startsWith("ARCHIVE_FAILED: bucket " + l.bucket()));
            assertThat(record(leader, l.bucket()).isArchived()).isTrue();

            store.put(p.objectKey(), io.cairn.archive.ObjectBody.of(new byte[(int) p.sizeBytes()]), Map.of());
            assertThat(leader.archives().restore(l.bucket()).get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isFalse();
            assertThat(leader.archives().failures().get(l.bucket())).contains("ARCHIVE_CORRUPT");
            assertThat(record(leader, l.bucket()).isArchived()).isTrue();
            assertThat(leader.node().localStats().keyCount()).as("nothing half-restored is left").isZero();

            store.delete(p.objectKey());
            store.copy(aside, p.objectKey());
            assertServed(jedis, l);
            assertThat(leader.archives().failures()).doesNotContainKey(l.bucket());
            assertThat(leader.alerts()).noneMatch(a -> a.startsWith("ARCHIVE_FAILED"));
        }
    }

    private static String ownerOf(LocalCluster cluster, int bucket) {
        for (String rs : new String[]{"rs1", "rs2"}) {
            BucketRecord r = record(leaderOf(cluster, rs), bucket);
            if (r != null && r.state().isOwned()) return rs;
        }
        throw new AssertionError("no owner of bucket " + bucket);
    }
}
