package io.cairn.storage.state;

import io.cairn.core.BucketState;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.kv.StoredValue;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.StorageRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bucket copied ahead of its move marks every key written meanwhile, in the write's own batch,
 * on RocksDB; the changes query sends those keys as they are at SENDING, and the marks go with
 * the end of the copy.
 */
class CopyAheadMarksTest {
    private static final int B = 3;

    @TempDir
    Path dir;

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void write(ReplicaUnderTest replica, long stampMs, KvOp... ops) {
        replica.apply(StorageRequest.write(List.of(ops)), stampMs);
    }

    private static MoveQuery.ChangesPage changes(ReplicaUnderTest replica, byte[] after, int maxKeys) {
        return MoveQueries.readChanges(new MoveQuery.ReadChanges(B, 2, after, maxKeys, 1 << 20), replica.state);
    }

    private static OpResult read(ReplicaUnderTest replica, String key) {
        byte[] answer = replica.state.query(ByteBuffer.wrap(StorageRequest.read(List.of(KvOp.get(B, bytes(key))))), 1_550);
        return OpCodec.decodeResults(ByteBuffer.wrap(answer)).get(0);
    }

    private static List<String> describe(List<ChunkEntry> entries) {
        return entries.stream().map(e -> new String(e.key()) + "=" + (e.isDeletion() ? "deleted" : new String(StoredValue.data(e.stored())))).toList();
    }

    @Test
    void writesToACopiedBucketAreMarkedAndReadBackAsTheyAreAtSending() throws Exception {
        try (ReplicaUnderTest source = ReplicaUnderTest.bootstrapped(dir.resolve("src"), 10)) {
            write(source, 1_100, KvOp.set(B, bytes("before"), bytes("v")), KvOp.set(B, bytes("gone"), bytes("v")),
                    KvOp.set(B + 1, bytes("other"), bytes("v")));
            assertThat(source.move(new MoveCommand.StartCopy(B, "rs2"), 1_200).record().marksChanges()).isTrue();
            assertThat(MoveQueries.readChunk(new MoveQuery.ReadChunk(B, 2, new byte[0], 10, 1 << 20), source.state).entries())
                    .as("chunks are read while the bucket is copied").hasSize(2);

            write(source, 1_300, KvOp.set(B, bytes("a-new"), bytes("1")), KvOp.of(KvOp.Type.DEL, B, bytes("gone")),
                    KvOp.set(B + 1, bytes("other"), bytes("2")), KvOp.of(KvOp.Type.DEL, B, bytes("never-there")));
            write(source, 1_400, new KvOp(KvOp.Type.INCRBY, B, bytes("counter"), null, 5, 0), KvOp.set(B, bytes("a-new"), bytes("2")));
            assertThat(MoveQueries.readChanges(new MoveQuery.ReadChanges(B, 2, new byte[0], 10, 1 << 20), source.state).page().refusal())
                    .as("changes are read once writes stopped").contains("not SENDING");

            MoveReply sending = source.move(new MoveCommand.SendCopied(B, "rs2", 2), 1_500);
            assertThat(sending.isOk()).isTrue();
            assertThat(describe(sending.changes().page().entries())).as("SendCopied answers with the changes")
                    .containsExactly("a-new=2", "counter=5", "gone=deleted");
            assertThat(sending.changes().keyCount()).as("and the digest: it is the only page").isEqualTo(3);
            assertThat(read(source, "before").error()).as("a copied SENDING bucket serves no reads: its destination activates before it is SENT")
                    .isEqualTo(ErrorCode.BUCKET_LOCKED);
            MoveQuery.ChangesPage first = changes(source, new byte[0], 2);
            assertThat(describe(first.page().entries())).containsExactly("a-new=2", "counter=5");
            assertThat(first.page().last()).isFalse();
            assertThat(first.keyCount()).as("the digest comes with the last page").isEqualTo(-1);
            MoveQuery.ChangesPage rest = changes(source, bytes("counter"), 2);
            assertThat(describe(rest.page().entries())).as("a delete of an absent key changes nothing").containsExactly("gone=deleted");
            assertThat(rest.page().last()).isTrue();
            MoveQuery.BucketDigest digest = MoveQueries.digest(B, source.state);
            assertThat(rest.keyCount()).isEqualTo(digest.keyCount()).isEqualTo(3);
            assertThat(rest.checksum()).isEqualTo(digest.checksum());

            assertThat(source.move(new MoveCommand.MarkSent(B, 2), 1_600).isOk()).isTrue();
            assertThat(source.move(new MoveCommand.DropData(B, 2), 1_700).record().isCopying()).isFalse();
            assertThat(changes(source, new byte[0], 10).page().entries()).as("no marks are left").isEmpty();
        }
    }

