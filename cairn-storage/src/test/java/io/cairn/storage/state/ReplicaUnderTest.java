package io.cairn.storage.state;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.kv.Packed;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** One replicaset member's state without Raft: entries are applied one by one with the stamps a test chooses. */
final class ReplicaUnderTest implements AutoCloseable {
    RocksStore store;
    ReplicasetState state;
    private long index;

    ReplicaUnderTest(Path db) throws IOException {
        open(db);
    }

    /** A new member in {@code db} whose bootstrap created ACTIVE buckets 1..{@code buckets} (stamp 1,000). */
    static ReplicaUnderTest bootstrapped(Path db, int buckets) throws IOException {
        ReplicaUnderTest replica = new ReplicaUnderTest(db);
        replica.apply(StorageRequest.bootstrap(1, buckets), 1_000);
        return replica;
    }

    /** Closes the database and opens {@code db} (the same folder, or a copy of an older one). */
    void open(Path db) throws IOException {
        if (store != null) store.close();
        store = new RocksStore(db);
        state = new ReplicasetState(store, 1 << 20);
        index = state.appliedIndex();
    }

    byte[] apply(byte[] entry, long stampMs) {
        ByteBuffer.wrap(entry).putLong(StorageRequest.STAMP_OFFSET, stampMs);
        return state.apply(ByteBuffer.wrap(entry), 1, ++index);
    }

    OpResult result(byte[] entry, long stampMs) {
        return OpCodec.decodeResults(ByteBuffer.wrap(apply(entry, stampMs))).get(0);
    }

    MoveReply move(MoveCommand command, long stampMs) {
        return MoveCodec.decodeReply(ByteBuffer.wrap(apply(StorageRequest.move(command), stampMs)));
    }

    /** An op on {@code key} in {@code bucket}, {@code args} packed as its value. */
    static KvOp op(KvOp.Type type, int bucket, String key, long arg, String... args) {
        List<byte[]> packed = new ArrayList<>();
        for (String a : args) packed.add(a.getBytes(StandardCharsets.UTF_8));
        return new KvOp(type, bucket, key.getBytes(StandardCharsets.UTF_8),
                Packed.encode(packed), arg, 0);
    }

    /** The log entry that writes {@code op} alone. */
    static byte[] write(KvOp op) {
        return StorageRequest.write(List.of(op));
    }

    /** {@code op} answered as a query at 2,000 ms (after every stamp the tests apply with). */
    OpResult read(KvOp op) {
        return read(op, 2_000);
    }

    /** {@code op} answered as a query (a read, not logged) at {@code nowMs}. */
    OpResult read(KvOp op, long nowMs) {
        return OpCodec.decodeResults(ByteBuffer.wrap(state.query(ByteBuffer.wrap(StorageRequest.read(List.of(op))), nowMs))).get(0);
    }

    /** Entries in the fields column, whatever key they belong to. */
    int storedFields() {
        int n = 0;
        try (StoreIterator it = store.newIterator(store.fields)) {
            for (it.seekToFirst(); it.isValid(); it.next()) n++;
        }
        return n;
    }

    @Override
    public void close() {
        store.close();
    }
}
