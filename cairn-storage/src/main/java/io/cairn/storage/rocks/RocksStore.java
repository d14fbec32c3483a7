package io.cairn.storage.rocks;

import io.cairn.core.BucketRecord;
import io.cairn.core.kv.KvView;
import io.cairn.core.wire.DiscoveryPage;
import org.rocksdb.AbstractImmutableNativeReference;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Snapshot;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The RocksDB instance of one storage node. Column families:
 * <ul>
 *   <li>{@code data}: [bucket:4][user key] -> stored value; one bucket is one contiguous range,
 *       so a bucket can be exported, counted or deleted as a range.</li>
 *   <li>{@code buckets}: [bucket:4] -> bucket record.</li>
 *   <li>{@code bsn}: [bsn:8] -> bucket record (a copy), the index discovery reads in BSN order
 *       (databases written before it held copies have [bucket:4] values, still read).</li>
 *   <li>{@code history}: [bsn:8] -> [history hash:8][leader stamp ms:8], one entry per BSN handed
 *       out, above the tombstone horizon ({@link io.cairn.storage.state.BucketHistory}).</li>
 *   <li>{@code fields}: [bucket:4][key length:4][user key][field] -> value, the fields of hashes
 *       ({@link io.cairn.core.kv.HashMeta}); the bucket prefix keeps them inside the bucket's range.</li>
 *   <li>default: system values (applied index, last BSN, key count, incarnation, horizon).</li>
 * </ul>
 * Every Raft entry is applied as one atomic WriteBatch that also records the applied index,
 * so after a crash the database is a consistent prefix of the log and Ratis replays the rest.
 * Not thread-safe for writes: only the state machine's apply thread writes.
 */
public final class RocksStore implements AutoCloseable {
    public static final byte[] APPLIED_INDEX = bytes("applied-index");
    public static final byte[] APPLIED_TERM = bytes("applied-term");
    public static final byte[] LAST_BSN = bytes("last-bsn");
    public static final byte[] KEY_COUNT = bytes("key-count");
    public static final byte[] INCARNATION = bytes("incarnation");
    public static final byte[] BOOTSTRAPPED = bytes("bootstrapped");
    public static final byte[] HISTORY_HASH = bytes("history-hash");
    public static final byte[] HORIZON_BSN = bytes("horizon-bsn");

    static {
        RocksDB.loadLibrary();
    }

    private static final Logger LOG = LoggerFactory.getLogger(RocksStore.class);

    private final Path dir;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();
    private final RocksDB db;
    public final ColumnFamilyHandle system;
    public final ColumnFamilyHandle data;
    public final ColumnFamilyHandle buckets;
    public final ColumnFamilyHandle bsnIndex;
    public final ColumnFamilyHandle history;
    public final ColumnFamilyHandle fields;
    private final WriteOptions writeOptions = new WriteOptions();
    /** Calls into the database under way (see {@link #enter}); the close waits for them. */
    private final LongAdder inUse = new LongAdder();
    private volatile boolean closing;
    private final Set<StoreIterator> openIterators = ConcurrentHashMap.newKeySet();
    static final int MAX_MEMTABLE_RANGE_DELETIONS = 64;

