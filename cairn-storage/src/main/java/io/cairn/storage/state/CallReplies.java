package io.cairn.storage.state;

import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;


import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
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
 *
 * <p>Every write entry asks for its call and collects; both are nearly always empty-handed (a call
 * is new, nothing has aged out), and each cost a RocksDB lookup or an iterator per entry on every
 * member. Two facts kept in memory answer them without RocksDB when they can: the highest call id
 * recorded per client (a client numbers its calls upwards, so a first attempt is above it) and the
 * stamp of the oldest record. Both only skip a read whose answer they know; what is applied stays
 * the same on every replica. They are learned from RocksDB when unknown (a new instance: start-up,
 * a snapshot installed).
 */
final class CallReplies {
    static final long RETENTION_MS = 10 * 60_000;
    /** Records collected at most per applied entry: bounds the work one entry adds. */
    static final int COLLECT_PER_ENTRY = 16;

    private static final byte[] REPLY = "call/".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] AGE = "call-age/".getBytes(StandardCharsets.US_ASCII);
    private static final int ID_BYTES = 16 + 8;

    /** Clients known at most: past it the map is dropped and learned again (routers restart with new ids). */
    static final int MAX_CLIENTS_KNOWN = 4_096;
    private static final long UNKNOWN = Long.MIN_VALUE;
    private static final long NO_RECORD = Long.MAX_VALUE;

    private final RocksStore store;
    /** Per client, a call id (unsigned, as the keys sort) at or above every id recorded for it. */
    private final Map<UUID, Long> highestCallId = new HashMap<>();
    /**
     * At or below the stamp of every record, written or in the entry's batch: a collect skipped on it
     * must be one that would have deleted nothing. {@link #NO_RECORD} when none, {@link #UNKNOWN} until learned.
     */
    private long oldestStampMs = UNKNOWN;
    /** The oldest stamp recorded into the current entry's batch (not yet in RocksDB), or {@link #NO_RECORD}. */
    private long oldestInBatchMs = NO_RECORD;

    CallReplies(RocksStore store) {
        this.store = store;
    }

    /** The reply recorded for ({@code client}, {@code callId}), or null. */
    byte[] replyOf(UUID client, long callId) {
        if (Long.compareUnsigned(callId, highestCallId(client)) > 0) return null;
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
        highestCallId.computeIfPresent(client, (c, highest) -> Long.compareUnsigned(callId, highest) > 0 ? callId : highest);
        oldestInBatchMs = Math.min(oldestInBatchMs, stampMs);
        if (oldestStampMs != UNKNOWN) oldestStampMs = Math.min(oldestStampMs, stampMs);
    }

    /**
     * Deletes up to {@link #COLLECT_PER_ENTRY} records stamped more than the retention before {@code stampMs}
     * (the last call of an entry's apply); returns how many.
     */
    int collect(WriteBatch batch, long stampMs) {
        long cutoff = stampMs - RETENTION_MS;
        long inBatch = oldestInBatchMs;
        oldestInBatchMs = NO_RECORD;
        if (oldestStampMs != UNKNOWN && oldestStampMs >= cutoff) return 0;
        int collected = 0;
        long oldestLeft = NO_RECORD;
        try (StoreIterator it = store.newIterator(store.system)) {
            for (it.seek(AGE); it.isValid(); it.next()) {
                byte[] key = it.key();
                if (!startsWith(key, AGE)) break;
                long stamp = ByteBuffer.wrap(key, AGE.length, 8).getLong();
                if (stamp >= cutoff || collected == COLLECT_PER_ENTRY) {
                    oldestLeft = stamp;
                    break;
                }
                byte[] id = Arrays.copyOfRange(key, AGE.length + 8, key.length);
                batch.delete(store.system, key);
                batch.delete(store.system, replyKey(id));
                collected++;
            }
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch delete failed", e);
        }
        oldestStampMs = Math.min(oldestLeft, inBatch);
        return collected;
    }

    private long highestCallId(UUID client) {
        Long known = highestCallId.get(client);
        if (known != null) return known;
        if (highestCallId.size() >= MAX_CLIENTS_KNOWN) highestCallId.clear();
        long highest;
        byte[] last = ByteBuffer.allocate(REPLY.length + ID_BYTES).put(REPLY).putLong(client.getMostSignificantBits())
                .putLong(client.getLeastSignificantBits()).putLong(-1L).array();
        try (StoreIterator it = store.newIterator(store.system)) {
            it.seekForPrev(last);
            byte[] key = it.isValid() ? it.key() : null;
            if (key == null || key.length != last.length || !Arrays.equals(key, 0, last.length - 8, last, 0, last.length - 8)) highest = 0;
            else highest = ByteBuffer.wrap(key, last.length - 8, 8).getLong();
        }
        highestCallId.put(client, highest);
        return highest;
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
