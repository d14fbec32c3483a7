package io.cairn.storage.state;

import io.cairn.core.BucketState;
import io.cairn.core.kv.StoredValue;
import io.cairn.core.move.BucketLedger;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.StorageRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** MOVE_BATCH applies its commands in order, each exactly as its own MOVE entry would, with one reply each. */
class MoveBatchTest {
    @TempDir
    Path dir;

    @Test
    void aBatchGivesTheSameRecordsAndRepliesAsOneEntryPerCommand() throws Exception {
        List<MoveCommand> commands = List.of(
                new MoveCommand.StartSend(3, "rs2"),
                new MoveCommand.StartSend(4, "rs2"),
                new MoveCommand.MarkSent(3, 2),
                new MoveCommand.StartSend(3, "rs2"), // refused: already SENT
                new MoveCommand.DropData(3, 2),
                new MoveCommand.RollbackSend(4, 2));
        try (ReplicaUnderTest batched = new ReplicaUnderTest(dir.resolve("batched"));
             ReplicaUnderTest single = new ReplicaUnderTest(dir.resolve("single"))) {
            List<MoveReply> replies = applyBothWays(commands, batched, single);
            assertThat(replies.get(3).outcome()).isEqualTo(MoveReply.Outcome.REFUSED);
            for (int bucket = 1; bucket <= 10; bucket++) {
                assertThat(batched.state.record(bucket)).as("bucket %d", bucket).isEqualTo(single.state.record(bucket));
            }
            assertThat(batched.state.record(3).state()).isEqualTo(BucketState.SENT);
            assertThat(batched.state.record(4).state()).isEqualTo(BucketState.ACTIVE);
            assertThat(batched.state.stats().lastBsn()).isEqualTo(single.state.stats().lastBsn());
        }
    }

    @Test
    void chunksOfSeveralBucketsAndADropAfterWritesShareOneEntry() throws Exception {
        ChunkEntry k1 = new ChunkEntry(bytes("k1"), StoredValue.encode(bytes("v"), 0));
        ChunkEntry k2 = new ChunkEntry(bytes("k2"), StoredValue.encode(bytes("v"), 0));
        List<MoveCommand> commands = List.of(
                new MoveCommand.ReceiveChunk(42, "rs2", 5, 0, List.of(k1, k2)),
                new MoveCommand.ReceiveChunk(43, "rs2", 5, 0, List.of(k1)),
                new MoveCommand.ReceiveChunk(44, "rs2", 5, 0, List.of(k1, k2)),
                new MoveCommand.AbortReceive(44, 5)); // drops what this very entry wrote
        try (ReplicaUnderTest batched = new ReplicaUnderTest(dir.resolve("batched"));
             ReplicaUnderTest single = new ReplicaUnderTest(dir.resolve("single"))) {
            List<MoveReply> replies = applyBothWays(commands, batched, single);
            assertThat(replies).allSatisfy(r -> assertThat(r.outcome()).isIn(MoveReply.Outcome.OK, MoveReply.Outcome.ABORTED));
            assertThat(batched.state.keyCount()).as("3 keys received, 2 dropped again").isEqualTo(3).isEqualTo(single.state.keyCount());
            assertThat(batched.store.countKeys(44)).isZero();
            assertThat(batched.store.countKeys(42)).isEqualTo(2);
        }
    }

    @Test
    void laterCommandsOfAnEntrySeeTheReceiveProgressOfEarlierOnes() throws Exception {
        ChunkEntry k1 = new ChunkEntry(bytes("k1"), StoredValue.encode(bytes("v"), 0));
        ChunkEntry k2 = new ChunkEntry(bytes("k2"), StoredValue.encode(bytes("v"), 0));
        ChunkEntry k3 = new ChunkEntry(bytes("k3"), StoredValue.encode(bytes("v"), 0));
        List<MoveCommand> commands = List.of(
                new MoveCommand.ReceiveChunk(42, "rs2", 5, 0, List.of(k1)),
                new MoveCommand.ReceiveChunk(42, "rs2", 5, 1, List.of(k2)),
                new MoveCommand.ReceiveLastChunk(42, "rs2", 5, 2, List.of(k3), 3, k1.crc() + k2.crc() + k3.crc(), false),
                new MoveCommand.Activate(42, 5));
        try (ReplicaUnderTest batched = new ReplicaUnderTest(dir.resolve("batched"));
             ReplicaUnderTest single = new ReplicaUnderTest(dir.resolve("single"))) {
            List<MoveReply> replies = applyBothWays(commands, batched, single);
            assertThat(replies).extracting(MoveReply::outcome)
                    .containsExactly(MoveReply.Outcome.OK, MoveReply.Outcome.OK, MoveReply.Outcome.COMPLETE, MoveReply.Outcome.OK);
            assertThat(batched.state.record(42).state()).isEqualTo(BucketState.ACTIVE);
            assertThat(batched.store.countKeys(42)).isEqualTo(3);
        }
    }

    /** Applies {@code commands} as one MOVE_BATCH entry on {@code batched} and one entry each on {@code single}; same replies. */
    private static List<MoveReply> applyBothWays(List<MoveCommand> commands, ReplicaUnderTest batched, ReplicaUnderTest single) {
        batched.apply(StorageRequest.bootstrap(1, 10), 1_000);
        single.apply(StorageRequest.bootstrap(1, 10), 1_000);
        List<MoveReply> replies = StorageRequest.decodeMoveBatchReplies(ByteBuffer.wrap(batched.apply(StorageRequest.moveBatch(commands), 2_000)));
        assertThat(replies).isEqualTo(commands.stream().map(c -> single.move(c, 2_000)).toList());
        return replies;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void aStartSendInABatchStillWaitsForMapReduceRefs() throws Exception {
        try (ReplicaUnderTest replica = new ReplicaUnderTest(dir.resolve("db"))) {
            replica.apply(StorageRequest.bootstrap(1, 10), 1_000);
            assertThat(replica.result(StorageRequest.ref(7, 10_000), 1_500).isError()).isFalse();
            List<MoveReply> replies = StorageRequest.decodeMoveBatchReplies(ByteBuffer.wrap(
                    replica.apply(StorageRequest.moveBatch(List.of(new MoveCommand.StartSend(3, "rs2"))), 2_000)));
            assertThat(replies).singleElement().satisfies(r -> assertThat(r.message()).isEqualTo(BucketLedger.REFS_HELD));
        }
    }
}
