package io.cairn.storage.state;

import io.cairn.core.kv.CollectionMeta;
import io.cairn.core.kv.HashMeta;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.KvView;
import io.cairn.core.kv.StoredValue;
import io.cairn.core.kv.Packed;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.testing.Fuzz;
import io.cairn.core.testing.SeededRandom;
import io.cairn.core.wire.DiscoveryCursor;
import io.cairn.core.wire.KeyPage;
import io.cairn.core.wire.KeyQuery;
import io.cairn.core.wire.StorageRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed requests reach a storage node from any process that can open its data-plane port
 * (issue 26). A write the leader admits goes into the Raft log, and an entry every replica fails to
 * apply stops the whole replicaset: so what {@link StorageRequest#checkEntry} admits must apply
 * without an exception, whatever its bytes, and a read must be answered or refused, never crash.
 */
@ExtendWith(SeededRandom.class)
class EntryFuzzTest {
    private static final int BUCKETS = 16;
    /** A valid entry or read may build a reply of up to a million fields (HRANDFIELD); bounded, unlike a 2 GB length field. */
    private static final long WORK_ALLOWANCE_BYTES = 256L << 20;

    @TempDir
    Path dir;

    @Test
    void everyEntryTheLeaderAdmitsAppliesWithoutStoppingTheReplica(Random random) throws Exception {
        try (ReplicaUnderTest replica = ReplicaUnderTest.bootstrapped(dir.resolve("db"), BUCKETS)) {
            long[] stamp = {10_000};
            int[] admitted = {0};
            int refused = Fuzz.run(random, entries(), WORK_ALLOWANCE_BYTES, input -> {
                StorageRequest.checkEntry(ByteBuffer.wrap(input));
                admitted[0]++;
                byte[] once = StorageRequest.once(new UUID(1, admitted[0]), admitted[0], input);
                try {
                    replica.apply(once, stamp[0] += 7);
                } catch (RuntimeException e) {
                    throw new AssertionError("admitted, then failed to apply", e);
                }
            }, IllegalArgumentException.class);
            System.out.printf("entries: %d admitted and applied, %d refused by the leader%n", admitted[0], refused);
            assertThat(admitted[0]).as("the corpus's valid entries get through").isPositive();
            assertThat(refused).as("mutations are refused").isPositive();
        }
    }

    @Test
    void everyReadIsAnsweredOrRefusedWithAClearError(Random random) throws Exception {
        try (ReplicaUnderTest replica = ReplicaUnderTest.bootstrapped(dir.resolve("db"), BUCKETS)) {
            for (byte[] entry : entries()) {
                if (entry[0] == StorageRequest.Kind.WRITE.code()) replica.apply(entry.clone(), 5_000);
            }
            int refused = Fuzz.run(random, reads(), WORK_ALLOWANCE_BYTES, input -> replica.state.query(ByteBuffer.wrap(input), 20_000),
                    IllegalArgumentException.class, BufferUnderflowException.class);
            assertThat(refused).isPositive();
        }
    }

    /** Valid entries of every kind a client may send, over the bootstrapped buckets. */
    static List<byte[]> entries() {
        List<byte[]> out = new ArrayList<>();
        out.add(StorageRequest.write(List.of(KvOp.set(1, b("k1"), b("v1")), KvOp.get(1, b("k1")))));
        out.add(StorageRequest.write(List.of(new KvOp(KvOp.Type.SET, 2, b("ttl"), b("v"), 60_000, KvOp.FLAG_EXPIRE_REL))));
        out.add(StorageRequest.write(List.of(new KvOp(KvOp.Type.INCRBY, 3, b("n"), null, 5, 0), KvOp.of(KvOp.Type.DEL, 1, b("k1")))));
        out.add(StorageRequest.write(List.of(new KvOp(KvOp.Type.APPEND, 4, b("a"), b("tail"), 0, 0),
                new KvOp(KvOp.Type.PEXPIRE, 4, b("a"), null, 1_000, KvOp.FLAG_GT))));
        out.add(StorageRequest.write(List.of(new KvOp(KvOp.Type.HSET, 5, b("h"), Packed.encode(List.of(b("f1"), b("1"), b("f2"), b("x"))), 0, 0),
                new KvOp(KvOp.Type.HINCRBY, 5, b("h"), Packed.encode(List.of(b("f1"))), 3, 0),
                new KvOp(KvOp.Type.HINCRBYFLOAT, 5, b("h"), Packed.encode(List.of(b("f1"), b("1.5"))), 0, 0),
                new KvOp(KvOp.Type.HDEL, 5, b("h"), Packed.encode(List.of(b("f2"))), 0, 0))));
        out.add(StorageRequest.write(List.of(new KvOp(KvOp.Type.HRANDFIELD, 5, b("h"), null, -3, KvOp.FLAG_COUNT | KvOp.FLAG_WITHVALUES),
                new KvOp(KvOp.Type.HSCAN, 5, b("h"), Packed.encode(List.of(b("0"), b("*"), b("10"))), 0, 0))));
        out.add(StorageRequest.write(List.of(new KvOp(KvOp.Type.SETRANGE, 4, b("a"), b("xy"), 3, 0),
                new KvOp(KvOp.Type.SETBIT, 4, b("bits"), new byte[] {1}, 77, 0),
                new KvOp(KvOp.Type.INCRBYFLOAT, 3, b("f"), b("2.5"), 0, 0),
                new KvOp(KvOp.Type.GETEX, 4, b("a"), null, 5_000, KvOp.FLAG_EXPIRE_REL),
                new KvOp(KvOp.Type.MSETNX, 2, b("m1"), Packed.encode(List.of(b("m1"), b("1"), b("m2"), b("2"))), 0, 0),
                new KvOp(KvOp.Type.PEXPIRE, 2, b("m1"), null, 90_000, KvOp.FLAG_EXPIRE_ABS),
                new KvOp(KvOp.Type.COPY, 5, b("h"), b("h2"), 0, KvOp.FLAG_XX), new KvOp(KvOp.Type.RENAME, 2, b("m1"), b("m3"), 0, 0))));
        byte[] zero = java.nio.ByteBuffer.allocate(8).putLong(0).array();
        byte[] last = java.nio.ByteBuffer.allocate(8).putLong(-1).array();
        out.add(StorageRequest.write(List.of(new KvOp(KvOp.Type.RPUSH, 6, b("l"), Packed.encode(List.of(b("a"), b("b"), b("c"))), 0, 0),
                new KvOp(KvOp.Type.LRANGE, 6, b("l"), Packed.encode(List.of(zero, last)), 0, 0),
                new KvOp(KvOp.Type.SADD, 7, b("s"), Packed.encode(List.of(b("m1"), b("m2"))), 0, 0),
                new KvOp(KvOp.Type.ZADD, 8, b("z"), Packed.encode(List.of(b("1"), b("a"), b("2.5"), b("b"))), 0, 0),
                new KvOp(KvOp.Type.ZRANGE, 8, b("z"), Packed.encode(List.of(zero, last)), 0, 0),
                new KvOp(KvOp.Type.ZUNIONSTORE, 8, b("z2"), Packed.encode(List.of(b("z"), b("z"), b("weights"), b("2"), b("1"))), 2, 0),
                new KvOp(KvOp.Type.ZRANGESTORE, 8, b("z3"), Packed.encode(List.of(b("z2"), zero, last)), 0, 0))));
        out.add(StorageRequest.move(new MoveCommand.StartSend(6, "rs2")));
        out.add(StorageRequest.move(new MoveCommand.ReceiveChunk(BUCKETS + 1, "rs2", 3, 0,
                List.of(new ChunkEntry(b("moved"), StoredValue.encode(b("value"), 0)), ChunkEntry.deletion(b("gone")),
                        new ChunkEntry(b("h"), CollectionMeta.packForMove(HashMeta.encode(2, 0),
                                List.of(new KvView.Field(b("f"), b("1")), new KvView.Field(b("g"), b("2")))))))));
        out.add(StorageRequest.move(new MoveCommand.ReceiveLastChunk(BUCKETS + 2, "rs2", 3, 0, List.of(new ChunkEntry(b("m"), StoredValue.encode(b("v"), 0))), 10, 0, false)));
        out.add(StorageRequest.moveBatch(List.of(new MoveCommand.MarkSent(6, 2), new MoveCommand.DropData(6, 2),
                new MoveCommand.Pin(7, true), new MoveCommand.Contain(8, 1, "rs2,rs3"))));
        out.add(StorageRequest.moveBatch(List.of(new MoveCommand.StartCopy(9, "rs3"), new MoveCommand.SendCopied(9, "rs3", 1),
                new MoveCommand.CancelCopy(9, 1), new MoveCommand.Quarantine(10, 1), new MoveCommand.DropQuarantined(10, 1, 0))));
        out.add(StorageRequest.ref(77, 60_000));
        out.add(StorageRequest.unref(77));
        out.add(StorageRequest.flush(77));
        out.add(StorageRequest.collect(100, 1, new int[] {6, 10}));
        out.add(StorageRequest.bootstrap(1, BUCKETS));
        return out;
    }

    /** Valid queries (never logged). */
    static List<byte[]> reads() {
        List<byte[]> out = new ArrayList<>();
        out.add(StorageRequest.read(List.of(KvOp.get(1, b("k1")), KvOp.of(KvOp.Type.PTTL, 2, b("ttl")), KvOp.of(KvOp.Type.TYPE, 5, b("h")))));
        out.add(StorageRequest.read(List.of(new KvOp(KvOp.Type.HMGET, 5, b("h"), Packed.encode(List.of(b("f1"), b("f9"))), 0, 0),
                KvOp.of(KvOp.Type.HGETALL, 5, b("h")))));
        out.add(StorageRequest.discover(new DiscoveryCursor(0, 0, 0), 100));
        out.add(StorageRequest.stats());
        out.add(StorageRequest.moveQuery(new MoveQuery.ReadChunk(1, 0, new byte[0], 100, 1 << 16)));
        out.add(StorageRequest.moveQuery(new MoveQuery.Digest(3)));
        out.add(StorageRequest.moveQuery(new MoveQuery.Inspect(List.of(1, 2, 3), true)));
        out.add(new KeyQuery(KeyQuery.Scope.values()[0], 0, KeyPage.Position.START, BUCKETS, 100, 1 << 16).encode());
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
