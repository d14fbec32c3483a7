package io.cairn.server;

import io.cairn.archive.ObjectStore;
import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.ArchivePointer;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveReply;
import io.cairn.rebalancer.ArchiveMoveIo;
import io.cairn.server.ArchiveScenarios.Loaded;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.util.Map;

import static io.cairn.server.ArchiveScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Moves of archived buckets by server-side copy on a real local cluster with the folder store
 * (issue 23): no bucket data through any node, the source's object deleted only after the
 * destination's was found durable, and an object deleted behind the destination's back caught by
 * that check before anything is dropped.
 */
class ArchiveMoveLiveTest {
    private static final int BUCKETS = 64;

    @TempDir
    Path dir;

    private LocalCluster start(int replicas) throws Exception {
        return start(replicas, Map.of());
    }

    private LocalCluster start(int replicas, Map<String, Object> archive) throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, replicas, BUCKETS, Map.of("rebalancer", Map.of("auto", false), "archive", archive));
        LocalCluster cluster = new LocalCluster(config).start();
        assertThat(cluster.awaitReady(WAIT)).isTrue();
        return cluster;
    }

    static String owner(LocalCluster cluster, int bucket) {
        return cluster.router().router().ownerOf(bucket);
    }

    /** Object bytes read and written by every storage process's store (a server-side copy moves none). */
    static long storeBytes(LocalCluster cluster) {
        long sum = 0;
        for (String id : cluster.nodes().keySet()) {
            StorageProcess p = cluster.storage(id);
            if (p != null) sum += p.archiveStore().bytesRead() + p.archiveStore().bytesWritten();
        }
        return sum;
    }

    static long keysMoved(LocalCluster cluster) {
        return cluster.coordinator().mover().progress().get("keysMoved") instanceof Number n ? n.longValue() : -1;
    }

    /** Its key under {@code to}'s prefix, as the copy names it. */
    static String copiedKey(ArchivePointer p, String from, String to) {
        return p.objectKey().replace("cairn/" + from + "/", "cairn/" + to + "/");
    }

    /** Every member of {@code to} holds the bucket ACTIVE and archived; every member of {@code from} SENT with nothing left. */
    static void awaitMovedArchived(LocalCluster cluster, int bucket, String from, String to) {
        for (StorageProcess m : members(cluster, to)) {
            await().atMost(WAIT).untilAsserted(() -> {
                BucketRecord r = record(m, bucket);
                assertThat(r).as(m.node().id()).isNotNull();
                assertThat(r.state()).isEqualTo(BucketState.ACTIVE);
                assertThat(r.isArchived()).isTrue();
            });
        }
        for (StorageProcess m : members(cluster, from)) {
            await().atMost(WAIT).untilAsserted(() -> {
                BucketRecord r = record(m, bucket);
                assertThat(r).as(m.node().id()).isNotNull();
                assertThat(r.state()).as(m.node().id()).isEqualTo(BucketState.SENT);
                assertThat(r.has(BucketRecord.FLAG_DATA_DROPPED)).isTrue();
                assertThat(r.isArchived()).isFalse();
            });
        }
    }

    @Test
    void anArchivedBucketMovesByServerSideCopyWithNoBucketBytesThroughAnyNode() throws Exception {
        try (LocalCluster cluster = start(3)) {
            moveByServerSideCopy(cluster);
        }
    }

    /**
     * {@code archive.eagerRestore: true}: the new owner restores a bucket it adopted archived in the
     * background, with no request for it (lazily, nothing would restore it: the first test's owner
     * restores only on access); the move itself still sends no bucket bytes through any node.
     */
    @Test
    void aBucketAdoptedArchivedIsRestoredInTheBackgroundWhenEagerRestoreIsOn() throws Exception {
        try (LocalCluster cluster = start(3, Map.of("eagerRestore", true)); Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "eager", 1_000);
            String from = owner(cluster, l.bucket());
            String to = from.equals("rs1") ? "rs2" : "rs1";
            archiveAndCheck(cluster, from, l);
            long keysBefore = keysMoved(cluster);

            assertThat(cluster.coordinator().mover().requestMove(l.bucket(), to)).isTrue();
            for (StorageProcess m : members(cluster, to)) { // restored on every member, no client having asked
                await().atMost(WAIT).untilAsserted(() -> {
                    BucketRecord r = record(m, l.bucket());
                    assertThat(r).as(m.node().id()).isNotNull();
                    assertThat(r.state()).isEqualTo(BucketState.ACTIVE);
                    assertThat(r.isArchived()).as("restored on " + m.node().id()).isFalse();
                });
            }
            StorageProcess newOwner = leaderOf(cluster, to);
            assertThat(newOwner.archives().counts().restored()).as("restored by the new owner's leader").isEqualTo(1);
            assertThat(newOwner.archives().eagerRestoresPending()).as("nothing left to restore").isEmpty();
            assertThat(keysMoved(cluster) - keysBefore).as("keys streamed by the move").isZero();
            assertThat(cluster.coordinator().mover().archiveCounts().bytesRead()).as("object bytes through the coordinator").isZero();
            assertServed(jedis, l);
            assertThat(newOwner.archives().counts().restored()).as("the reads found it restored").isEqualTo(1);
        }
    }

    /**
     * The scenario on any store: a bucket archived on its owner moved to the other replicaset by a
     * manual move; no object bytes through storage nodes or the coordinator, no key streamed, the
     * source's object deleted last, every key served by the new owner (which restores it).
     */
    static void moveByServerSideCopy(LocalCluster cluster) {
        try (Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "travel", 2_000);
            String from = owner(cluster, l.bucket());
            String to = from.equals("rs1") ? "rs2" : "rs1";
            ArchivePointer p = archiveAndCheck(cluster, from, l);
            long bytesBefore = storeBytes(cluster);
            long keysBefore = keysMoved(cluster);
            ObjectStore store = leaderOf(cluster, from).archiveStore();

            long startNs = System.nanoTime();
            assertThat(cluster.coordinator().mover().requestMove(l.bucket(), to)).isTrue();
            awaitMovedArchived(cluster, l.bucket(), from, to);
            await().atMost(WAIT).until(() -> store.head(p.objectKey()).isEmpty()); // the source's object, deleted after the durable check
            long moveMs = (System.nanoTime() - startNs) / 1_000_000;

            assertThat(store.head(copiedKey(p, from, to))).as("the copy in the destination's prefix").isPresent();
            assertThat(storeBytes(cluster) - bytesBefore).as("object bytes through the storage nodes during the move").isZero();
            ArchiveMoveIo.Counts io = cluster.coordinator().mover().archiveCounts();
            assertThat(io.bytesRead() + io.bytesWritten()).as("object bytes through the coordinator").isZero();
            assertThat(io.copies()).isEqualTo(1);
            assertThat(io.durableChecks()).isGreaterThanOrEqualTo(1);
            assertThat(io.deletes()).isEqualTo(1);
            assertThat(keysMoved(cluster) - keysBefore).as("keys streamed by the move").isZero();
            System.out.printf("archived move of bucket %d (%d keys, %d bytes of data, %d-byte object): %d ms, 0 bucket bytes through nodes%n",
                    l.bucket(), p.keyCount(), p.byteCount(), p.sizeBytes(), moveMs);

            // The new owner restores it on first access, from its own copy; every key as written.
            assertServed(jedis, l);
            StorageProcess newOwner = leaderOf(cluster, to);
            assertThat(newOwner.archives().counts().restored()).isEqualTo(1);
            assertThat(record(newOwner, l.bucket()).isArchived()).isFalse();
            assertThat(jedis.set("{travel}after", "moved")).isEqualTo("OK");
            assertThat(jedis.get("{travel}after")).isEqualTo("moved");
        }
    }

    /**
     * The source's leader stops right after StartSend, before any copy (a move whose driver and
     * source leader are both gone at that moment): the rebalancer's recovery finds the SENDING archived
     * record under the new leader, copies, adopts and finishes; every key reads back from the new owner.
     */
    @Test
    void aMoveWhoseSourceLeaderStopsAfterStartSendIsFinishedByRecovery() throws Exception {
        try (LocalCluster cluster = start(3); Jedis jedis = TestClusters.jedis(cluster);
             MoveFaultSupport.Records records = new MoveFaultSupport.Records(cluster.config().topology())) {
            Loaded l = load(jedis, cluster, "failover", 300);
            String from = owner(cluster, l.bucket());
            String to = from.equals("rs1") ? "rs2" : "rs1";
            ArchivePointer p = archiveAndCheck(cluster, from, l);
            ObjectStore store = leaderOf(cluster, from).archiveStore();
            assertThat(records.submit(from, new MoveCommand.StartSend(l.bucket(), to)).isOk()).isTrue();
            String oldLeader = leaderOf(cluster, from).node().id();
            cluster.stopNode(oldLeader);

            for (StorageProcess m : members(cluster, to)) {
                await().atMost(WAIT).untilAsserted(() -> {
                    BucketRecord r = record(m, l.bucket());
                    assertThat(r).as("not there yet").isNotNull();
                    assertThat(r.state()).isEqualTo(BucketState.ACTIVE);
                    assertThat(r.isArchived()).isTrue();
                });
            }
            await().atMost(WAIT).until(() -> store.head(p.objectKey()).isEmpty());
            assertThat(store.head(copiedKey(p, from, to))).isPresent();
            assertServed(jedis, l);
            cluster.startNode(oldLeader);
            StorageProcess back = cluster.storage(oldLeader);
            await().atMost(WAIT).untilAsserted(() -> {
                BucketRecord r = back == null ? null : record(back, l.bucket());
                assertThat(r).as("not caught up yet").isNotNull();
                assertThat(r.state()).as("the restarted member learns the move").isEqualTo(BucketState.SENT);
                assertThat(r.has(BucketRecord.FLAG_DATA_DROPPED)).isTrue();
            });
        }
    }

    /**
     * The hand-over done step by step up to the destination's activation, then the destination's object
     * deleted in the store behind its back: the rebalancer's recovery asks the destination for its
     * durable answer before the source drops anything, finds the object missing, copies it again from
     * the source's (still there), and only then drops the source's. Every key reads back.
     */
    @Test
    void anObjectDeletedBehindTheDestinationsBackMidMoveIsCaughtAndNothingIsLost() throws Exception {
        try (LocalCluster cluster = start(1); Jedis jedis = TestClusters.jedis(cluster);
             MoveFaultSupport.Records records = new MoveFaultSupport.Records(cluster.config().topology())) {
            Loaded l = load(jedis, cluster, "lost", 500);
            String from = owner(cluster, l.bucket());
            String to = from.equals("rs1") ? "rs2" : "rs1";
            ArchivePointer p = archiveAndCheck(cluster, from, l);
            ObjectStore store = leaderOf(cluster, from).archiveStore();

            MoveReply sending = records.submit(from, new MoveCommand.StartSend(l.bucket(), to));
            assertThat(sending.isOk()).as(sending.message()).isTrue();
            long generation = sending.record().generation();
            String copied = copiedKey(p, from, to);
            store.copy(p.objectKey(), copied); // what the mover's copy does
            ArchivePointer there = new ArchivePointer(copied, p.generation(), p.keyCount(), p.byteCount(), p.sizeBytes(), p.contentHash());
            assertThat(records.submit(to, new MoveCommand.AdoptArchive(l.bucket(), from, generation, there)).outcome())
                    .isEqualTo(MoveReply.Outcome.COMPLETE);
            assertThat(records.submit(from, new MoveCommand.MarkSent(l.bucket(), generation)).isOk()).isTrue();
            assertThat(records.submit(to, new MoveCommand.Activate(l.bucket(), generation)).isOk()).isTrue();
            store.delete(copied); // behind the destination's back

            // The source SENT with its object: the rebalancer's next round resumes the move.
            awaitMovedArchived(cluster, l.bucket(), from, to);
            await().atMost(WAIT).until(() -> store.head(p.objectKey()).isEmpty());
            ArchiveMoveIo.Counts io = cluster.coordinator().mover().archiveCounts();
            assertThat(io.missingObjects()).as("the durable check found it missing").isGreaterThanOrEqualTo(1);
            assertThat(io.copies()).as("and it was copied again").isGreaterThanOrEqualTo(1);
            assertThat(store.head(copied)).isPresent();
            assertServed(jedis, l);
        }
    }
}
