package io.cairn.storage.state;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.ErrorCode;
import io.cairn.core.WireCodes;
import io.cairn.core.kv.OpResult;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Storage refs of one replicaset (vshard's {@code storage/ref.lua} and {@code storage/sched.lua},
 * DOMAIN.md 1.12 and 1.6): a map-reduce call over all replicasets holds one ref on each, and
 * while any is held no bucket starts leaving ({@link io.cairn.core.move.BucketLedger.Store#mapReduceRefsHeld}).
 *
 * <p>Everything here is replicated state: refs are taken and released by log entries, expire at
 * the taking entry's stamp + ttl, and are judged against later entries' stamps, so every replica
 * decides the same. They are persisted in the system column family with the entry's batch, so
 * restarts and snapshots keep them.
 *
 * <p>Fairness between refs and moves (vshard alternates them by quota): a ref refused because a
 * bucket is in transfer leaves a "ref waiting" mark that keeps new moves out until a ref is
 * granted; a move refused because refs are held leaves a "move waiting" mark that keeps new refs
 * out until a move starts. Only one mark exists at a time and it lapses after
 * {@link #TURN_WAIT_MS}, so a waiter that gave up blocks nobody for long.
 *
 * <p>Threads: written only by the apply thread; read by queries (hence the synchronized methods).
 */
final class StorageRefs {
    /** Upper bound of a ref's time to live, whatever the caller asks: a crashed router blocks moves at most this long. */
    static final long MAX_TTL_MS = 60_000;
    /** Most refs held at once. */
    static final int MAX_REFS = 1_024;
    /** How long a waiting mark keeps the other side out (longer than the rebalancer's round and a router's retry backoff). */
    static final long TURN_WAIT_MS = 3_000;

    private static final byte[] REF_PREFIX = RocksStore.bytes("storage-ref/");
    private static final byte[] TURN_KEY = RocksStore.bytes("storage-ref-turn");

    /** Whose turn is waited for; its code is stored in RocksDB (TURN_KEY): never renumber one. */
    enum Waiter {
        NONE(0), MOVE(1), REF(2);

        private static final Waiter[] BY_CODE = WireCodes.index(values(), Waiter::code);
        private final byte code;

        Waiter(int code) {
            this.code = (byte) code;
        }

        byte code() {
            return code;
        }
    }

    private final RocksStore store;
    private final Map<Long, Long> expiryByRef = new HashMap<>();
    private Waiter waiter = Waiter.NONE;
    private long waiterUntilMs;

    private StorageRefs(RocksStore store) {
        this.store = store;
    }

    static StorageRefs load(RocksStore store) {
        StorageRefs refs = new StorageRefs(store);
        try (StoreIterator it = store.newIterator(store.system)) {
            for (it.seek(REF_PREFIX); it.isValid() && startsWith(it.key(), REF_PREFIX); it.next()) {
                refs.expiryByRef.put(ByteBuffer.wrap(it.key(), REF_PREFIX.length, 8).getLong(), ByteBuffer.wrap(it.value()).getLong());
            }
        }
        byte[] turn = store.get(store.system, TURN_KEY);
        if (turn != null) {
            ByteBuffer b = ByteBuffer.wrap(turn);
            refs.waiter = WireCodes.lookup(Waiter.BY_CODE, b.get(), "ref waiter");
            refs.waiterUntilMs = b.getLong();
        }
        return refs;
    }

    /** Applies REF: grants {@code refId} until stamp + ttl, or refuses it (retryably) while buckets are in transfer. */
    synchronized OpResult take(long refId, long ttlMs, long stampMs, Collection<BucketRecord> records, WriteBatch batch) {
        dropExpired(stampMs, batch);
        if (expiryByRef.containsKey(refId)) return put(refId, stampMs + clampTtl(ttlMs), batch);
        if (waiting(Waiter.MOVE, stampMs)) {
            return OpResult.error(ErrorCode.MOVE_IN_PROGRESS, "a bucket move waits for its turn; retry shortly");
        }
        BucketRecord transfer = firstInTransfer(records);
        if (transfer != null) {
            if (!waiting(Waiter.MOVE, stampMs) && !waiting(Waiter.REF, stampMs)) setWaiter(Waiter.REF, stampMs + TURN_WAIT_MS, batch);
            return OpResult.error(ErrorCode.MOVE_IN_PROGRESS, "bucket " + transfer.id() + " is " + transfer.state());
        }
        if (expiryByRef.size() >= MAX_REFS) return OpResult.error(ErrorCode.MOVE_IN_PROGRESS, MAX_REFS + " storage refs are held already");
        if (waiter == Waiter.REF) setWaiter(Waiter.NONE, 0, batch);
        return put(refId, stampMs + clampTtl(ttlMs), batch);
    }

    /** Applies UNREF (idempotent). */
    synchronized OpResult release(long refId, long stampMs, WriteBatch batch) {
        dropExpired(stampMs, batch);
        if (expiryByRef.remove(refId) != null) delete(refId, batch);
        return OpResult.OK;
    }

    synchronized boolean held(long refId, long nowMs) {
        Long expiry = expiryByRef.get(refId);
        return expiry != null && expiry > nowMs;
    }

    /** Refs are held, or a map-reduce waits for its turn: no bucket may start leaving at {@code nowMs}. */
    synchronized boolean blockMoves(long nowMs) {
        if (waiting(Waiter.REF, nowMs)) return true;
        for (long expiry : expiryByRef.values()) if (expiry > nowMs) return true;
        return false;
    }

    /** A StartSend was refused because of refs: new refs wait until a move starts (or the mark lapses). */
    synchronized void moveRefused(long stampMs, WriteBatch batch) {
        if (!waiting(Waiter.MOVE, stampMs) && !waiting(Waiter.REF, stampMs)) setWaiter(Waiter.MOVE, stampMs + TURN_WAIT_MS, batch);
    }

    synchronized void moveStarted(WriteBatch batch) {
        if (waiter == Waiter.MOVE) setWaiter(Waiter.NONE, 0, batch);
    }

    synchronized int size() {
        return expiryByRef.size();
    }

    synchronized Waiter waiter(long nowMs) {
        return waiterUntilMs > nowMs ? waiter : Waiter.NONE;
    }

    /**
     * SENDING, or SENT with its data still here: a bucket this replicaset is handing over. A
     * RECEIVING copy does not count: it is owned by nobody here, and the source of any copy that
     * can still be activated is SENDING or SENT with its data, so that source refuses refs. (A
     * copy ahead keeps its destination RECEIVING for the whole copy; refusing refs there would
     * stall map-reduce calls for as long.)
     */
    static BucketRecord firstInTransfer(Collection<BucketRecord> records) {
        for (BucketRecord r : records) {
            boolean sentNotDropped = r.state() == BucketState.SENT && (r.flags() & BucketRecord.FLAG_DATA_DROPPED) == 0;
            if (r.state() == BucketState.SENDING || sentNotDropped) return r;
        }
        return null;
    }

    private boolean waiting(Waiter who, long nowMs) {
        return waiter == who && waiterUntilMs > nowMs;
    }

    private static long clampTtl(long ttlMs) {
        return Math.max(1, Math.min(ttlMs, MAX_TTL_MS));
    }

    private void dropExpired(long nowMs, WriteBatch batch) {
        var it = expiryByRef.entrySet().iterator();
        while (it.hasNext()) {
            var e = it.next();
            if (e.getValue() <= nowMs) {
                delete(e.getKey(), batch);
                it.remove();
            }
        }
    }

    private OpResult put(long refId, long expiresAtMs, WriteBatch batch) {
        try {
            batch.put(store.system, refKey(refId), RocksStore.longKey(expiresAtMs));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
        expiryByRef.put(refId, expiresAtMs);
        return OpResult.OK;
    }

    private void delete(long refId, WriteBatch batch) {
        try {
            batch.delete(store.system, refKey(refId));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch delete failed", e);
        }
    }

    private void setWaiter(Waiter who, long untilMs, WriteBatch batch) {
        waiter = who;
        waiterUntilMs = untilMs;
        try {
            batch.put(store.system, TURN_KEY, ByteBuffer.allocate(9).put(who.code()).putLong(untilMs).array());
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
    }

    private static byte[] refKey(long refId) {
        return ByteBuffer.allocate(REF_PREFIX.length + 8).put(REF_PREFIX).putLong(refId).array();
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
