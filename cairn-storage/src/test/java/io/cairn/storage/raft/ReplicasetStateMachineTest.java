package io.cairn.storage.raft;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.StorageRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The storage state behind the replication port: apply, replay after a crash, checkpoint and restore. */
class ReplicasetStateMachineTest {
    private static final int BUCKET = 1;

    @TempDir
    Path dir;

    @Test
    void anEntryReplayedAfterACrashIsNotAppliedTwice() throws Exception {
        try (ReplicasetStateMachine sm = new ReplicasetStateMachine(dir.resolve("db"), 1 << 20, () -> 5_000)) {
            sm.apply(1, 1, entry(StorageRequest.bootstrap(1, 10)));
            sm.apply(2, 1, entry(incr("n")));
            // the engine replays from its snapshot, which is older than the database
            byte[] replayed = sm.apply(2, 1, entry(incr("n")));
            assertThat(replayed).isEmpty();
            assertThat(sm.appliedIndex()).isEqualTo(2);
            assertThat(read(sm, "n")).isEqualTo("1");
        }
    }

    @Test
    void aRestoredCheckpointReplacesTheStateWithTheOneAtItsIndex() throws Exception {
        Path checkpoint = dir.resolve("snapshots").resolve("3");
        Files.createDirectories(checkpoint);
        try (ReplicasetStateMachine leader = new ReplicasetStateMachine(dir.resolve("leader"), 1 << 20, () -> 5_000);
             ReplicasetStateMachine behind = new ReplicasetStateMachine(dir.resolve("behind"), 1 << 20, () -> 5_000)) {
            leader.apply(1, 1, entry(StorageRequest.bootstrap(1, 10)));
            leader.apply(2, 1, entry(set("k", "old")));
            leader.apply(3, 1, entry(set("k", "checkpointed")));
            List<Path> files = leader.checkpoint(checkpoint, 3);
            leader.apply(4, 1, entry(set("k", "after")));
            assertThat(files).isNotEmpty().allMatch(f -> !f.isAbsolute() && Files.exists(checkpoint.resolve(f)));

            behind.apply(1, 1, entry(StorageRequest.bootstrap(1, 10)));
            behind.restore(checkpoint, 3);

            assertThat(behind.appliedIndex()).isEqualTo(3);
            assertThat(read(behind, "k")).isEqualTo("checkpointed");
            assertThat(read(leader, "k")).as("the leader's own state is untouched").isEqualTo("after");
            behind.apply(4, 1, entry(set("k", "after")));
            assertThat(read(behind, "k")).isEqualTo("after");
        }
    }

    @Test
    void aCheckpointAtAnotherIndexThanTheEngineSaysIsRefused() throws Exception {
        Path checkpoint = dir.resolve("snapshots").resolve("2");
        Files.createDirectories(checkpoint);
        try (ReplicasetStateMachine sm = new ReplicasetStateMachine(dir.resolve("db"), 1 << 20, () -> 5_000)) {
            sm.apply(1, 1, entry(StorageRequest.bootstrap(1, 10)));
            sm.apply(2, 1, entry(set("k", "v")));
            sm.checkpoint(checkpoint, 2);
            assertThatThrownBy(() -> sm.restore(checkpoint, 7)).hasMessageContaining("is at index 2, not 7");
        }
    }

    @Test
    void aCheckpointTakenAfterMembershipEntriesSaysTheSnapshotIndexAndRestoresThere() throws Exception {
        // entries 3 and 4 changed the Raft membership: they never reach the state machine
        Path checkpoint = dir.resolve("snapshots").resolve("4");
        Files.createDirectories(checkpoint);
        try (ReplicasetStateMachine leader = new ReplicasetStateMachine(dir.resolve("leader"), 1 << 20, () -> 5_000);
             ReplicasetStateMachine learner = new ReplicasetStateMachine(dir.resolve("learner"), 1 << 20, () -> 5_000)) {
            leader.apply(1, 1, entry(StorageRequest.bootstrap(1, 10)));
            leader.apply(2, 1, entry(set("k", "v")));
            leader.checkpoint(checkpoint, 4);
            assertThat(leader.appliedIndex()).isEqualTo(4);

            learner.restore(checkpoint, 4);
            assertThat(learner.appliedIndex()).isEqualTo(4);
            assertThat(read(learner, "k")).isEqualTo("v");
        }
    }

    private static ByteBuffer entry(byte[] request) {
        return ByteBuffer.wrap(StorageRequest.stamp(request, 5_000));
    }

    private static byte[] set(String key, String value) {
        return StorageRequest.write(List.of(KvOp.set(BUCKET, utf8(key), utf8(value))));
    }

    private static byte[] incr(String key) {
        return StorageRequest.write(List.of(new KvOp(KvOp.Type.INCRBY, BUCKET, utf8(key), null, 1, 0)));
    }

    private static String read(ReplicasetStateMachine sm, String key) {
        byte[] reply = sm.query(ByteBuffer.wrap(StorageRequest.read(List.of(KvOp.get(BUCKET, utf8(key))))));
        OpResult result = OpCodec.decodeResults(ByteBuffer.wrap(reply)).get(0);
        return result.bytes() == null ? null : new String(result.bytes(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
