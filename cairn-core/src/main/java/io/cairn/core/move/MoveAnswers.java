package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.core.move.MoveQuery.BucketReport;
import io.cairn.core.move.MoveQuery.ChangesPage;
import io.cairn.core.move.MoveQuery.ChunkPage;
import io.cairn.core.move.MoveQuery.ExportChunk;
import io.cairn.core.move.MoveQuery.ReadChanges;
import io.cairn.core.move.MoveQuery.ReadChunk;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * How a replicaset leader answers the move driver's read-only questions ({@link MoveQuery}), in
 * one place for every store: a storage member's RocksDB and the simulator's in-memory replicaset
 * both implement {@link BucketData} and answer through these methods, so the simulator checks the
 * rules production runs (which records allow a read, how pages are bounded, what a changed key
 * that is gone looks like, what the last page of changes carries).
 *
 * <p>A SENDING bucket refuses writes, so the chunks read from it are a stable picture of its data.
 * Chunks read while a bucket is copied ahead may be outdated by later writes; those writes mark
 * their keys, and the changed keys are read again once it is SENDING. A collection bigger than a page's bound
 * travels in {@link io.cairn.core.kv.MovePiece}s, the driver's cursor ({@code afterElement}) then pointing inside it.
 */
public final class MoveAnswers {
    /** Bounds of one export page, whatever the caller asks. */
    static final int MAX_EXPORT_KEYS = 10_000;
    static final int MAX_EXPORT_BYTES = 16 << 20;

    private MoveAnswers() {}

    /** What the answers read from a replicaset's state. Keys are compared as unsigned bytes. */
    public interface BucketData {
        BucketRecord record(int bucket);

        Iterable<BucketRecord> records();

        /**
         * Visits {@code bucket}'s keys after {@code afterKey} (empty: from the first), in key order,
         * each in its move form (a collection with its elements); stops when {@code visitor} says false.
         */
        void forEachEntry(int bucket, byte[] afterKey, Predicate<ChunkEntry> visitor);

        /**
         * Visits {@code bucket}'s keys after {@code afterKey} with their records as {@link #part} takes them (a store that
         * splits collections gives a collection's metadata only), in key order, until false.
         */
        default void forEachRecord(int bucket, byte[] afterKey, BiPredicate<byte[], byte[]> visitor) {
            forEachEntry(bucket, afterKey, e -> visitor.test(e.key(), e.stored()));
        }

        /** {@code key}'s record as {@link #forEachRecord} gives it, or null when absent. */
        default byte[] record(int bucket, byte[] key) {
            return moveForm(bucket, key);
        }

        /**
         * What a page with {@code budgetBytes} left sends of {@code key} ({@code stored} its record): the whole move
         * form when it fits and {@code afterElement} is empty, else the next {@link io.cairn.core.kv.MovePiece} after
         * {@code afterElement}. A store whose records are already move forms sends them whole.
         */
        default ChunkEntry part(int bucket, byte[] key, byte[] stored, byte[] afterElement, int budgetBytes) {
            return new ChunkEntry(key, stored);
        }

        /** The CRC of {@code key}'s whole move form ({@link ChunkEntry#crc()}), {@code stored} its record. */
        default long crc(int bucket, byte[] key, byte[] stored) {
            return new ChunkEntry(key, stored).crc();
        }

        /** Visits the keys marked changed during {@code bucket}'s copy ahead after {@code afterKey}, in key order, until false. */
        void forEachChanged(int bucket, byte[] afterKey, Predicate<byte[]> visitor);

        /** {@code key}'s move form as stored now, or null when it is absent. */
        byte[] moveForm(int bucket, byte[] key);

        /** Keys stored in {@code bucket}. */
        long countKeys(int bucket);

        /** The stamp of the last entry that wrote to {@code bucket}, or -1. */
        long lastWriteMs(int bucket);
    }

    /** The next keys of a SENDING (or copied-ahead) bucket; a refusal names the record when it allows no read. */
    public static ChunkPage readChunk(ReadChunk q, BucketData data) {
        BucketRecord r = data.record(q.bucket());
        if (!q.allows(r)) {
            return new ChunkPage(List.of(), true, "bucket " + q.bucket() + " is neither SENDING nor copied at generation " + q.generation() + ": " + r);
        }
        Pager pager = new Pager(q.maxKeys(), q.maxBytes());
        if (!resume(q.bucket(), q.afterKey(), q.afterElement(), pager, data)) return pager.page();
        data.forEachRecord(q.bucket(), q.afterKey(), (key, stored) -> pager.offerPart(data.part(q.bucket(), key, stored, NONE, pager.left())));
        return pager.page();
    }

    private static final byte[] NONE = new byte[0];

    /**
     * The rest of a collection sent in pieces, when the driver's cursor points inside {@code afterKey}; false when that
     * piece ends the page. A key gone or no longer a collection since (a copy ahead) is read again once changed.
     */
    private static boolean resume(int bucket, byte[] afterKey, byte[] afterElement, Pager pager, BucketData data) {
        if (afterElement.length == 0) return true;
        byte[] stored = data.record(bucket, afterKey);
        return stored == null || pager.offerPart(data.part(bucket, afterKey, stored, afterElement, pager.left()));
    }

