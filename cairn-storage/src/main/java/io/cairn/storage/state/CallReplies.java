package io.cairn.storage.state;

import io.cairn.storage.rocks.RocksStore;


import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;

/**
 * The replies of recent writes by (client, call id), part of the replicated state, so that a router
 * re-sending a write whose outcome it lost (a connection dropped, a leader changed, a deadline
 * passed) gets the first attempt's answer instead of a second application: an INCR counted once,
 * an error reply that is never followed by the write taking effect. Ratis's retry cache does this
 * for Ratis; an engine without one (the replication port) wraps writes in ONCE entries instead.
 *
 * <p>A reply is kept for {@link #RETENTION_MS} by the leader stamps of later entries, then
 * collected a few at a time as entries apply: deterministic, since every replica sees the same
 * stamps and the same records. A router must stop re-sending a write well within the retention
 * (its request deadlines are seconds).
 *
 * <pre>
 * system CF  call/[client:16][callId:8]                -> [stampMs:8][reply]
 *            call-age/[stampMs:8][client:16][callId:8] -> (empty), oldest first
 * </pre>
 */
final class CallReplies {
    static final long RETENTION_MS = 10 * 60_000;
    /** Records collected at most per applied entry: bounds the work one entry adds. */
    static final int COLLECT_PER_ENTRY = 16;

    private static final byte[] REPLY = "call/".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] AGE = "call-age/".getBytes(StandardCharsets.US_ASCII);
    private static final int ID_BYTES = 16 + 8;

    private final RocksStore store;

    CallReplies(RocksStore store) {
        this.store = store;
    }

    /** The reply recorded for ({@code client}, {@code callId}), or null. */
    byte[] replyOf(UUID client, long callId) {
        byte[] v = store.get(store.system, replyKey(id(client, callId)));
        return v == null ? null : Arrays.copyOfRange(v, 8, v.length);
    }

    void record(WriteBatch batch, UUID client, long callId, long stampMs, byte[] reply) {
        byte[] id = id(client, callId);
        try {
            batch.put(store.system, replyKey(id), ByteBuffer.allocate(8 + reply.length).putLong(stampMs).put(reply).array());
            batch.put(store.system, ageKey(stampMs, id), new byte[0]);
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
    }

    /** Deletes up to {@link #COLLECT_PER_ENTRY} records stamped more than the retention before {@code stampMs}; returns how many. */
    int collect(WriteBatch batch, long stampMs) {
        long cutoff = stampMs - RETENTION_MS;
        int collected = 0;
        try (RocksIterator it = store.newIterator(store.system)) {
            for (it.seek(AGE); it.isValid() && collected < COLLECT_PER_ENTRY; it.next()) {
                byte[] key = it.key();
                if (!startsWith(key, AGE)) break;
                ByteBuffer b = ByteBuffer.wrap(key, AGE.length, 8 + ID_BYTES);
                if (b.getLong() >= cutoff) break;
                byte[] id = Arrays.copyOfRange(key, AGE.length + 8, key.length);
                batch.delete(store.system, key);
                batch.delete(store.system, replyKey(id));
                collected++;
            }
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch delete failed", e);
        }
        return collected;
    }

    private static byte[] id(UUID client, long callId) {
        return ByteBuffer.allocate(ID_BYTES).putLong(client.getMostSignificantBits()).putLong(client.getLeastSignificantBits())
                .putLong(callId).array();
    }

    private static byte[] replyKey(byte[] id) {
        return ByteBuffer.allocate(REPLY.length + ID_BYTES).put(REPLY).put(id).array();
    }

    private static byte[] ageKey(long stampMs, byte[] id) {
        return ByteBuffer.allocate(AGE.length + 8 + ID_BYTES).put(AGE).putLong(stampMs).put(id).array();
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
