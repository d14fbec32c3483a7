package io.cairn.storage.raft;

import io.cairn.core.BucketRecord;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.move.ArchivePointer;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.state.ArchivedAccess;
import io.cairn.storage.state.MoveQueries;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a replica answers for a bucket being archived or archived, through the real RocksDB state:
 * the error codes, the restore hook, a checkpoint keeping the record and pointer, FLUSHALL forgetting.
 */
class ArchivedBucketStateTest {
    private static final int BUCKET = 3;
    @TempDir
    Path dir;
    private long index;

    private byte[] apply(ReplicasetStateMachine sm, byte[] request) {
        return sm.apply(++index, 1, ByteBuffer.wrap(StorageRequest.stamp(request, 5_000)));
    }

    private MoveReply move(ReplicasetStateMachine sm, MoveCommand c) {
        return MoveCodec.decodeReply(ByteBuffer.wrap(apply(sm, StorageRequest.move(c))));
    }

    private OpResult write(ReplicasetStateMachine sm, String key, String value) {
        return OpCodec.decodeResults(ByteBuffer.wrap(apply(sm, StorageRequest.write(List.of(KvOp.set(BUCKET, utf8(key), utf8(value))))))).get(0);
    }

    private static OpResult read(ReplicasetStateMachine sm, String key) {
        byte[] reply = sm.query(ByteBuffer.wrap(StorageRequest.read(List.of(KvOp.get(BUCKET, utf8(key))))));
        return OpCodec.decodeResults(ByteBuffer.wrap(reply)).get(0);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Archives BUCKET as the leader would (the object itself is not needed to check the replicated state). */
    private ArchivePointer archive(ReplicasetStateMachine sm) {
        MoveReply began = move(sm, new MoveCommand.BeginArchive(BUCKET, 1));
        assertThat(began.isOk()).as(began.message()).isTrue();
        MoveQuery.BucketDigest d = MoveQueries.digest(BUCKET, sm.state());
        ArchivePointer p = new ArchivePointer("cairn/rs1/buckets/3/1-aa", 1, d.keyCount(), 10, 100, "aa");
        MoveReply done = move(sm, new MoveCommand.FinishArchive(BUCKET, 1, began.record().bsn(), p, d.checksum()));
        assertThat(done.isOk()).as(done.message()).isTrue();
        return p;
    }

    private ReplicasetStateMachine loaded(String name) throws Exception {
        ReplicasetStateMachine sm = new ReplicasetStateMachine(dir.resolve(name), 1 << 20, () -> 5_000);
        apply(sm, StorageRequest.bootstrap(1, 10));
        for (int i = 0; i < 5; i++) assertThat(write(sm, "k" + i, "v" + i).isError()).isFalse();
        return sm;
    }

    @Test
    void whileABucketIsArchivedWritesAreHeldAndReadsServed() throws Exception {
        try (ReplicasetStateMachine sm = loaded("db")) {
            move(sm, new MoveCommand.BeginArchive(BUCKET, 1));
            assertThat(write(sm, "k0", "new").error()).isEqualTo(ErrorCode.BUCKET_LOCKED);
            assertThat(read(sm, "k0").bytes()).isEqualTo(utf8("v0"));
            move(sm, new MoveCommand.CancelArchive(BUCKET, 1));
            assertThat(write(sm, "k0", "new").isError()).isFalse();
        }
    }

    @Test
    void anArchivedBucketAsksForARestoreAndAnswersByWhatTheLeaderSays() throws Exception {
        try (ReplicasetStateMachine sm = loaded("db")) {
            archive(sm);
            assertThat(sm.state().store().countKeys(BUCKET)).isZero();
            assertThat(read(sm, "k0").error()).as("a follower sends the router to the leader").isEqualTo(ErrorCode.STALE_READ);
            List<Integer> asked = new ArrayList<>();
            sm.onArchivedAccess(b -> {
                asked.add(b);
                return ArchivedAccess.Admission.QUEUED;
            });
            assertThat(read(sm, "k0").error()).isEqualTo(ErrorCode.BUCKET_RESTORING);
            assertThat(write(sm, "k0", "x").error()).isEqualTo(ErrorCode.BUCKET_RESTORING);
            assertThat(asked).containsExactly(BUCKET, BUCKET);
            sm.onArchivedAccess(b -> ArchivedAccess.Admission.QUEUE_FULL);
            assertThat(read(sm, "k0").error()).isEqualTo(ErrorCode.RESTORE_QUEUE_FULL);
            assertThat(write(sm, "k0", "x").error()).as("decided in the apply: the same on every replica").isEqualTo(ErrorCode.BUCKET_RESTORING);
        }
    }

    @Test
    void aCheckpointKeepsTheArchivedRecordItsPointerAndTheRestoreHook() throws Exception {
        Path checkpoint = dir.resolve("snapshots").resolve("x");
        Files.createDirectories(checkpoint.getParent());
        try (ReplicasetStateMachine leader = loaded("leader");
             ReplicasetStateMachine behind = new ReplicasetStateMachine(dir.resolve("behind"), 1 << 20, () -> 5_000)) {
            ArchivePointer p = archive(leader);
            leader.checkpoint(checkpoint, index);
            List<Integer> asked = new ArrayList<>();
            behind.onArchivedAccess(b -> {
                asked.add(b);
                return ArchivedAccess.Admission.QUEUED;
            });
            behind.restore(checkpoint, index);
            assertThat(behind.state().record(BUCKET).isArchived()).isTrue();
            assertThat(behind.state().archivePointer(BUCKET)).isEqualTo(p);
            assertThat(read(behind, "k1").error()).isEqualTo(ErrorCode.BUCKET_RESTORING);
            assertThat(asked).containsExactly(BUCKET);
        }
    }

    @Test
    void flushAllEmptiesAnArchivedBucketForGood() throws Exception {
        try (ReplicasetStateMachine sm = loaded("db")) {
            ArchivePointer p = archive(sm);
            List<String> released = new ArrayList<>();
            sm.onArchivedAccess(new ArchivedAccess() {
                @Override
                public Admission requested(int bucket) {
                    return Admission.QUEUED;
                }

                @Override
                public void released(int bucket, String objectKey) {
                    released.add(bucket + " " + objectKey);
                }
            });
            apply(sm, StorageRequest.ref(77, 60_000));
            apply(sm, StorageRequest.flush(77));
            BucketRecord r = sm.state().record(BUCKET);
            assertThat(r.isArchived()).isFalse();
            assertThat(read(sm, "k0").isError()).isFalse();
            assertThat(read(sm, "k0").bytes()).as("never restored: no resurrection").isNull();
            assertThat(move(sm, new MoveCommand.RestoreChunk(BUCKET, 1, 0, List.of())).outcome()).isEqualTo(MoveReply.Outcome.REFUSED);
            assertThat(released).as("the object is deleted directly, never restored").containsExactly(BUCKET + " " + p.objectKey());
            assertThat(sm.state().archivePointer(BUCKET)).as("and forgotten").isNull();
        }
    }

    /** The mover's question before a server-side copy or a durable check: the record and pointer, through the real query path. */
    @Test
    void anArchiveOfQueryAnswersTheRecordAndPointerAndASendingArchivedBucketKeepsBoth() throws Exception {
        try (ReplicasetStateMachine sm = loaded("db")) {
            ArchivePointer p = archive(sm);
            MoveReply sending = move(sm, new MoveCommand.StartSend(BUCKET, "rs2"));
            assertThat(sending.isOk()).as(sending.message()).isTrue();
            byte[] answer = sm.query(ByteBuffer.wrap(StorageRequest.moveQuery(new MoveQuery.ArchiveOf(BUCKET))));
            MoveQuery.ArchiveState state = MoveCodec.decodeArchiveState(ByteBuffer.wrap(answer));
            assertThat(state.record().state()).isEqualTo(io.cairn.core.BucketState.SENDING);
            assertThat(state.record().isArchived()).isTrue();
            assertThat(state.pointer()).isEqualTo(p);
            assertThat(read(sm, "k0").isError()).as("a SENDING archived bucket serves nothing").isTrue();
            assertThat(move(sm, new MoveCommand.MarkSent(BUCKET, 2)).isOk()).isTrue();
            MoveReply dropped = move(sm, new MoveCommand.DropData(BUCKET, 2));
            assertThat(dropped.message()).isEqualTo(p.objectKey());
            assertThat(sm.state().archivePointer(BUCKET)).isNull();
        }
    }

    @Test
    void aBucketAdoptedArchivedStaysOnTheEagerRestoreListAcrossARestartAndASnapshotUntilRestored() throws Exception {
        int empty = 4; // bootstrapped, never written
        ArchivePointer fromBackup = new ArchivePointer("cairn/rs1/buckets/4/7-bb", 7, 0, 0, 60, "bb");
        Path checkpoint = dir.resolve("snapshots").resolve("y");
        Files.createDirectories(checkpoint.getParent());
        try (ReplicasetStateMachine sm = loaded("db")) {
            archive(sm); // archived idle: owes no eager restore
            MoveReply adopted = move(sm, new MoveCommand.AdoptBackup(empty, 1, fromBackup));
            assertThat(adopted.isOk()).as(adopted.message()).isTrue();
            assertThat(sm.state().adoptedArchived()).containsExactly(empty);
            sm.checkpoint(checkpoint, index);
        }
        try (ReplicasetStateMachine restarted = new ReplicasetStateMachine(dir.resolve("db"), 1 << 20, () -> 5_000);
             ReplicasetStateMachine fromSnapshot = new ReplicasetStateMachine(dir.resolve("other"), 1 << 20, () -> 5_000)) {
            assertThat(restarted.state().adoptedArchived()).as("after a restart").containsExactly(empty);
            fromSnapshot.restore(checkpoint, index);
            assertThat(fromSnapshot.state().adoptedArchived()).as("after installing a snapshot").containsExactly(empty);

            assertThat(move(restarted, new MoveCommand.RestoreChunk(empty, 1, 0, List.of())).isOk()).isTrue();
            MoveReply served = move(restarted, new MoveCommand.FinishRestore(empty, 1, 0, 0));
            assertThat(served.isOk()).as(served.message()).isTrue();
            assertThat(restarted.state().adoptedArchived()).as("restored: nothing owed").isEmpty();
        }
        try (ReplicasetStateMachine again = new ReplicasetStateMachine(dir.resolve("db"), 1 << 20, () -> 5_000)) {
            assertThat(again.state().adoptedArchived()).isEmpty();
        }
    }

    @Test
    void aBucketRebuiltFromABackupIsMarkedUntilItsRestoreAndNeverOverARecord() throws Exception {
        int lost = 42; // not bootstrapped here: as on a replicaset that lost its disk
        ArchivePointer fromBackup = new ArchivePointer("cairn/rs1/buckets/42/2-cc", 2, 0, 0, 60, "cc");
        try (ReplicasetStateMachine sm = loaded("db")) {
            MoveReply over = move(sm, new MoveCommand.AdoptRestored(BUCKET, 1, new ArchivePointer("cairn/rs1/buckets/3/1-cc", 1, 0, 0, 60, "cc")));
            assertThat(over.isOk()).as("a bucket this replicaset holds").isFalse();
            assertThat(sm.state().rebuiltFromBackup(BUCKET)).isFalse();
            assertThat(read(sm, "k1").bytes()).isEqualTo(utf8("v1"));

            MoveReply rebuilt = move(sm, new MoveCommand.AdoptRestored(lost, 2, fromBackup));
            assertThat(rebuilt.isOk()).as(rebuilt.message()).isTrue();
            assertThat(sm.state().rebuiltFromBackup(lost)).isTrue();
            assertThat(sm.state().adoptedArchived()).as("never restored eagerly: it may have moved away since").isEmpty();
            assertThat(move(sm, new MoveCommand.RestoreChunk(lost, 2, 0, List.of())).isOk()).isTrue();
            assertThat(move(sm, new MoveCommand.FinishRestore(lost, 2, 0, 0)).isOk()).isTrue();
            assertThat(sm.state().rebuiltFromBackup(lost)).as("restored after the check confirmed it").isFalse();
        }
    }
}
