package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveCommand.*;
import io.cairn.core.move.MoveReply.Outcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.cairn.core.BucketRecord.*;
import static io.cairn.core.BucketState.*;
import static org.assertj.core.api.Assertions.assertThat;

/** The archive commands in {@link BucketLedger} ({@link ArchiveLedger}): each step, each refusal, and that no data is lost or resurrected. */
class ArchiveLedgerTest {
    private static final int B = 7;
    private static final long GEN = 3;
    private InMemoryReplicaset rs;

    @BeforeEach
    void setUp() {
        rs = new InMemoryReplicaset("rs1").bootstrap(B, GEN, 5);
    }

    private List<ChunkEntry> entries() {
        List<ChunkEntry> out = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> e : rs.keys(B).entrySet()) out.add(new ChunkEntry(e.getKey(), e.getValue()));
        return out;
    }

    private static ArchivePointer pointer(String key, long keys) {
        return new ArchivePointer(key, GEN, keys, 10 * keys, 100 + keys, "ab" + key.hashCode());
    }

    /** Archives B and returns the entries it held. */
    private List<ChunkEntry> archive(String objectKey) {
        List<ChunkEntry> held = entries();
        MoveReply began = rs.apply(new BeginArchive(B, GEN));
        assertThat(began.isOk()).as(began.message()).isTrue();
        MoveReply done = rs.apply(new FinishArchive(B, GEN, began.record().bsn(), pointer(objectKey, held.size()), ChunkEntry.checksum(held)));
        assertThat(done.isOk()).as(done.message()).isTrue();
        return held;
    }

    @Test
    void beginArchiveFlagsTheBucketAndKeepsItsStateGenerationAndData() {
        MoveReply r = rs.apply(new BeginArchive(B, GEN));
        assertThat(r.isOk()).isTrue();
        assertThat(r.record().state()).isEqualTo(ACTIVE);
        assertThat(r.record().generation()).isEqualTo(GEN);
        assertThat(r.record().has(FLAG_ARCHIVING)).isTrue();
        assertThat(rs.keys(B)).hasSize(5);
        long bsn = rs.bsn;
        assertThat(rs.apply(new BeginArchive(B, GEN)).isOk()).as("idempotent").isTrue();
        assertThat(rs.bsn).isEqualTo(bsn);
    }

    @Test
    void finishArchiveDropsTheLocalDataAndRecordsThePointer() {
        archive("rs1/buckets/7/3-aa");
        BucketRecord r = rs.record(B);
        assertThat(r.state()).isEqualTo(ACTIVE);
        assertThat(r.generation()).isEqualTo(GEN);
        assertThat(r.isArchived()).isTrue();
        assertThat(r.has(FLAG_ARCHIVING)).isFalse();
        assertThat(rs.keys(B)).isEmpty();
        assertThat(rs.archivePointer(B).objectKey()).isEqualTo("rs1/buckets/7/3-aa");
    }

    @Test
    void finishArchiveIsRefusedWhenTheRecordChangedSinceItBegan() {
        MoveReply began = rs.apply(new BeginArchive(B, GEN));
        rs.apply(new CancelArchive(B, GEN));
        rs.apply(new BeginArchive(B, GEN)); // a second try by another leader: a new BSN
        List<ChunkEntry> held = entries();
        MoveReply stale = rs.apply(new FinishArchive(B, GEN, began.record().bsn(), pointer("k", held.size()), ChunkEntry.checksum(held)));
        assertThat(stale.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.keys(B)).as("nothing dropped").hasSize(5);
        assertThat(rs.record(B).isArchived()).isFalse();
    }

    @Test
    void finishArchiveIsRefusedWhenTheCopyHereDiffersFromTheArchive() {
        MoveReply began = rs.apply(new BeginArchive(B, GEN));
        List<ChunkEntry> held = entries();
        MoveReply r = rs.apply(new FinishArchive(B, GEN, began.record().bsn(), pointer("k", held.size() - 1), ChunkEntry.checksum(held)));
        assertThat(r.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.keys(B)).hasSize(5);
        MoveReply badSum = rs.apply(new FinishArchive(B, GEN, began.record().bsn(), pointer("k", held.size()), ChunkEntry.checksum(held) + 1));
        assertThat(badSum.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.keys(B)).hasSize(5);
    }

    @Test
    void cancelArchiveServesWritesAgainAndIsIdempotent() {
        rs.apply(new BeginArchive(B, GEN));
        MoveReply r = rs.apply(new CancelArchive(B, GEN));
        assertThat(r.record().has(FLAG_ARCHIVING)).isFalse();
        long bsn = rs.bsn;
        assertThat(rs.apply(new CancelArchive(B, GEN)).isOk()).isTrue();
        assertThat(rs.bsn).isEqualTo(bsn);
    }

    @Test
    void aBucketBeingArchivedRefusesToMoveAndAnArchivedOneMovesOnlyAfterAStartSend() {
        rs.apply(new BeginArchive(B, GEN));
        assertThat(rs.apply(new StartSend(B, "rs2")).message()).contains("archived");
        assertThat(rs.apply(new StartCopy(B, "rs2")).outcome()).isEqualTo(Outcome.REFUSED);
        rs.apply(new CancelArchive(B, GEN));
        archive("k1");
        assertThat(rs.apply(new BeginArchive(B, GEN)).outcome()).isEqualTo(Outcome.REFUSED);
        MoveReply copy = rs.apply(new StartCopy(B, "rs2"));
        assertThat(copy.outcome()).as("nothing to copy ahead").isEqualTo(Outcome.REFUSED);
        assertThat(copy.record().isArchived()).as("the driver sees why, and sends StartSend").isTrue();
        MoveReply send = rs.apply(new StartSend(B, "rs2"));
        assertThat(send.isOk()).isTrue();
        assertThat(send.record().state()).isEqualTo(SENDING);
        assertThat(send.record().generation()).isEqualTo(GEN + 1);
        assertThat(send.record().isArchived()).as("it leaves as its object").isTrue();
        assertThat(rs.archivePointer(B).objectKey()).isEqualTo("k1");
    }

    @Test
    void aSendingArchivedBucketIsNotRestoredHere() {
        List<ChunkEntry> held = archive("k1");
        rs.apply(new StartSend(B, "rs2"));
        assertThat(rs.apply(new RestoreChunk(B, GEN + 1, 0, held)).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.apply(new FinishRestore(B, GEN + 1, held.size(), ChunkEntry.checksum(held))).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.keys(B)).isEmpty();
        assertThat(rs.record(B).isArchived()).isTrue();
    }

    @Test
    void adoptMakesACompleteArchivedCopyThatActivatesAsUsual() {
        InMemoryReplicaset dst = new InMemoryReplicaset("rs2");
        ArchivePointer p = pointer("rs2/buckets/7/3-aa", 5);
        MoveReply verdict = dst.apply(new AdoptArchive(B, "rs1", GEN + 1, p));
        assertThat(verdict.outcome()).isEqualTo(Outcome.COMPLETE);
        assertThat(verdict.record().state()).isEqualTo(RECEIVING);
        assertThat(verdict.record().isArchived()).isTrue();
        assertThat(dst.archivePointer(B)).isEqualTo(p);
        long bsn = dst.bsn;
        assertThat(dst.apply(new AdoptArchive(B, "rs1", GEN + 1, p)).outcome()).as("idempotent").isEqualTo(Outcome.COMPLETE);
        assertThat(dst.bsn).isEqualTo(bsn);
        assertThat(dst.apply(new FinishReceive(B, GEN + 1, 0, 0, false)).outcome()).as("a resumed driver's verdict").isEqualTo(Outcome.COMPLETE);
        MoveReply active = dst.apply(new Activate(B, GEN + 1));
        assertThat(active.isOk()).isTrue();
        assertThat(active.record().state()).isEqualTo(ACTIVE);
        assertThat(active.record().isArchived()).isTrue();
        ArchivePointer again = pointer("rs2/buckets/7/3-bb", 5);
        assertThat(dst.apply(new AdoptArchive(B, "rs1", GEN + 1, again)).outcome()).as("a repair records the new copy").isEqualTo(Outcome.COMPLETE);
        assertThat(dst.archivePointer(B)).isEqualTo(again);
    }

    @Test
    void adoptNeverReplacesAnOwnerANewerGenerationOrAFence() {
        ArchivePointer p = pointer("rs1/buckets/7/3-aa", 5);
        MoveReply overOwner = rs.apply(new AdoptArchive(B, "rs9", GEN + 1, p));
        assertThat(overOwner.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.keys(B)).as("the owner's data untouched").hasSize(5);
        assertThat(rs.apply(new AdoptArchive(B, "rs9", GEN - 1, p)).outcome()).as("stale").isEqualTo(Outcome.REFUSED);

        InMemoryReplicaset fenced = new InMemoryReplicaset("rs2");
        fenced.apply(new FinishReceive(B, GEN + 1, 0, 0, false));
        MoveReply late = fenced.apply(new AdoptArchive(B, "rs1", GEN + 1, p));
        assertThat(late.outcome()).isEqualTo(Outcome.ABORTED);
        assertThat(fenced.record(B).state()).isEqualTo(GARBAGE);
        assertThat(fenced.archivePointer(B)).isNull();
    }

    @Test
    void dropDataOfAnArchivedSentBucketForgetsItsPointerAndNamesTheObject() {
        archive("k1");
        rs.apply(new StartSend(B, "rs2"));
        rs.apply(new MarkSent(B, GEN + 1));
        MoveReply dropped = rs.apply(new DropData(B, GEN + 1));
        assertThat(dropped.isOk()).isTrue();
        assertThat(dropped.message()).isEqualTo("k1");
        assertThat(dropped.record().isArchived()).isFalse();
        assertThat(dropped.record().has(FLAG_DATA_DROPPED)).isTrue();
        assertThat(rs.archivePointer(B)).isNull();
        assertThat(rs.apply(new DropData(B, GEN + 1)).isOk()).as("idempotent").isTrue();
    }

    @Test
    void theDurableAnswerNeedsTheObjectOnlyForAnArchivedCopyAtThatGeneration() {
        BucketRecord receiving = new BucketRecord(B, RECEIVING, 4, 1, "rs1", FLAG_ARCHIVED);
        BucketRecord active = new BucketRecord(B, ACTIVE, 4, 1, "rs1", FLAG_ARCHIVED);
        BucketRecord live = new BucketRecord(B, ACTIVE, 4, 1, "rs1", 0);
        BucketRecord movedOn = new BucketRecord(B, SENT, 5, 1, "rs3", FLAG_DATA_DROPPED);
        BucketRecord fenced = new BucketRecord(B, GARBAGE, 4, 1, "rs1", FLAG_DATA_DROPPED);
        assertThat(ArchiveMoves.needsHead(receiving, 4)).isTrue();
        assertThat(ArchiveMoves.needsHead(active, 4)).isTrue();
        assertThat(ArchiveMoves.needsHead(live, 4)).isFalse();
        assertThat(ArchiveMoves.durability(active, 4, false)).isEqualTo(MovePort.Durability.MISSING);
        assertThat(ArchiveMoves.durability(receiving, 4, true)).isEqualTo(MovePort.Durability.DURABLE);
        assertThat(ArchiveMoves.durability(live, 4, false)).as("restored: on a Raft majority").isEqualTo(MovePort.Durability.DURABLE);
        assertThat(ArchiveMoves.durability(movedOn, 4, false)).isEqualTo(MovePort.Durability.DURABLE);
        assertThat(ArchiveMoves.durability(fenced, 4, true)).isEqualTo(MovePort.Durability.NOT_HELD);
        assertThat(ArchiveMoves.durability(null, 4, true)).isEqualTo(MovePort.Durability.NOT_HELD);
        assertThat(ArchiveMoves.durability(active, 5, true)).as("an older copy").isEqualTo(MovePort.Durability.NOT_HELD);
    }

    @Test
    void aCopiedAheadBucketIsNotArchived() {
        rs.apply(new StartCopy(B, "rs2"));
        assertThat(rs.apply(new BeginArchive(B, GEN)).outcome()).isEqualTo(Outcome.REFUSED);
    }

    @Test
    void restoreBringsBackEveryKeyAndKeepsThePointer() {
        List<ChunkEntry> held = archive("k1");
        assertThat(rs.apply(new RestoreChunk(B, GEN, 0, held.subList(0, 2))).isOk()).isTrue();
        assertThat(rs.apply(new RestoreChunk(B, GEN, 1, held.subList(2, 5))).isOk()).isTrue();
        assertThat(rs.apply(new RestoreChunk(B, GEN, 1, held.subList(2, 5))).isOk()).as("a re-sent chunk").isTrue();
        assertThat(rs.record(B).isArchived()).as("not served before the verdict").isTrue();
        MoveReply done = rs.apply(new FinishRestore(B, GEN, held.size(), ChunkEntry.checksum(held)));
        assertThat(done.isOk()).as(done.message()).isTrue();
        assertThat(rs.record(B).isArchived()).isFalse();
        assertThat(entries()).containsExactlyElementsOf(held);
        assertThat(rs.archivePointer(B).objectKey()).as("a restore never forgets the object").isEqualTo("k1");
        assertThat(rs.apply(new FinishRestore(B, GEN, held.size(), ChunkEntry.checksum(held))).isOk()).as("idempotent").isTrue();
    }

    @Test
    void aRestoreThatDoesNotAddUpStaysArchivedWithNothingLeftHere() {
        List<ChunkEntry> held = archive("k1");
        rs.apply(new RestoreChunk(B, GEN, 0, held.subList(0, 3)));
        MoveReply r = rs.apply(new FinishRestore(B, GEN, held.size(), ChunkEntry.checksum(held)));
        assertThat(r.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.record(B).isArchived()).isTrue();
        assertThat(rs.keys(B)).isEmpty();
    }

    @Test
    void chunkZeroOfASecondTryDropsTheLeftoversOfTheFirst() {
        List<ChunkEntry> held = archive("k1");
        rs.apply(new RestoreChunk(B, GEN, 0, held.subList(0, 4)));
        assertThat(rs.apply(new RestoreChunk(B, GEN, 3, held)).outcome()).isEqualTo(Outcome.GAP);
        rs.apply(new RestoreChunk(B, GEN, 0, held.subList(0, 1)));
        rs.apply(new RestoreChunk(B, GEN, 1, held.subList(1, 5)));
        assertThat(rs.apply(new FinishRestore(B, GEN, held.size(), ChunkEntry.checksum(held))).isOk()).isTrue();
        assertThat(entries()).containsExactlyElementsOf(held);
    }

    @Test
    void reArchivingAfterARestoreNamesTheReplacedObject() {
        List<ChunkEntry> held = archive("k1");
        rs.apply(new RestoreChunk(B, GEN, 0, held));
        rs.apply(new FinishRestore(B, GEN, held.size(), ChunkEntry.checksum(held)));
        rs.write(B, "new", "value");
        List<ChunkEntry> now = entries();
        MoveReply began = rs.apply(new BeginArchive(B, GEN));
        MoveReply done = rs.apply(new FinishArchive(B, GEN, began.record().bsn(), pointer("k2", now.size()), ChunkEntry.checksum(now)));
        assertThat(done.message()).as("the object the leader deletes after commit").isEqualTo("k1");
    }

    @Test
    void archiveCommandsSurviveTheCodec() {
        List<MoveCommand> all = List.of(new BeginArchive(B, GEN), new CancelArchive(B, GEN),
                new FinishArchive(B, GEN, 42, pointer("rs1/buckets/7/3-ff", 9), -5),
                new RestoreChunk(B, GEN, 2, List.of(new ChunkEntry(new byte[]{1}, new byte[]{2, 3}))),
                new FinishRestore(B, GEN, 9, 77));
        for (MoveCommand c : all) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            MoveCodec.encode(c, out);
            MoveCommand back = MoveCodec.decodeCommand(ByteBuffer.wrap(out.toByteArray()));
            if (c instanceof RestoreChunk rc) assertThat(((RestoreChunk) back).entries()).isEqualTo(rc.entries());
            else assertThat(back).isEqualTo(c);
        }
    }

    @Test
    void adoptBackupArchivesAnEmptyOwnedBucketKeepingItsStateAndGeneration() {
        rs.bootstrap(8, GEN, 0);
        ArchivePointer fromBackup = new ArchivePointer("rs1/buckets/8/9-cd", 9, 40, 400, 500, "cd"); // the backup's generation, not ours
        MoveReply r = rs.apply(new AdoptBackup(8, GEN, fromBackup));
        assertThat(r.isOk()).as(r.message()).isTrue();
        assertThat(r.record().state()).isEqualTo(ACTIVE);
        assertThat(r.record().generation()).isEqualTo(GEN);
        assertThat(r.record().isArchived()).isTrue();
        assertThat(rs.archivePointer(8)).isEqualTo(fromBackup);
        long bsn = rs.bsn;
        assertThat(rs.apply(new AdoptBackup(8, GEN, fromBackup)).isOk()).as("idempotent").isTrue();
        assertThat(rs.bsn).isEqualTo(bsn);
        assertThat(rs.write(8, "k", "v")).as("an adopted bucket serves nothing until restored").isFalse();
    }

    @Test
    void adoptBackupIsRefusedOverDataAnArchiveOrAnotherGenerationAndChangesNothing() {
        ArchivePointer fromBackup = new ArchivePointer("rs1/buckets/7/9-cd", 9, 40, 400, 500, "cd");
        MoveReply overData = rs.apply(new AdoptBackup(B, GEN, fromBackup));
        assertThat(overData.isOk()).isFalse();
        assertThat(overData.message()).contains("holds 5 keys");
        assertThat(rs.keys(B)).hasSize(5);
        assertThat(rs.record(B).isArchived()).isFalse();

        rs.bootstrap(8, GEN, 0);
        assertThat(rs.apply(new AdoptBackup(8, GEN + 1, fromBackup)).isOk()).as("another generation").isFalse();
        assertThat(rs.apply(new AdoptBackup(9, GEN, fromBackup)).isOk()).as("a bucket not held here").isFalse();

        archive("rs1/buckets/7/3-aa");
        MoveReply overArchive = rs.apply(new AdoptBackup(B, GEN, fromBackup));
        assertThat(overArchive.isOk()).isFalse();
        assertThat(rs.archivePointer(B).objectKey()).isEqualTo("rs1/buckets/7/3-aa");
    }

    @Test
    void adoptRestoredRebuildsABucketAWipedReplicasetHoldsNoRecordOfAtTheBackupsGeneration() {
        ArchivePointer fromBackup = new ArchivePointer("rs1/buckets/9/2-cd", 2, 40, 400, 500, "cd");
        MoveReply r = rs.apply(new AdoptRestored(9, 2, fromBackup));
        assertThat(r.isOk()).as(r.message()).isTrue();
        assertThat(r.record().state()).isEqualTo(ACTIVE);
        assertThat(r.record().generation()).as("the backup's generation: a newer owner elsewhere outranks it").isEqualTo(2);
        assertThat(r.record().isArchived()).isTrue();
        assertThat(rs.archivePointer(9)).isEqualTo(fromBackup);
        assertThat(rs.write(9, "k", "v")).as("it serves nothing until restored").isFalse();
        long bsn = rs.bsn;
        assertThat(rs.apply(new AdoptRestored(9, 2, fromBackup)).isOk()).as("idempotent").isTrue();
        assertThat(rs.bsn).isEqualTo(bsn);

        // moved away since the backup: the doubled-bucket check contains it, archived as it is
        MoveReply contained = rs.apply(new Contain(9, 2, "rs2"));
        assertThat(contained.isOk()).as(contained.message()).isTrue();
        assertThat(contained.record().isContainedDouble()).isTrue();
        assertThat(rs.apply(new AdoptRestored(9, 2, fromBackup)).isOk()).as("re-sent after the containment: nothing changes").isTrue();
        assertThat(rs.record(9).isContainedDouble()).isTrue();
    }

    @Test
    void adoptRestoredIsRefusedOverAnyRecordAndChangesNothing() {
        ArchivePointer fromBackup = new ArchivePointer("rs1/buckets/7/2-cd", 2, 40, 400, 500, "cd");
        MoveReply overOwned = rs.apply(new AdoptRestored(B, 2, fromBackup));
        assertThat(overOwned.isOk()).isFalse();
        assertThat(overOwned.message()).contains("no record");
        assertThat(rs.keys(B)).hasSize(5);
        assertThat(rs.archivePointer(B)).isNull();

        assertThat(rs.apply(new StartSend(B, "rs2")).isOk()).isTrue();
        assertThat(rs.apply(new AdoptRestored(B, GEN + 1, fromBackup)).isOk()).as("a bucket leaving").isFalse();
        assertThat(rs.record(B).state()).isEqualTo(SENDING);
    }
}