    public RocksStore(Path dir) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir);
        dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
                .setAtomicFlush(true).setMaxOpenFiles(256).setKeepLogFileNum(2).setInfoLogLevel(InfoLogLevel.WARN_LEVEL);
        // Each dropped bucket is one range tombstone; while many sit in the mutable memtable every
        // new iterator (chunk reads, key counts) pays for all of them (seconds per entry after a
        // rebalance there and back), so the memtable is flushed after MAX_MEMTABLE_RANGE_DELETIONS.
        cfOptions = new ColumnFamilyOptions().setWriteBufferSize(32L << 20).setMemtableMaxRangeDeletions(MAX_MEMTABLE_RANGE_DELETIONS);
        List<ColumnFamilyDescriptor> descriptors = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
                new ColumnFamilyDescriptor(bytes("data"), cfOptions),
                new ColumnFamilyDescriptor(bytes("buckets"), cfOptions),
                new ColumnFamilyDescriptor(bytes("bsn"), cfOptions),
                new ColumnFamilyDescriptor(bytes("history"), cfOptions),
                new ColumnFamilyDescriptor(bytes("fields"), cfOptions));
        try {
            db = RocksDB.open(dbOptions, dir.toString(), descriptors, handles);
        } catch (RocksDBException e) {
            throw new IOException("cannot open RocksDB at " + dir + ": " + e.getMessage(), e);
        }
        system = handles.get(0);
        data = handles.get(1);
        buckets = handles.get(2);
        bsnIndex = handles.get(3);
        history = handles.get(4);
        fields = handles.get(5);
    }

    Path dir() {
        return dir;
    }

    public byte[] get(ColumnFamilyHandle cf, byte[] key) {
        enter();
        try {
            return db.get(cf, key);
        } catch (RocksDBException e) {
            throw new StorageFailure("read failed", e);
        } finally {
            exit();
        }
    }

    public long getLong(byte[] key) {
        byte[] v = get(system, key);
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    public byte[] get(ColumnFamilyHandle cf, byte[] key, ReadOptions options) {
        enter();
        try {
            return db.get(cf, options, key);
        } catch (RocksDBException e) {
            throw new StorageFailure("read failed", e);
        } finally {
            exit();
        }
    }

    public long getLong(byte[] key, ReadOptions options) {
        byte[] v = get(system, key, options);
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    /** Runs {@code reader} against one consistent snapshot, so it sees no half of a later batch. */
    public <T> T consistent(Function<ReadOptions, T> reader) {
        enter(); // held throughout: the snapshot must be released before the database closes
        try {
            Snapshot snapshot = db.getSnapshot();
            try (ReadOptions options = new ReadOptions().setSnapshot(snapshot)) {
                return reader.apply(options);
            } finally {
                db.releaseSnapshot(snapshot);
            }
        } finally {
            exit();
        }
    }

    public void write(WriteBatch batch) {
        enter();
        try {
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new StorageFailure("write failed", e);
        } finally {
            exit();
        }
    }

    BucketRecord bucket(int id) {
        byte[] v = get(buckets, bucketKey(id));
        return v == null ? null : DiscoveryPage.decodeRecord(ByteBuffer.wrap(v));
    }

    /** Every bucket record, in id order. */
    public List<BucketRecord> allBuckets() {
        try (ReadOptions latest = new ReadOptions()) {
            return allBuckets(latest);
        }
    }

    public List<BucketRecord> allBuckets(ReadOptions options) {
        List<BucketRecord> out = new ArrayList<>();
        try (StoreIterator it = newIterator(buckets, options)) {
            for (it.seekToFirst(); it.isValid(); it.next()) out.add(DiscoveryPage.decodeRecord(ByteBuffer.wrap(it.value())));
        }
        return out;
    }

    /** Records whose BSN is greater than {@code afterBsn}, in BSN order, at most {@code limit}. */
    public List<BucketRecord> bucketsAfter(long afterBsn, int limit, ReadOptions options) {
        List<BucketRecord> out = new ArrayList<>();
        try (StoreIterator it = newIterator(bsnIndex, options)) {
            for (it.seek(longKey(afterBsn + 1)); it.isValid() && out.size() < limit; it.next()) {
                byte[] v = it.value();
                if (v.length == 4) v = get(buckets, v, options); // written before the index held whole records
                if (v != null) out.add(DiscoveryPage.decodeRecord(ByteBuffer.wrap(v)));
            }
        }
        return out;
    }

    /** Keys stored in {@code bucket} (walks its range). */
    public long countKeys(int bucket) {
        try (ReadOptions latest = new ReadOptions()) {
            return countKeys(bucket, latest);
        }
    }

    public long countKeys(int bucket, ReadOptions options) {
        long n = 0;
        try (StoreIterator it = newIterator(data, options)) {
            for (it.seek(dataKey(bucket, new byte[0])); it.isValid() && bucketOf(it.key()) == bucket; it.next()) n++;
        }
        return n;
    }

    public static int bucketOf(byte[] dataKey) {
        return ByteBuffer.wrap(dataKey).getInt();
    }

    /** The caller must close the iterator. */
    public StoreIterator newIterator(ColumnFamilyHandle cf) {
        return newIterator(cf, null);
    }

    /** {@code options} null: RocksDB's defaults (the latest data). */
    public StoreIterator newIterator(ColumnFamilyHandle cf, ReadOptions options) {
        enter();
        try {
            StoreIterator it = new StoreIterator(this, options == null ? db.newIterator(cf) : db.newIterator(cf, options));
            openIterators.add(it);
            return it;
        } finally {
            exit();
        }
    }

    /** Whether {@code it} was still open here (its native part is then the caller's to free). */
    boolean forget(StoreIterator it) {
        return openIterators.remove(it);
    }

    /**
     * Marks a call into the database, refused once the store is closing. A member installing a snapshot
     * closes its database while other threads may read it (admin, timers, follower reads): without this,
     * a read after the close touches freed native memory and kills the process.
     */
    void enter() {
        inUse.increment();
        if (closing) {
            inUse.decrement();
            throw new StorageFailure("the database at " + dir + " is closed (replaced by a snapshot, or the node is stopping)", null);
        }
    }

    void exit() {
        inUse.decrement();
    }

    /** Every field of {@code key}'s hash as stored, in field order. */
    public List<KvView.Field> fields(int bucket, byte[] key, ReadOptions options) {
        byte[] prefix = fieldPrefix(bucket, key);
        List<KvView.Field> out = new ArrayList<>();
        try (StoreIterator it = newIterator(fields, options)) {
            for (it.seek(prefix); it.isValid(); it.next()) {
                byte[] k = it.key();
                if (k.length < prefix.length || !Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length)) break;
                out.add(new KvView.Field(Arrays.copyOfRange(k, prefix.length, k.length), it.value()));
            }
        }
        return out;
    }

    /** At most {@code limit} fields of {@code key} from position {@code offset}: the ones before are skipped, not copied. */
    public List<KvView.Field> fields(int bucket, byte[] key, long offset, int limit, ReadOptions options) {
        byte[] prefix = fieldPrefix(bucket, key);
        List<KvView.Field> out = new ArrayList<>();
        long skipped = 0;
        try (StoreIterator it = newIterator(fields, options)) {
            for (it.seek(prefix); it.isValid() && out.size() < limit; it.next()) {
                byte[] k = it.key();
                if (k.length < prefix.length || !Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length)) break;
                if (skipped++ < offset) continue;
                out.add(new KvView.Field(Arrays.copyOfRange(k, prefix.length, k.length), it.value()));
            }
        }
        return out;
    }

    /** At most {@code limit} fields of {@code key} from the first whose name is at or after {@code from}: one seek. */
    public List<KvView.Field> fieldsFrom(int bucket, byte[] key, byte[] from, int limit, ReadOptions options) {
        return fieldsFrom(bucket, key, from, limit, name -> false, options);
    }

    /** The same, passing over the names {@code skip} accepts (this entry deleted them) without counting them. */
    public List<KvView.Field> fieldsFrom(int bucket, byte[] key, byte[] from, int limit, Predicate<byte[]> skip, ReadOptions options) {
        byte[] prefix = fieldPrefix(bucket, key);
        List<KvView.Field> out = new ArrayList<>();
        try (StoreIterator it = newIterator(fields, options)) {
            for (it.seek(fieldKey(bucket, key, from)); it.isValid() && out.size() < limit; it.next()) {
                byte[] k = it.key();
                if (k.length < prefix.length || !Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length)) break;
                byte[] name = Arrays.copyOfRange(k, prefix.length, k.length);
                if (!skip.test(name)) out.add(new KvView.Field(name, it.value()));
            }
        }
        return out;
    }

    /** The last field of {@code key} stored whose name is not in {@code skip} (names this entry deleted), or null. */
    KvView.Field lastField(int bucket, byte[] key, Predicate<byte[]> skip, ReadOptions options) {
        byte[] prefix = fieldPrefix(bucket, key);
        byte[] end = fieldPrefix(bucket, key);
        // the prefix ends with the key's last byte; the first key after every field of this key is the prefix + 1
        int i = end.length - 1;
        while (i >= 0 && end[i] == (byte) 0xFF) end[i--] = 0;
        if (i < 0) return null;
        end[i]++;
        try (StoreIterator it = newIterator(fields, options)) {
            for (it.seekForPrev(end); it.isValid(); it.prev()) {
                byte[] k = it.key();
                if (Arrays.equals(k, end)) continue;
                if (k.length < prefix.length || !Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length)) return null;
                byte[] name = Arrays.copyOfRange(k, prefix.length, k.length);
                if (!skip.test(name)) return new KvView.Field(name, it.value());
            }
        }
        return null;
    }

    public List<KvView.Field> fields(int bucket, byte[] key) {
        try (ReadOptions latest = new ReadOptions()) {
            return fields(bucket, key, latest);
        }
    }

    /** The common prefix of the fields of {@code key}: its length is in it, so no other key's fields share it. */
    static byte[] fieldPrefix(int bucket, byte[] key) {
        return ByteBuffer.allocate(8 + key.length).putInt(bucket).putInt(key.length).put(key).array();
    }

    static byte[] fieldKey(int bucket, byte[] key, byte[] field) {
        return ByteBuffer.allocate(8 + key.length + field.length).putInt(bucket).putInt(key.length).put(key).put(field).array();
    }

    /** The smallest key greater than every key starting with {@code prefix} (the end of its range). */
    static byte[] prefixEnd(byte[] prefix) {
        byte[] end = prefix.clone();
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xff) {
                end[i]++;
                return Arrays.copyOf(end, i + 1);
            }
        }
        throw new IllegalArgumentException("a prefix of 0xff bytes has no end");
    }

    /** A consistent on-disk copy made of hard links (cheap); the target must not exist. */
    public void checkpoint(Path target) {
        enter();
        try (Checkpoint cp = Checkpoint.create(db)) {
            db.flushWal(true);
            cp.createCheckpoint(target.toString());
        } catch (RocksDBException e) {
            throw new StorageFailure("checkpoint to " + target + " failed", e);
        } finally {
            exit();
        }
    }

    /** Refuses new calls, waits for those under way, frees the iterators left open, then closes the database. */
    @Override
    public void close() {
        closing = true;
        long waitedFrom = System.nanoTime();
        long warnedAt = waitedFrom;
        while (inUse.sum() != 0) {
            LockSupport.parkNanos(100_000);
            if (System.nanoTime() - warnedAt > TimeUnit.SECONDS.toNanos(10)) {
                warnedAt = System.nanoTime();
                LOG.warn("closing the database at {}: still waiting for calls under way after {} s", dir,
                        TimeUnit.NANOSECONDS.toSeconds(warnedAt - waitedFrom));
            }
        }
        for (StoreIterator it : openIterators) it.closeNative();
        openIterators.clear();
        handles.forEach(AbstractImmutableNativeReference::close);
        db.close();
        writeOptions.close();
        cfOptions.close();
        dbOptions.close();
    }

    public static byte[] dataKey(int bucket, byte[] key) {
        return ByteBuffer.allocate(4 + key.length).putInt(bucket).put(key).array();
    }

    private static final byte[] CHANGED_PREFIX = bytes("changed/");

    /** System key marking {@code key} of a copied-ahead bucket as written since its copy started. */
    public static byte[] changedKey(int bucket, byte[] key) {
        return ByteBuffer.allocate(CHANGED_PREFIX.length + 4 + key.length).put(CHANGED_PREFIX).putInt(bucket).put(key).array();
    }

    /**
     * The keys of {@code bucket} marked as changed, in order, after {@code afterKey} (empty: from
     * the start), while {@code visitor} returns true.
     */
    public void forEachChanged(int bucket, byte[] afterKey, Predicate<byte[]> visitor) {
        byte[] prefix = changedKey(bucket, new byte[0]);
        try (StoreIterator it = newIterator(system)) {
            for (it.seek(changedKey(bucket, afterKey)); it.isValid(); it.next()) {
                byte[] k = it.key();
                if (k.length < prefix.length || !Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length)) return;
                byte[] key = Arrays.copyOfRange(k, prefix.length, k.length);
                if (afterKey.length > 0 && Arrays.equals(key, afterKey)) continue;
                if (!visitor.test(key)) return;
            }
        }
    }

    /** The user key of a data key (its bucket prefix cut off). */
    public static byte[] userKey(byte[] dataKey) {
        return Arrays.copyOfRange(dataKey, 4, dataKey.length);
    }

    public static byte[] bucketKey(int bucket) {
        return ByteBuffer.allocate(4).putInt(bucket).array();
    }

    public static byte[] longKey(long value) {
        return ByteBuffer.allocate(8).putLong(value).array();
    }

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** RocksDB failed underneath us (the node cannot continue applying safely), or the database was closed. */
    public static final class StorageFailure extends RuntimeException {
        public StorageFailure(String message, Throwable cause) {
            super(cause == null ? message : message + ": " + cause.getMessage(), cause);
        }
    }
}
