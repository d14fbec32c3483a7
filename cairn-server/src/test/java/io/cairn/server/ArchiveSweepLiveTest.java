package io.cairn.server;

import io.cairn.archive.ObjectBody;
import io.cairn.archive.ObjectInfo;
import io.cairn.archive.ObjectStore;
import io.cairn.core.move.ArchivePointer;
import io.cairn.server.ArchiveScenarios.Loaded;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;

import static io.cairn.server.ArchiveScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Direct deletes and the prefix sweeper on a real local cluster with the folder store (issue 23):
 * FLUSHALL deletes an emptied bucket's object without restoring it; the sweeper quarantines only
 * objects no record names that are older than the age guard (7 days, the default), deletes only
 * quarantined objects that have been there as long, and never touches another replicaset's prefix;
 * the prefix of a replicaset not in the topology (removed, or replaced under a new id) is swept by
 * the same rules by one live replicaset's leader.
 */
class ArchiveSweepLiveTest {
    private static final long DAY_MS = 86_400_000L;

    @TempDir
    Path dir;

    private LocalCluster start() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 64, Map.of("archive", Map.of("sweepIntervalMs", 200)));
        LocalCluster cluster = new LocalCluster(config).start();
        assertThat(cluster.awaitReady(WAIT)).isTrue();
        return cluster;
    }

    /** Ages an object of the folder store (its file's time is the object's last-modified time). */
    private void age(String key, long ageMs) throws Exception {
        Files.setLastModifiedTime(dir.resolve("archive/objects").resolve(key), FileTime.fromMillis(System.currentTimeMillis() - ageMs));
    }

    private static void put(ObjectStore store, String key) {
        store.put(key, ObjectBody.of("orphan".getBytes(StandardCharsets.UTF_8)), Map.of());
    }

    @Test
    void flushAllDeletesTheObjectsOfEmptiedBucketsWithoutRestoringThem() throws Exception {
        try (LocalCluster cluster = start(); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded archived = load(jedis, cluster, "cold", 50);
            Loaded restored = load(jedis, cluster, "warm", 50);
            ArchivePointer coldObject = archiveAndCheck(cluster, "rs1", archived, restored.strings().size() + 1);
            ArchivePointer warmObject = leaderOf(cluster, "rs1").archives().archive(restored.bucket());
            assertServed(jedis, restored); // restored: its object stays as its last archive, until now
            StorageProcess leader = leaderOf(cluster, "rs1");
            long restoresBefore = leader.archives().counts().restored();

            assertThat(jedis.flushAll()).isEqualTo("OK");

            ObjectStore store = leader.archiveStore();
            await().atMost(WAIT).until(() -> store.head(coldObject.objectKey()).isEmpty() && store.head(warmObject.objectKey()).isEmpty());
            assertThat(leader.archives().deletedDirectly()).isEqualTo(2);
            assertThat(leader.archives().counts().restored()).as("nothing restored to be deleted").isEqualTo(restoresBefore);
            for (String k : archived.strings().keySet()) assertThat(jedis.get(k)).as(k).isNull();
            assertThat(jedis.dbSize()).isZero();
        }
    }

    @Test
    void theSweeperQuarantinesOnlyOldUnnamedObjectsAndEmptiesTheQuarantineAfterTheGuard() throws Exception {
        try (LocalCluster cluster = start(); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "kept", 30);
            ArchivePointer named = archiveAndCheck(cluster, "rs1", l);
            ObjectStore store = leaderOf(cluster, "rs1").archiveStore();
            String oldOrphan = "cairn/rs1/buckets/5/1-0ld";
            String youngOrphan = "cairn/rs1/buckets/6/1-y0ung";
            String oldQuarantined = "cairn/rs1/quarantine/" + (System.currentTimeMillis() - 8 * DAY_MS) + "/buckets/7/1-g0ne";
            String oddKey = "cairn/rs1/buckets/notabucket/1-x";
            for (String k : List.of(oldOrphan, youngOrphan, oldQuarantined, oddKey)) put(store, k);
            age(oldOrphan, 8 * DAY_MS);
            age(oddKey, 30 * DAY_MS);
            age(named.objectKey(), 30 * DAY_MS); // named by its bucket's record: age does not matter

            await().atMost(WAIT).until(() -> store.head(oldOrphan).isEmpty() && store.head(oldQuarantined).isEmpty());
            List<String> quarantine = store.list("cairn/rs1/quarantine/", null, 100).objects().stream().map(ObjectInfo::key).toList();
            assertThat(quarantine).as("the old orphan, quarantined under its time").hasSize(1);
            assertThat(quarantine.get(0)).endsWith("/buckets/5/1-0ld");
            assertThat(store.head(quarantine.get(0))).as("a quarantine keeps a copy").isPresent();
            for (String k : List.of(youngOrphan, oddKey, named.objectKey())) assertThat(store.head(k)).as(k).isPresent();
            StorageProcess leader = leaderOf(cluster, "rs1");
            await().atMost(WAIT).untilAsserted(() -> assertThat(leader.archiveSweepCounts().quarantined()).isEqualTo(1));
            assertThat(leader.archiveSweepCounts().deleted()).isEqualTo(1);
            assertServed(jedis, l); // the named object restores as before
        }
    }

    /**
     * rs2 is in no topology of this one-replicaset cluster, as after {@code cairn topology remove-replicaset}:
     * rs1's leader (the first live replicaset by id) sweeps its prefix with the same guard and quarantine,
     * and its own sweeper's counts show it never reached there itself.
     */
    @Test
    void thePrefixOfAReplicasetNoLongerInTheTopologyIsSweptWithTheSameGuardAndQuarantine() throws Exception {
        try (LocalCluster cluster = start(); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "live", 30);
            ArchivePointer named = archiveAndCheck(cluster, "rs1", l);
            ObjectStore store = leaderOf(cluster, "rs1").archiveStore();
            String oldLeftover = "cairn/rs2/buckets/5/1-l3ft";
            String youngLeftover = "cairn/rs2/buckets/6/1-y0ung";
            String oldQuarantined = "cairn/rs2/quarantine/" + (System.currentTimeMillis() - 8 * DAY_MS) + "/buckets/7/1-g0ne";
            String oddKey = "cairn/rs2/notes/1-x";
            for (String k : List.of(oldLeftover, youngLeftover, oldQuarantined, oddKey)) put(store, k);
            age(oldLeftover, 8 * DAY_MS);
            age(oddKey, 30 * DAY_MS);
            age(named.objectKey(), 30 * DAY_MS); // a live replicaset's named object: never the removed-prefix sweeper's

            await().atMost(WAIT).until(() -> store.head(oldLeftover).isEmpty() && store.head(oldQuarantined).isEmpty());
            List<String> quarantine = store.list("cairn/rs2/quarantine/", null, 100).objects().stream().map(ObjectInfo::key).toList();
            assertThat(quarantine).as("the old leftover, quarantined in rs2's own quarantine under its time").singleElement()
                    .satisfies(k -> assertThat(k).endsWith("/buckets/5/1-l3ft"));
            for (String k : List.of(youngLeftover, oddKey, named.objectKey())) assertThat(store.head(k)).as(k).isPresent();
            StorageProcess leader = leaderOf(cluster, "rs1");
            await().atMost(WAIT).untilAsserted(() -> assertThat(leader.archiveRemovedPrefixSweepCounts().deleted()).isEqualTo(1));
            assertThat(leader.archiveRemovedPrefixSweepCounts().quarantined()).isEqualTo(1);
            assertThat(leader.archiveSweepCounts().quarantined() + leader.archiveSweepCounts().deleted()).as("rs1's own sweeper stays in rs1").isZero();
            assertServed(jedis, l);
        }
    }
}
