package io.cairn.storage.state;

import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each bucket's last write: the leader stamp and the index of the entry that wrote it. WATCH versions
 * a bucket by the index, `cairn bucket doubled` and the archiver date a bucket by the stamp.
 *
 * <p>Held in memory and persisted as one record per entry that wrote (its index, its stamp, the buckets
 * it wrote) rather than one key per bucket written: every key is a memtable insert on every replica,
 * and one per bucket per entry cost about a quarter of a replicated SET's CPU (docs/benchmarks.md,
 * "The bucket stamp"). Once the records outnumber the buckets stamped (and at least
 * {@link #MIN_RECORDS_BEFORE_FOLD}), an entry folds them into one base record, so a member loads at
 * most about twice as many records as buckets. What is in memory follows from the replicated state
 * alone: the same on every replica at the same applied index, after a restart, a snapshot install or a
 * restore. Memory changes only after the entry's batch is written, so a reader never sees a stamp
 * newer than the data it describes (a WATCH read may see an older version: EXEC then fails, safely).
 *
 * <pre>
 * system CF  stamp-log/[index:8]   -> [stampMs:8][bucket:4]...   one per entry that wrote
 *            stamp-base            -> ([bucket:4][stampMs:8][index:8])...
 *            last-write/[bucket:4] -> [stampMs:8][index:8]      as written before; folded in, then deleted
 * </pre>
 */
final class BucketStamps {
    /** A bucket's last write. */
    record Stamp(long ms, long index) {}

    static final int MIN_RECORDS_BEFORE_FOLD = 4096;
    private static final byte[] LOG_PREFIX = RocksStore.bytes("stamp-log/");
    private static final byte[] BASE_KEY = RocksStore.bytes("stamp-base");
    private static final byte[] LEGACY_PREFIX = RocksStore.bytes("last-write/");

    private final RocksStore store;
    private final Map<Integer, Stamp> stamps = new ConcurrentHashMap<>();
    /** Keys of the records written since the last fold (and of legacy keys not yet folded in), deleted by the next fold. */
    private final List<byte[]> unfolded = new ArrayList<>();
    private Collection<Integer> pendingBuckets = List.of();
    private Stamp pending;

    BucketStamps(RocksStore store) {
        this.store = store;
        forEachWithPrefix(LEGACY_PREFIX, (key, value) -> {
            ByteBuffer v = ByteBuffer.wrap(value);
            stamps.put(ByteBuffer.wrap(key, LEGACY_PREFIX.length, 4).getInt(), new Stamp(v.getLong(), v.remaining() >= 8 ? v.getLong() : 0));
            unfolded.add(key);
        });
        byte[] base = store.get(store.system, BASE_KEY);
        if (base != null) {
            for (ByteBuffer b = ByteBuffer.wrap(base); b.remaining() >= 20; ) stamps.put(b.getInt(), new Stamp(b.getLong(), b.getLong()));
        }
        // big-endian indexes: the records come in log order, so a later write wins
        forEachWithPrefix(LOG_PREFIX, (key, value) -> {
            long index = ByteBuffer.wrap(key, LOG_PREFIX.length, 8).getLong();
            ByteBuffer v = ByteBuffer.wrap(value);
            Stamp stamp = new Stamp(v.getLong(), index);
            while (v.remaining() >= 4) stamps.put(v.getInt(), stamp);
            unfolded.add(key);
        });
    }

    /** {@code bucket}'s last write, or null when none was recorded here. */
    Stamp of(int bucket) {
        return stamps.get(bucket);
    }

    /**
     * Adds to {@code batch} that the entry at {@code index}, stamped {@code ms}, wrote {@code buckets};
     * memory follows once the batch is written ({@link #written}).
     */
    void record(WriteBatch batch, Collection<Integer> buckets, long ms, long index) {
        pendingBuckets = buckets;
        pending = new Stamp(ms, index);
        try {
            if (unfolded.size() < Math.max(MIN_RECORDS_BEFORE_FOLD, stamps.size())) {
                ByteBuffer v = ByteBuffer.allocate(8 + 4 * buckets.size()).putLong(ms);
                for (int bucket : buckets) v.putInt(bucket);
                byte[] key = logKey(index);
                batch.put(store.system, key, v.array());
                unfolded.add(key);
                return;
            }
            Map<Integer, Stamp> folded = new TreeMap<>(stamps);
            for (int bucket : buckets) folded.put(bucket, pending);
            ByteBuffer base = ByteBuffer.allocate(20 * folded.size());
            folded.forEach((bucket, s) -> base.putInt(bucket).putLong(s.ms()).putLong(s.index()));
            batch.put(store.system, BASE_KEY, base.array());
            for (byte[] key : unfolded) batch.delete(store.system, key);
            unfolded.clear();
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
    }

    /** The batch holding the last {@link #record} was written: memory takes its stamps. */
    void written() {
        if (pending == null) return;
        for (int bucket : pendingBuckets) stamps.put(bucket, pending);
        pending = null;
        pendingBuckets = List.of();
    }

    private static byte[] logKey(long index) {
        return ByteBuffer.allocate(LOG_PREFIX.length + 8).put(LOG_PREFIX).putLong(index).array();
    }

    private interface KeyValue {
        void accept(byte[] key, byte[] value);
    }

    private void forEachWithPrefix(byte[] prefix, KeyValue visitor) {
        try (StoreIterator it = store.newIterator(store.system)) {
            for (it.seek(prefix); it.isValid(); it.next()) {
                byte[] key = it.key();
                if (key.length < prefix.length || !Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) break;
                visitor.accept(key, it.value());
            }
        }
    }
}