    @Test
    void aFlushOfACopiedBucketMarksEveryKeyItDeletes() throws Exception {
        try (ReplicaUnderTest source = ReplicaUnderTest.bootstrapped(dir.resolve("src"), 10)) {
            write(source, 1_100, KvOp.set(B, bytes("k1"), bytes("v")), KvOp.set(B, bytes("k2"), bytes("v")));
            source.move(new MoveCommand.StartCopy(B, "rs2"), 1_200);
            write(source, 1_300, KvOp.set(B, bytes("k3"), bytes("v")));
            assertThat(source.result(StorageRequest.ref(7, 10_000), 1_400).isError()).isFalse();
            assertThat(source.result(StorageRequest.flush(7), 1_500).isError()).isFalse();
            assertThat(source.move(new MoveCommand.SendCopied(B, "rs2", 2), 1_600).outcome())
                    .as("the ref keeps the bucket here").isEqualTo(MoveReply.Outcome.REFUSED);
            assertThat(source.move(new MoveCommand.SendCopied(B, "rs2", 2), 20_000).isOk()).isTrue();
            assertThat(describe(changes(source, new byte[0], 10).page().entries())).containsExactly("k1=deleted", "k2=deleted", "k3=deleted");
        }
    }

    @Test
    void aCancelledCopyForgetsItsMarksAndStopsMarking() throws Exception {
        try (ReplicaUnderTest source = ReplicaUnderTest.bootstrapped(dir.resolve("src"), 10)) {
            source.move(new MoveCommand.StartCopy(B, "rs2"), 1_200);
            write(source, 1_300, KvOp.set(B, bytes("k1"), bytes("v")));
            assertThat(source.move(new MoveCommand.CancelCopy(B, 2), 1_400).record().marksChanges()).isFalse();
            write(source, 1_500, KvOp.set(B, bytes("k2"), bytes("v")));
            boolean[] anyMark = {false};
            source.store.forEachChanged(B, new byte[0], key -> anyMark[0] = true);
            assertThat(anyMark[0]).isFalse();
            assertThat(source.state.moveStatus(10).candidates()).as("movable again").contains(B);
        }
    }

    @Test
    void theDestinationAppliesChangedKeysWithAnExactKeyCount() throws Exception {
        try (ReplicaUnderTest dest = ReplicaUnderTest.bootstrapped(dir.resolve("dst"), 2)) {
            ChunkEntry k1 = new ChunkEntry(bytes("k1"), StoredValue.encode(bytes("v1"), 0));
            ChunkEntry k2 = new ChunkEntry(bytes("k2"), StoredValue.encode(bytes("v2"), 0));
            ChunkEntry k1b = new ChunkEntry(bytes("k1"), StoredValue.encode(bytes("v1b"), 0));
            long before = dest.state.keyCount();
            assertThat(dest.move(new MoveCommand.ReceiveChunk(42, "rs1", 5, 0, List.of(k1, k2)), 2_000).isOk()).isTrue();
            MoveReply verdict = dest.move(new MoveCommand.ReceiveLastChunk(42, "rs1", 5, 1, List.of(k1b, ChunkEntry.deletion(bytes("k2"))),
                    1, k1b.crc(), true), 2_100);
            assertThat(verdict.outcome()).isEqualTo(MoveReply.Outcome.COMPLETE);
            assertThat(dest.state.record(42).state()).as("activated at the verdict").isEqualTo(BucketState.ACTIVE);
            assertThat(dest.state.record(42).servesReads()).isTrue();
            assertThat(dest.state.keyCount() - before).isEqualTo(1).isEqualTo(dest.store.countKeys(42));
        }
    }
}
