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
 * their keys, and the changed keys are read again once it is SENDING.
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
        return page(q.bucket(), q.afterKey(), q.maxKeys(), q.maxBytes(), data);
    }

    /** The keys written since the copy ahead started, as they are now (absent ones as deletions); the last page carries the digest. */
    public static ChangesPage readChanges(ReadChanges q, BucketData data) {
        BucketRecord r = data.record(q.bucket());
        if (r == null || r.state() != BucketState.SENDING || r.generation() != q.generation()) {
            ChunkPage refused = new ChunkPage(List.of(), true, "bucket " + q.bucket() + " is not SENDING at generation " + q.generation() + ": " + r);
            return new ChangesPage(refused, -1, -1);
        }
        Pager pager = new Pager(q.maxKeys(), q.maxBytes());
        data.forEachChanged(q.bucket(), q.afterKey(), key -> {
            byte[] stored = data.moveForm(q.bucket(), key);
            return pager.offer(stored == null ? ChunkEntry.deletion(key) : new ChunkEntry(key, stored));
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
        data.forEachEntry(bucket, new byte[0], e -> {
            keysAndSum[0]++;
            keysAndSum[1] += e.crc();
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

        ChunkPage page() {
            return new ChunkPage(entries, last, "");
        }
    }
}