    /** The keys written since the copy ahead started, as they are now (absent ones as deletions); the last page carries the digest. */
    public static ChangesPage readChanges(ReadChanges q, BucketData data) {
        BucketRecord r = data.record(q.bucket());
        if (r == null || r.state() != BucketState.SENDING || r.generation() != q.generation()) {
            ChunkPage refused = new ChunkPage(List.of(), true, "bucket " + q.bucket() + " is not SENDING at generation " + q.generation() + ": " + r);
            return new ChangesPage(refused, -1, -1);
        }
        Pager pager = new Pager(q.maxKeys(), q.maxBytes());
        if (!resume(q.bucket(), q.afterKey(), q.afterElement(), pager, data)) return new ChangesPage(pager.page(), -1, -1);
        data.forEachChanged(q.bucket(), q.afterKey(), key -> {
            byte[] stored = data.record(q.bucket(), key);
            return pager.offerPart(stored == null ? ChunkEntry.deletion(key) : data.part(q.bucket(), key, stored, NONE, pager.left()));
        });
        ChunkPage page = pager.page();
        if (!page.last()) return new ChangesPage(page, -1, -1);
        BucketDigest digest = digest(q.bucket(), data);
        return new ChangesPage(page, digest.keyCount(), digest.checksum());
    }

    /** Keys of a contained (READONLY) or quarantined doubled copy: both refuse writes, so pages are a stable picture. */
    public static ChunkPage exportChunk(ExportChunk q, BucketData data) {
        BucketRecord r = data.record(q.bucket());
        boolean exportable = r != null && r.has(BucketRecord.FLAG_DOUBLED) && !r.has(BucketRecord.FLAG_DATA_DROPPED)
                && (r.state() == BucketState.READONLY || r.state() == BucketState.GARBAGE);
        if (!exportable) return new ChunkPage(List.of(), true, "bucket " + q.bucket() + " is not a doubled copy here: " + r);
        return page(q.bucket(), q.afterKey(), Math.max(1, Math.min(q.maxKeys(), MAX_EXPORT_KEYS)),
                Math.max(1, Math.min(q.maxBytes(), MAX_EXPORT_BYTES)), data);
    }

    /**
     * Records of the listed buckets held here (an empty list: every contained or quarantined
     * doubled copy, in id order), with key counts and last write stamps when asked. Bounded by
     * {@link MoveQuery#MAX_INSPECT}.
     */
    public static List<BucketReport> inspect(List<Integer> buckets, boolean withCounts, BucketData data) {
        List<BucketRecord> records = new ArrayList<>();
        if (buckets.isEmpty()) {
            for (BucketRecord r : data.records()) if (r.isContainedDouble() || r.has(BucketRecord.FLAG_QUARANTINED)) records.add(r);
            records.sort(Comparator.comparingInt(BucketRecord::id));
        } else {
            for (int b : buckets) {
                BucketRecord r = data.record(b);
                if (r != null) records.add(r);
            }
        }
        List<BucketReport> out = new ArrayList<>();
        for (BucketRecord r : records.subList(0, Math.min(records.size(), MoveQuery.MAX_INSPECT))) {
            boolean hasData = !r.has(BucketRecord.FLAG_DATA_DROPPED);
            long keys = withCounts ? (hasData ? data.countKeys(r.id()) : 0) : -1;
            out.add(new BucketReport(r, keys, withCounts ? data.lastWriteMs(r.id()) : -1));
        }
        return out;
    }

    /** Count and checksum of {@code bucket}'s keys in their move form (what the destination must end with). */
    public static BucketDigest digest(int bucket, BucketData data) {
        long[] keysAndSum = {0, 0};
        data.forEachRecord(bucket, NONE, (key, stored) -> {
            keysAndSum[0]++;
            keysAndSum[1] += data.crc(bucket, key, stored);
            return true;
        });
        return new BucketDigest(data.record(bucket), keysAndSum[0], keysAndSum[1]);
    }

    private static ChunkPage page(int bucket, byte[] afterKey, int maxKeys, int maxBytes, BucketData data) {
        Pager pager = new Pager(maxKeys, maxBytes);
        data.forEachEntry(bucket, afterKey, pager::offer);
        return pager.page();
    }

    /** Collects entries up to a page's bounds; a page always takes its first entry, however big. */
    private static final class Pager {
        private final int maxKeys;
        private final int maxBytes;
        private final List<ChunkEntry> entries = new ArrayList<>();
        private int bytes;
        private boolean last = true;

        Pager(int maxKeys, int maxBytes) {
            this.maxKeys = maxKeys;
            this.maxBytes = maxBytes;
        }

        /** Takes {@code e}, or refuses it when the page is full (then the page is not the last). */
        boolean offer(ChunkEntry e) {
            if (!entries.isEmpty() && (entries.size() >= maxKeys || bytes + e.sizeBytes() > maxBytes)) {
                last = false;
                return false;
            }
            entries.add(e);
            bytes += e.sizeBytes();
            return true;
        }

        /**
         * As {@link #offer}, for a key that may come in pieces: a piece does not join a page that has entries already
         * (it starts the next one), and a piece that is not its key's last ends the page (the next resumes inside the key).
         */
        boolean offerPart(ChunkEntry e) {
            if (!entries.isEmpty() && e.isPiece()) {
                last = false;
                return false;
            }
            if (!offer(e)) return false;
            if (e.keys() == 0) {
                last = false;
                return false;
            }
            return true;
        }

        int left() {
            return maxBytes - bytes;
        }

        ChunkPage page() {
            return new ChunkPage(entries, last, "");
        }
    }
}
