package io.cairn.storage;

import io.cairn.core.kv.KvView;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The view of one Raft entry being applied: reads see the writes made earlier in the same
 * entry (an overlay over RocksDB, kept per bucket so dropping one bucket does not walk the
 * others: a MOVE_BATCH entry may carry chunks of dozens of buckets), writes collect into one
 * WriteBatch, and the change of the key count is tracked so the count stays exact without scanning.
 * A write to a bucket being copied ahead of a move also marks its key as changed, in the same
 * batch, so the move sends exactly the keys written since its copy started.
 */
final class BatchView implements KvView {
    private static final byte[] DELETED = new byte[0];

    private final RocksStore store;
    private final WriteBatch batch;
    private final IntPredicate marksChanges;
    /** bucket -> data key -> value written by this entry ({@link #DELETED} for a delete). */
    private final Map<Integer, Map<ByteBuffer, byte[]>> overlay = new HashMap<>();
    private final Set<Integer> droppedBuckets = new HashSet<>();
    private long keyCountDelta;

    BatchView(RocksStore store, WriteBatch batch, IntPredicate marksChanges) {
        this.store = store;
        this.batch = batch;
        this.marksChanges = marksChanges;
    }

    long keyCountDelta() {
        return keyCountDelta;
    }

    @Override
    public byte[] get(int bucket, byte[] key) {
        byte[] dataKey = RocksStore.dataKey(bucket, key);
        Map<ByteBuffer, byte[]> written = overlay.get(bucket);
        byte[] local = written == null ? null : written.get(ByteBuffer.wrap(dataKey));
        if (local != null) return local == DELETED ? null : local;
        return droppedBuckets.contains(bucket) ? null : store.get(store.data, dataKey);
    }

    /** Buckets whose data this entry deletes as a whole; readers must not race with that write. */
    Set<Integer> droppedBuckets() {
        return droppedBuckets;
    }

    /** Deletes every key of {@code bucket} (one range tombstone), keeping the key count exact. */
    void dropBucket(int bucket) {
        if (marksChanges.test(bucket)) markEveryKeyChanged(bucket);
        long present = droppedBuckets.contains(bucket) ? 0 : store.countKeys(bucket);
        // Writes made earlier in this entry (e.g. another move command of the same MOVE_BATCH) change what is there now.
        Map<ByteBuffer, byte[]> written = overlay.remove(bucket);
        if (written != null) {
            for (var e : written.entrySet()) {
                boolean inStore = !droppedBuckets.contains(bucket) && store.get(store.data, e.getKey().array()) != null;
                present += (e.getValue() != DELETED ? 1 : 0) - (inStore ? 1 : 0);
            }
        }
        keyCountDelta -= present;
        droppedBuckets.add(bucket);
        try {
            batch.deleteRange(store.data, RocksStore.dataKey(bucket, new byte[0]), RocksStore.dataKey(bucket + 1, new byte[0]));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch delete range failed", e);
        }
    }

    private void markEveryKeyChanged(int bucket) {
        Map<ByteBuffer, byte[]> written = overlay.get(bucket);
        if (written != null) for (ByteBuffer dataKey : written.keySet()) markChanged(bucket, RocksStore.userKey(dataKey.array()));
        if (droppedBuckets.contains(bucket)) return;
        try (org.rocksdb.RocksIterator it = store.newIterator(store.data)) {
            for (it.seek(RocksStore.dataKey(bucket, new byte[0])); it.isValid() && RocksStore.bucketOf(it.key()) == bucket; it.next()) {
                markChanged(bucket, RocksStore.userKey(it.key()));
            }
        }
    }

    private void markChanged(int bucket, byte[] key) {
        try {
            batch.put(store.system, RocksStore.changedKey(bucket, key), DELETED);
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
    }


    /** Stamps {@code bucket}'s last write time (the entry's leader stamp), for `cairn bucket doubled`. */
    void stampLastWrite(int bucket, long stampMs) {
        try {
            batch.put(store.system, lastWriteKey(bucket), RocksStore.longKey(stampMs));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
    }

    private static final byte[] LAST_WRITE_PREFIX = RocksStore.bytes("last-write/");

    static byte[] lastWriteKey(int bucket) {
        return ByteBuffer.allocate(LAST_WRITE_PREFIX.length + 4).put(LAST_WRITE_PREFIX).putInt(bucket).array();
    }

    private Map<ByteBuffer, byte[]> written(int bucket) {
        return overlay.computeIfAbsent(bucket, b -> new HashMap<>());
    }

    @Override
    public void put(int bucket, byte[] key, byte[] stored) {
        replace(bucket, key, stored);
    }

    @Override
    public void delete(int bucket, byte[] key) {
        remove(bucket, key);
    }

    /** Stores {@code key}; returns the value it replaced, or null. */
    byte[] replace(int bucket, byte[] key, byte[] stored) {
        byte[] old = get(bucket, key);
        if (old == null) keyCountDelta++;
        byte[] dataKey = RocksStore.dataKey(bucket, key);
        written(bucket).put(ByteBuffer.wrap(dataKey), stored);
        try {
            batch.put(store.data, dataKey, stored);
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
        if (marksChanges.test(bucket)) markChanged(bucket, key);
        return old;
    }

    /** Deletes {@code key}; returns the value it had, or null (then nothing changes). */
    byte[] remove(int bucket, byte[] key) {
        byte[] old = get(bucket, key);
        if (old == null) return null;
        keyCountDelta--;
        byte[] dataKey = RocksStore.dataKey(bucket, key);
        written(bucket).put(ByteBuffer.wrap(dataKey), DELETED);
        try {
            batch.delete(store.data, dataKey);
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch delete failed", e);
        }
        if (marksChanges.test(bucket)) markChanged(bucket, key);
        return old;
    }
}
