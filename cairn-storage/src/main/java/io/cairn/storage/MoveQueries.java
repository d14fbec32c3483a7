package io.cairn.storage;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.kv.CollectionMeta;
import io.cairn.core.kv.HashMeta;
import io.cairn.core.kv.MovePiece;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveQuery.*;
import org.rocksdb.RocksIterator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Answers the move driver's read-only questions from a member's current state. A SENDING
 * bucket refuses writes, so the chunks read here are a stable picture of its data. Chunks read
 * while a bucket is copied ahead may be outdated by later writes; those writes mark their keys,
 * and the changed keys are read again once it is SENDING. A hash, list or set travels as one entry in
 * its move form (metadata, then its elements: {@link CollectionMeta#packForMove}; {@link HashMeta} for hashes), so a key is a key to the move
 * whatever its type: counted once, marked once, checksummed with its fields. A collection bigger than the chunk bound
 * travels in {@link MovePiece}s ({@link CollectionPieces}), the driver's cursor then pointing inside it.
 */
final class MoveQueries {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(MoveQueries.class);

    private MoveQueries() {}

    static byte[] answer(ByteBuffer request, ReplicasetState state) {
        MoveQuery q = MoveCodec.decodeQuery(request);
        if (q instanceof ReadChunk c) return MoveCodec.encode(readChunk(c, state));
        if (q instanceof ReadChanges c) return MoveCodec.encode(readChanges(c, state));
        if (q instanceof Digest d) return MoveCodec.encode(digest(d.bucket(), state));
        if (q instanceof Inspect i) return MoveCodec.encodeReports(inspect(i.buckets(), i.withCounts(), state));
        if (q instanceof Verify v) return MoveCodec.encodeReports(inspect(v.buckets(), false, state));
        if (q instanceof ExportChunk e) return MoveCodec.encode(exportChunk(e, state));
        if (q instanceof ArchiveOf a) return MoveCodec.encode(new ArchiveState(state.record(a.bucket()), state.archivePointer(a.bucket())));
        return MoveCodec.encode(state.moveStatus(((Status) q).maxCandidates()));
    }

    /** The buckets of a router's Verify request, or null when {@code request} is something else. */
    static List<Integer> verifyRequest(ByteBuffer request) {
        ByteBuffer b = request.duplicate();
        if (b.remaining() < 2 || io.cairn.core.wire.StorageRequest.kindOf(b) != io.cairn.core.wire.StorageRequest.Kind.MOVE_QUERY) return null;
        b.position(b.position() + 1);
        return MoveCodec.decodeQuery(b) instanceof Verify v ? v.buckets() : null;
    }

    static ChunkPage readChunk(ReadChunk q, ReplicasetState state) {
        BucketRecord r = state.record(q.bucket());
        if (!q.allows(r)) {
            return new ChunkPage(List.of(), true, "bucket " + q.bucket() + " is neither SENDING nor copied at generation " + q.generation() + ": " + r);
        }
        return page(q.bucket(), q.afterKey(), q.afterElement(), q.maxKeys(), q.maxBytes(), true, state);
    }

    /** The keys written since the copy ahead started, as they are now (absent ones as deletions). */
    static ChangesPage readChanges(ReadChanges q, ReplicasetState state) {
        BucketRecord r = state.record(q.bucket());
        if (r == null || r.state() != BucketState.SENDING || r.generation() != q.generation()) {
            ChunkPage refused = new ChunkPage(List.of(), true, "bucket " + q.bucket() + " is not SENDING at generation " + q.generation() + ": " + r);
            return new ChangesPage(refused, -1, -1);
        }
        RocksStore store = state.store();
        List<ChunkEntry> entries = new ArrayList<>();
        int[] bytes = {0};
        boolean[] last = {true};
        if (q.afterElement().length > 0) {
            // The rest of a big collection sent in pieces (the data is frozen while SENDING, so it is still there).
            byte[] stored = store.get(store.data, RocksStore.dataKey(q.bucket(), q.afterKey()));
            if (CollectionMeta.isCollection(stored)) {
                ChunkEntry e = CollectionPieces.next(store, q.bucket(), q.afterKey(), stored, q.afterElement(), q.maxBytes());
                entries.add(e);
                bytes[0] += e.sizeBytes();
                if (e.keys() == 0) return new ChangesPage(new ChunkPage(entries, false, ""), -1, -1);
            }
        }
        store.forEachChanged(q.bucket(), q.afterKey(), key -> {
            byte[] stored = store.get(store.data, RocksStore.dataKey(q.bucket(), key));
            ChunkEntry e = stored == null ? ChunkEntry.deletion(key) : entry(store, q.bucket(), key, stored, q.maxBytes() - bytes[0]);
            if (!entries.isEmpty() && (entries.size() >= q.maxKeys() || e.isPiece() || bytes[0] + e.sizeBytes() > q.maxBytes())) {
                last[0] = false;
                return false;
            }
            entries.add(e);
            bytes[0] += e.sizeBytes();
            if (e.keys() == 0) last[0] = false; // a piece that is not the last ends the page; the next resumes inside the key
            return e.keys() != 0;
        });
        ChunkPage page = new ChunkPage(entries, last[0], "");
        if (!last[0]) return new ChangesPage(page, -1, -1);
        BucketDigest digest = digest(q.bucket(), state);
        return new ChangesPage(page, digest.keyCount(), digest.checksum());
    }

    /** Keys of a contained (READONLY) or quarantined doubled copy: both refuse writes, so pages are a stable picture. */
    static ChunkPage exportChunk(ExportChunk q, ReplicasetState state) {
        BucketRecord r = state.record(q.bucket());
        boolean exportable = r != null && r.has(BucketRecord.FLAG_DOUBLED) && !r.has(BucketRecord.FLAG_DATA_DROPPED)
                && (r.state() == BucketState.READONLY || r.state() == BucketState.GARBAGE);
        if (!exportable) return new ChunkPage(List.of(), true, "bucket " + q.bucket() + " is not a doubled copy here: " + r);
        return page(q.bucket(), q.afterKey(), new byte[0], Math.max(1, Math.min(q.maxKeys(), 10_000)), Math.max(1, Math.min(q.maxBytes(), 16 << 20)), false, state);
    }

    /**
     * Records of the listed buckets held here (an empty list: every doubled-flagged record),
     * with key counts and last write stamps when asked. Bounded by {@link MoveQuery#MAX_INSPECT}.
     */
    static List<BucketReport> inspect(List<Integer> buckets, boolean withCounts, ReplicasetState state) {
        List<BucketRecord> records = new ArrayList<>();
        if (buckets.isEmpty()) {
            for (BucketRecord r : state.records()) if (r.isContainedDouble() || r.has(BucketRecord.FLAG_QUARANTINED)) records.add(r);
            records.sort(java.util.Comparator.comparingInt(BucketRecord::id));
        } else {
            for (int b : buckets) {
                BucketRecord r = state.record(b);
                if (r != null) records.add(r);
            }
        }
        List<BucketReport> out = new ArrayList<>();
        for (BucketRecord r : records.subList(0, Math.min(records.size(), MoveQuery.MAX_INSPECT))) {
            boolean hasData = !r.has(BucketRecord.FLAG_DATA_DROPPED);
            long keys = withCounts ? (hasData ? state.store().countKeys(r.id()) : 0) : -1;
            out.add(new BucketReport(r, keys, withCounts ? state.lastWriteMs(r.id()) : -1));
        }
        return out;
    }

    /**
     * The next keys after {@code afterKey} (inside it after {@code afterElement}), within the bounds; with {@code pieces}
     * a collection too big for the bound travels as {@link MovePiece}s, one that does not fit what is left of a
     * page starts the next page, and a piece that is not the last ends its page (exports send whole keys).
     */
    private static ChunkPage page(int bucket, byte[] afterKey, byte[] afterElement, int maxKeys, int maxBytes, boolean pieces,
                                  ReplicasetState state) {
        RocksStore store = state.store();
        List<ChunkEntry> entries = new ArrayList<>();
        int bytes = 0;
        boolean resume = pieces && afterElement.length > 0;
        try (RocksIterator it = store.newIterator(store.data)) {
            it.seek(RocksStore.dataKey(bucket, afterKey));
            if (!resume && it.isValid() && afterKey.length > 0 && Arrays.equals(RocksStore.userKey(it.key()), afterKey)) it.next();
            while (it.isValid() && RocksStore.bucketOf(it.key()) == bucket) {
                byte[] key = RocksStore.userKey(it.key());
                ChunkEntry e;
                if (!pieces) {
                    e = new ChunkEntry(key, moveForm(store, bucket, key, it.value()));
                } else {
                    byte[] inside = resume && Arrays.equals(key, afterKey) ? afterElement : new byte[0];
                    e = CollectionMeta.isCollection(it.value()) ? CollectionPieces.next(store, bucket, key, it.value(), inside, maxBytes - bytes)
                            : new ChunkEntry(key, it.value());
                }
                if (!entries.isEmpty() && (entries.size() >= maxKeys || e.isPiece() || bytes + e.sizeBytes() > maxBytes)) break;
                entries.add(e);
                bytes += e.sizeBytes();
                if (e.keys() == 0) return new ChunkPage(entries, false, "");
                it.next();
            }
            boolean last = !it.isValid() || RocksStore.bucketOf(it.key()) != bucket;
            return new ChunkPage(entries, last, "");
        }
    }

    private static ChunkEntry entry(RocksStore store, int bucket, byte[] key, byte[] stored, int budgetBytes) {
        return CollectionMeta.isCollection(stored) ? CollectionPieces.next(store, bucket, key, stored, new byte[0], budgetBytes)
                : new ChunkEntry(key, stored);
    }

    /** What a move sends for a key: a string's record as stored, a collection's metadata with all its elements. */
    static byte[] moveForm(RocksStore store, int bucket, byte[] key, byte[] stored) {
        return CollectionMeta.isCollection(stored) ? CollectionMeta.packForMove(stored, store.fields(bucket, key)) : stored;
    }

    static BucketDigest digest(int bucket, ReplicasetState state) {
        RocksStore store = state.store();
        long start = System.nanoTime();
        long keys = 0;
        long checksum = 0;
        try (RocksIterator it = store.newIterator(store.data)) {
            for (it.seek(RocksStore.dataKey(bucket, new byte[0])); it.isValid() && RocksStore.bucketOf(it.key()) == bucket; it.next()) {
                keys++;
                byte[] key = RocksStore.userKey(it.key());
                // A collection's CRC is computed a page of elements at a time: the same value, never the whole key in memory.
                checksum += CollectionMeta.isCollection(it.value()) ? CollectionPieces.wholeCrc(store, bucket, key, it.value())
                        : new ChunkEntry(key, it.value()).crc();
            }
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (ms >= 500) log.info("bucket {}: the digest of {} keys took {} ms", bucket, keys, ms);
        return new BucketDigest(state.record(bucket), keys, checksum);
    }

}
