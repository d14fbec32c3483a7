package io.cairn.storage.rocks;

import io.cairn.core.kv.KvView;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * The view of one Raft entry being applied: reads see the writes made earlier in the same
 * entry (an overlay over RocksDB, kept per bucket so dropping one bucket does not walk the
 * others: a MOVE_BATCH entry may carry chunks of dozens of buckets), writes collect into one
 * WriteBatch, and the change of the key count is tracked so the count stays exact without scanning.
 * A write to a bucket being copied ahead of a move also marks its key as changed, in the same
 * batch, so the move sends exactly the keys written since its copy started.
 *
 * <p>Hash fields ({@link io.cairn.core.kv.HashMeta}) have an overlay of their own, and a write to
 * a field marks its key as changed, so a move sends the whole hash again. A big hash is cleared
 * by one range tombstone over its key's field prefix (a small one field by field, since every
 * range tombstone in the memtable slows each new iterator); reads then skip the stored fields.
 */
public final class BatchView implements KvView {
    private static final byte[] DELETED = new byte[0];

    private final RocksStore store;
    private final WriteBatch batch;
    private final IntPredicate marksChanges;
    /** bucket -> data key -> value written by this entry ({@link #DELETED} for a delete). */
    private final Map<Integer, Map<ByteBuffer, byte[]>> overlay = new HashMap<>();
    private final Set<Integer> droppedBuckets = new HashSet<>();
    /** bucket -> field key -> value written by this entry ({@link #DELETED} for a delete). */
    private final Map<Integer, Map<ByteBuffer, byte[]>> fieldOverlay = new HashMap<>();
    /** Field prefixes of keys range-cleared by this entry: stored fields under them are gone. */
    private final Set<ByteBuffer> clearedPrefixes = new HashSet<>();
    /** A hash with more fields than this is cleared by one range tombstone instead of point deletes. */
    static final int POINT_CLEAR_MAX_FIELDS = 64;
    private long keyCountDelta;
    private final Set<Integer> stamped = new LinkedHashSet<>();
    /**
     * The last data key read from RocksDB in this entry and what it held: an applier reads a key and
     * then writes it (SET, INCR, APPEND), and the write needs the old value again for the key count.
     * RocksDB does not change while an entry applies, so the second read would find the same.
     */
    private byte[] lastReadKey;
    private byte[] lastReadValue;

    public BatchView(RocksStore store, WriteBatch batch, IntPredicate marksChanges) {
        this.store = store;
        this.batch = batch;
        this.marksChanges = marksChanges;
    }

    public long keyCountDelta() {
        return keyCountDelta;
    }

    @Override
    public byte[] get(int bucket, byte[] key) {
        byte[] dataKey = RocksStore.dataKey(bucket, key);
        Map<ByteBuffer, byte[]> written = overlay.get(bucket);
        byte[] local = written == null ? null : written.get(ByteBuffer.wrap(dataKey));
        if (local != null) return local == DELETED ? null : local;
        if (droppedBuckets.contains(bucket)) return null;
        if (!Arrays.equals(dataKey, lastReadKey)) {
            lastReadValue = store.get(store.data, dataKey);
            lastReadKey = dataKey;
        }
        return lastReadValue;
    }

    /** Buckets whose data this entry deletes as a whole; readers must not race with that write. */
    public Set<Integer> droppedBuckets() {
        return droppedBuckets;
    }

    /** Deletes every key of {@code bucket} (one range tombstone), keeping the key count exact. */
    public void dropBucket(int bucket) {
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
        fieldOverlay.remove(bucket);
        try {
            batch.deleteRange(store.data, RocksStore.dataKey(bucket, new byte[0]), RocksStore.dataKey(bucket + 1, new byte[0]));
            // Field keys start with the same 4-byte bucket, so the same bounds cover them.
            batch.deleteRange(store.fields, RocksStore.dataKey(bucket, new byte[0]), RocksStore.dataKey(bucket + 1, new byte[0]));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch delete range failed", e);
        }
    }

