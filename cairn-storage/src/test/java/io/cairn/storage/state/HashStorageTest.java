package io.cairn.storage.state;

import io.cairn.core.BucketState;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.StorageRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.cairn.storage.state.ReplicaUnderTest.write;
import static org.assertj.core.api.Assertions.assertThat;

/** Hashes on RocksDB: one key record plus one entry per field, counted, deleted and moved as one key. */
class HashStorageTest {
    private static final int BUCKET = 3;

    @TempDir
    Path dir;

    @Test
    void aHashCountsAsOneKeyAndItsFieldsGoWithItsDelete() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            // 200 fields: cleared by one range tombstone; 10 fields: cleared field by field.
            r.result(write(hset("big", 200)), 2_000);
            r.result(write(hset("small", 10)), 2_000);
            assertThat(r.state.keyCount()).isEqualTo(2);
            assertThat(r.store.countKeys(BUCKET)).isEqualTo(2);
            assertThat(r.storedFields()).isEqualTo(210);
            assertThat(r.result(write(KvOp.of(KvOp.Type.DEL, BUCKET, b("big"))), 3_000).number()).isEqualTo(1);
            assertThat(r.result(write(KvOp.of(KvOp.Type.DEL, BUCKET, b("small"))), 3_000).number()).isEqualTo(1);
            assertThat(r.storedFields()).as("no field survives its key").isZero();
            assertThat(r.state.keyCount()).isZero();
        }
    }

    @Test
    void aBigHashRenamedOverAnotherKeepsItsFieldsUnderTheNewNameOnly() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            r.result(write(hset("big", 200)), 2_000);
            r.result(write(hset("target", 100)), 2_000); // replaced: its fields go by one range tombstone
            assertThat(r.result(write(new KvOp(KvOp.Type.RENAME, BUCKET, b("big"), b("target"), 0, 0)), 3_000)).isEqualTo(OpResult.OK);
            assertThat(r.state.keyCount()).isEqualTo(1);
            assertThat(r.storedFields()).as("the 200 fields, once").isEqualTo(200);
            assertThat(r.read(op(KvOp.Type.HLEN, "target", 0)).number()).isEqualTo(200);
            assertThat(r.read(op(KvOp.Type.EXISTS, "big", 0)).number()).isZero();
        }
    }

    @Test
    void aHashDeletedAndRecreatedInOneEntryKeepsOnlyItsNewFields() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            r.result(write(hset("h", 100)), 2_000);
            byte[] reply = r.apply(StorageRequest.write(List.of(
                    KvOp.of(KvOp.Type.DEL, BUCKET, b("h")),
                    op(KvOp.Type.HSET, "h", 0, "fresh", "1"),
                    op(KvOp.Type.HLEN, "h", 0))), 3_000);
            assertThat(OpCodec.decodeResults(ByteBuffer.wrap(reply)).get(2).number()).isEqualTo(1);
            assertThat(r.read(op(KvOp.Type.HKEYS, "h", 0)).elements()).extracting(e -> new String(e, StandardCharsets.UTF_8)).containsExactly("fresh");
            assertThat(r.storedFields()).isEqualTo(1);
        }
    }

    @Test
    void anExpiredHashIsSweptWithItsFields() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            r.result(write(hset("h", 300)), 2_000);
            r.result(write(new KvOp(KvOp.Type.PEXPIRE, BUCKET, b("h"), null, 100, 0)), 2_000);
            assertThat(r.read(op(KvOp.Type.HLEN, "h", 0), 2_050).number()).isEqualTo(300);
            assertThat(r.read(op(KvOp.Type.HLEN, "h", 0), 2_100).number()).isZero();
            assertThat(r.result(write(KvOp.of(KvOp.Type.DEL_IF_EXPIRED, BUCKET, b("h"))), 2_200).number()).isEqualTo(1);
            assertThat(r.storedFields()).isZero();
            assertThat(r.state.keyCount()).isZero();
        }
    }

    @Test
    void aMovedBucketCarriesTheHashWithEveryFieldAndItsExpiry() throws Exception {
        try (ReplicaUnderTest source = ReplicaUnderTest.bootstrapped(dir.resolve("src"), 10);
             ReplicaUnderTest dest = ReplicaUnderTest.bootstrapped(dir.resolve("dst"), 2)) {
            source.result(write(hset("h", 1_000)), 2_000);
            source.result(write(new KvOp(KvOp.Type.PEXPIRE, BUCKET, b("h"), null, 1_000_000, 0)), 2_000);
            source.result(write(KvOp.set(BUCKET, b("s"), b("plain"))), 2_000);
            assertThat(source.move(new MoveCommand.StartSend(BUCKET, "rs2"), 3_000).isOk()).isTrue();
            long generation = source.state.record(BUCKET).generation();
            List<ChunkEntry> all = new ArrayList<>();
            byte[] after = new byte[0];
            byte[] afterElement = new byte[0];
            int seq = 0;
            while (true) {
                // 4 KiB chunks: the 1,000-field hash exceeds one and travels in pieces, the cursor pointing inside it.
                MoveQuery.ChunkPage page = MoveQueries.readChunk(new MoveQuery.ReadChunk(BUCKET, generation, after, 100, 4096, afterElement), source.state);
                all.addAll(page.entries());
                if (page.last()) {
                    MoveQuery.BucketDigest digest = MoveQueries.digest(BUCKET, source.state);
                    assertThat(dest.move(new MoveCommand.ReceiveLastChunk(BUCKET, "rs1", generation + 1, seq, page.entries(),
                            digest.keyCount(), digest.checksum(), true), 4_000).outcome()).isEqualTo(MoveReply.Outcome.COMPLETE);
                    break;
                }
                assertThat(dest.move(new MoveCommand.ReceiveChunk(BUCKET, "rs1", generation + 1, seq++, page.entries()), 4_000).isOk()).isTrue();
                after = page.entries().get(page.entries().size() - 1).key();
                afterElement = page.entries().get(page.entries().size() - 1).resumeElement();
            }
            assertThat(ChunkEntry.keyCount(all)).as("each key completed once").isEqualTo(2);
            assertThat(all.stream().filter(ChunkEntry::isPiece).count()).as("the hash in pieces").isGreaterThan(3);
            assertThat(dest.move(new MoveCommand.Activate(BUCKET, generation + 1), 4_000).isOk()).isTrue();
            assertThat(dest.state.record(BUCKET).state()).isEqualTo(BucketState.ACTIVE);
            assertThat(dest.state.keyCount()).isEqualTo(2);
            assertThat(dest.read(op(KvOp.Type.HLEN, "h", 0)).number()).isEqualTo(1_000);
            List<byte[]> pairs = dest.read(op(KvOp.Type.HGETALL, "h", 0)).elements();
            for (int i = 0; i < pairs.size(); i += 2) {
                String field = new String(pairs.get(i), StandardCharsets.UTF_8);
                assertThat(new String(pairs.get(i + 1), StandardCharsets.UTF_8)).isEqualTo("value-" + field);
            }
            assertThat(pairs).hasSize(2_000);
            assertThat(dest.read(KvOp.of(KvOp.Type.PTTL, BUCKET, b("h")), 5_000).number()).isEqualTo(1_002_000 - 5_000);
            assertThat(dest.storedFields()).isEqualTo(1_000);
        }
    }

    /** Copy ahead: field writes while the bucket is copied mark the hash, which is sent again whole and replaces the early copy. */
    @Test
    void fieldWritesDuringACopyAheadReachTheDestination() throws Exception {
        try (ReplicaUnderTest source = ReplicaUnderTest.bootstrapped(dir.resolve("src"), 10);
             ReplicaUnderTest dest = ReplicaUnderTest.bootstrapped(dir.resolve("dst"), 2)) {
            source.result(write(hset("h", 100)), 2_000);
            source.result(write(hset("gone", 80)), 2_000);
            assertThat(source.move(new MoveCommand.StartCopy(BUCKET, "rs2"), 2_100).record().marksChanges()).isTrue();
            long generation = source.state.record(BUCKET).copyGeneration();
            MoveQuery.ChunkPage copied = MoveQueries.readChunk(new MoveQuery.ReadChunk(BUCKET, generation, new byte[0], 100, 1 << 20), source.state);
            assertThat(copied.last()).isTrue();
            assertThat(dest.move(new MoveCommand.ReceiveChunk(BUCKET, "rs1", generation, 0, copied.entries()), 2_200).isOk()).isTrue();

            source.result(write(op(KvOp.Type.HSET, "h", 0, "f1", "changed", "added", "new")), 2_300);
            source.result(write(op(KvOp.Type.HDEL, "h", 0, "f2")), 2_300);
            source.result(write(KvOp.of(KvOp.Type.DEL, BUCKET, b("gone"))), 2_300);
            MoveReply sending = source.move(new MoveCommand.SendCopied(BUCKET, "rs2", generation), 2_400);
            assertThat(sending.isOk()).isTrue();
            MoveQuery.ChangesPage changes = sending.changes();
            assertThat(changes.page().entries()).extracting(e -> new String(e.key(), StandardCharsets.UTF_8)).containsExactly("gone", "h");
            MoveReply verdict = dest.move(new MoveCommand.ReceiveLastChunk(BUCKET, "rs1", generation, 1, changes.page().entries(),
                    changes.keyCount(), changes.checksum(), true), 2_500);
            assertThat(verdict.outcome()).as(verdict.message()).isEqualTo(MoveReply.Outcome.COMPLETE);

            assertThat(dest.read(op(KvOp.Type.HLEN, "h", 0)).number()).isEqualTo(100);
            assertThat(dest.read(op(KvOp.Type.HMGET, "h", 0, "f1", "f2", "added", "f3")).elements())
                    .extracting(e -> e == null ? null : new String(e, StandardCharsets.UTF_8)).containsExactly("changed", null, "new", "value-f3");
            assertThat(dest.read(KvOp.of(KvOp.Type.EXISTS, BUCKET, b("gone"))).number()).isZero();
            assertThat(dest.storedFields()).as("the deleted hash left no field behind").isEqualTo(100);
            assertThat(dest.state.keyCount()).isEqualTo(1);
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static KvOp hset(String key, int fields) {
        String[] pairs = new String[fields * 2];
        for (int i = 0; i < fields; i++) {
            pairs[2 * i] = "f" + i;
            pairs[2 * i + 1] = "value-f" + i;
        }
        return op(KvOp.Type.HSET, key, 0, pairs);
    }

    private static KvOp op(KvOp.Type type, String key, long arg, String... args) {
        return ReplicaUnderTest.op(type, BUCKET, key, arg, args);
    }
}