    private void markEveryKeyChanged(int bucket) {
        Map<ByteBuffer, byte[]> written = overlay.get(bucket);
        if (written != null) for (ByteBuffer dataKey : written.keySet()) markChanged(bucket, RocksStore.userKey(dataKey.array()));
        if (droppedBuckets.contains(bucket)) return;
        try (StoreIterator it = store.newIterator(store.data)) {
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


    /** Notes that this entry wrote {@code bucket}: its last-write stamp moves to the entry's ({@code ReplicasetState}'s bucket stamps). */
    public void stampLastWrite(int bucket) {
        stamped.add(bucket);
    }

    /** The buckets this entry wrote, in the order first written. */
    public Set<Integer> stamped() {
        return stamped;
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
    public byte[] replace(int bucket, byte[] key, byte[] stored) {
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
    public byte[] remove(int bucket, byte[] key) {
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

    @Override
    public byte[] getField(int bucket, byte[] key, byte[] field) {
        byte[] fieldKey = RocksStore.fieldKey(bucket, key, field);
        Map<ByteBuffer, byte[]> written = fieldOverlay.get(bucket);
        byte[] local = written == null ? null : written.get(ByteBuffer.wrap(fieldKey));
        if (local != null) return local == DELETED ? null : local;
        if (droppedBuckets.contains(bucket) || clearedPrefixes.contains(ByteBuffer.wrap(RocksStore.fieldPrefix(bucket, key)))) return null;
        return store.get(store.fields, fieldKey);
    }

    @Override
    public void putField(int bucket, byte[] key, byte[] field, byte[] value) {
        byte[] fieldKey = RocksStore.fieldKey(bucket, key, field);
        fieldOverlay.computeIfAbsent(bucket, b -> new HashMap<>()).put(ByteBuffer.wrap(fieldKey), value);
        try {
            batch.put(store.fields, fieldKey, value);
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
        if (marksChanges.test(bucket)) markChanged(bucket, key);
    }

    @Override
    public void deleteField(int bucket, byte[] key, byte[] field) {
        byte[] fieldKey = RocksStore.fieldKey(bucket, key, field);
        fieldOverlay.computeIfAbsent(bucket, b -> new HashMap<>()).put(ByteBuffer.wrap(fieldKey), DELETED);
        try {
            batch.delete(store.fields, fieldKey);
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch delete failed", e);
        }
        if (marksChanges.test(bucket)) markChanged(bucket, key);
    }

    @Override
    public void clearFields(int bucket, byte[] key, long fieldCount) {
        if (fieldCount <= POINT_CLEAR_MAX_FIELDS) {
            for (Field f : fields(bucket, key)) deleteField(bucket, key, f.name());
            return;
        }
        byte[] prefix = RocksStore.fieldPrefix(bucket, key);
        Map<ByteBuffer, byte[]> written = fieldOverlay.get(bucket);
        if (written != null) written.keySet().removeIf(k -> startsWith(k.array(), prefix));
        clearedPrefixes.add(ByteBuffer.wrap(prefix));
        try {
            batch.deleteRange(store.fields, prefix, RocksStore.prefixEnd(prefix));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch delete range failed", e);
        }
        if (marksChanges.test(bucket)) markChanged(bucket, key);
    }

    @Override
    public List<Field> fields(int bucket, byte[] key) {
        byte[] prefix = RocksStore.fieldPrefix(bucket, key);
        TreeMap<byte[], byte[]> merged = new TreeMap<>(Arrays::compareUnsigned);
        if (!droppedBuckets.contains(bucket) && !clearedPrefixes.contains(ByteBuffer.wrap(prefix))) {
            for (Field f : store.fields(bucket, key)) merged.put(f.name(), f.value());
        }
        Map<ByteBuffer, byte[]> written = fieldOverlay.get(bucket);
        if (written != null) {
            for (var e : written.entrySet()) {
                byte[] k = e.getKey().array();
                if (!startsWith(k, prefix)) continue;
                byte[] name = Arrays.copyOfRange(k, prefix.length, k.length);
                if (e.getValue() == DELETED) merged.remove(name);
                else merged.put(name, e.getValue());
            }
        }
        List<Field> out = new ArrayList<>(merged.size());
        merged.forEach((name, value) -> out.add(new Field(name, value)));
        return out;
    }

    /**
     * A page of a collection's entries: straight from RocksDB (a skip, not a copy of the whole
     * collection) when this entry has not written under the key's prefix; merged otherwise.
     */
    @Override
    public List<Field> fields(int bucket, byte[] key, long offset, int limit) {
        if (touched(bucket, key)) return KvView.super.fields(bucket, key, offset, limit);
        try (ReadOptions latest = new ReadOptions()) {
            return store.fields(bucket, key, offset, limit, latest);
        }
    }

    /**
     * The first {@code limit} entries at or after {@code from}: a seek in RocksDB for that many,
     * passing over what this entry deleted under the key, merged with this entry's own writes.
     */
    @Override
    public List<Field> fieldsFrom(int bucket, byte[] key, byte[] from, int limit) {
        byte[] prefix = RocksStore.fieldPrefix(bucket, key);
        boolean storeGone = droppedBuckets.contains(bucket) || clearedPrefixes.contains(ByteBuffer.wrap(prefix));
        TreeMap<byte[], byte[]> merged = new TreeMap<>(Arrays::compareUnsigned);
        List<Map.Entry<ByteBuffer, byte[]>> own = new ArrayList<>();
        Set<ByteBuffer> deleted = new HashSet<>();
        Map<ByteBuffer, byte[]> written = fieldOverlay.get(bucket);
        if (written != null) {
            for (var e : written.entrySet()) {
                byte[] k = e.getKey().array();
                if (!startsWith(k, prefix)) continue;
                own.add(e);
                if (e.getValue() == DELETED) deleted.add(ByteBuffer.wrap(Arrays.copyOfRange(k, prefix.length, k.length)));
            }
        }
        if (!storeGone) {
            // a many-pop entry (SPOP, ZPOPMIN) must not read past every member it already took, each time
            try (ReadOptions latest = new ReadOptions()) {
                for (Field f : store.fieldsFrom(bucket, key, from, limit, name -> deleted.contains(ByteBuffer.wrap(name)), latest)) {
                    merged.put(f.name(), f.value());
                }
            }
        }
        for (var e : own) {
            byte[] k = e.getKey().array();
            byte[] name = Arrays.copyOfRange(k, prefix.length, k.length);
            if (Arrays.compareUnsigned(name, from) < 0) continue;
            if (e.getValue() == DELETED) merged.remove(name);
            else merged.put(name, e.getValue());
        }
        List<Field> out = new ArrayList<>(Math.min(limit, merged.size()));
        for (var e : merged.entrySet()) {
            if (out.size() >= limit) break;
            out.add(new Field(e.getKey(), e.getValue()));
        }
        return out;
    }

    /** The last entry of {@code key}: this entry's own writes against a seek from the end in RocksDB, skipping what it deleted. */
    @Override
    public Field lastField(int bucket, byte[] key) {
        byte[] prefix = RocksStore.fieldPrefix(bucket, key);
        Set<ByteBuffer> deleted = new HashSet<>();
        Field last = null;
        Map<ByteBuffer, byte[]> written = fieldOverlay.get(bucket);
        if (written != null) {
            for (var e : written.entrySet()) {
                byte[] k = e.getKey().array();
                if (!startsWith(k, prefix)) continue;
                byte[] name = Arrays.copyOfRange(k, prefix.length, k.length);
                if (e.getValue() == DELETED) deleted.add(ByteBuffer.wrap(name));
                else if (last == null || Arrays.compareUnsigned(name, last.name()) > 0) last = new Field(name, e.getValue());
            }
        }
        if (droppedBuckets.contains(bucket) || clearedPrefixes.contains(ByteBuffer.wrap(prefix))) return last;
        Field stored;
        try (ReadOptions latest = new ReadOptions()) {
            stored = store.lastField(bucket, key, name -> deleted.contains(ByteBuffer.wrap(name)), latest);
        }
        return stored != null && (last == null || Arrays.compareUnsigned(stored.name(), last.name()) > 0) ? stored : last;
    }

    /** Whether this entry wrote, deleted or cleared anything under {@code key}'s field prefix (or dropped its bucket). */
    private boolean touched(int bucket, byte[] key) {
        byte[] prefix = RocksStore.fieldPrefix(bucket, key);
        if (droppedBuckets.contains(bucket) || clearedPrefixes.contains(ByteBuffer.wrap(prefix))) return true;
        Map<ByteBuffer, byte[]> written = fieldOverlay.get(bucket);
        return written != null && written.keySet().stream().anyMatch(k -> startsWith(k.array(), prefix));
    }

    private static boolean startsWith(byte[] k, byte[] prefix) {
        return k.length >= prefix.length && Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length);
    }
}
