package io.cairn.storage.state;

import io.cairn.core.BucketRecord;
import io.cairn.core.kv.CollectionMeta;
import io.cairn.core.kv.HashMeta;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveAnswers;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MoveQuery.*;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * Answers the move driver's read-only questions from a member's current state, by cairn-core's
 * {@link MoveAnswers} (the rules the simulator runs too) over this member's RocksDB. A hash, list
 * or set travels as one entry in its move form (metadata, then its elements:
 * {@link CollectionMeta#packForMove}; {@link HashMeta} for hashes), so a key is a key to the move
 * whatever its type: counted once, marked once, checksummed with its fields. A collection bigger than the chunk
 * bound travels in {@link io.cairn.core.kv.MovePiece}s read a page of elements at a time ({@link CollectionPieces}).
 */
public final class MoveQueries {
    /** A digest worth a log line: it runs while the bucket's writes are held, in the apply thread at a copy's hand-over (a big collection is walked whole). */
    private static final long SLOW_DIGEST_MS = 500;
    private static final Logger log = LoggerFactory.getLogger(MoveQueries.class);

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
    public static List<Integer> verifyRequest(ByteBuffer request) {
        ByteBuffer b = request.duplicate();
        if (b.remaining() < 2 || StorageRequest.kindOf(b) != StorageRequest.Kind.MOVE_QUERY) return null;
        b.position(b.position() + 1);
        return MoveCodec.decodeQuery(b) instanceof Verify v ? v.buckets() : null;
    }

    static ChunkPage readChunk(ReadChunk q, ReplicasetState state) {
        return MoveAnswers.readChunk(q, new RocksBucketData(state));
    }

    /** The keys written since the copy ahead started, as they are now (absent ones as deletions). */
    static ChangesPage readChanges(ReadChanges q, ReplicasetState state) {
        long start = System.nanoTime();
        ChangesPage page = MoveAnswers.readChanges(q, new RocksBucketData(state));
        long ms = (System.nanoTime() - start) / 1_000_000;
        // the last page carries the whole bucket's digest, read while the bucket's writes are held
        if (ms >= SLOW_DIGEST_MS) log.info("bucket {}: the changed keys and digest of {} keys took {} ms", q.bucket(), page.keyCount(), ms);
        return page;
    }

    /** Keys of a contained (READONLY) or quarantined doubled copy. */
    static ChunkPage exportChunk(ExportChunk q, ReplicasetState state) {
        return MoveAnswers.exportChunk(q, new RocksBucketData(state));
    }

    /** Records of the listed buckets held here (an empty list: every doubled-flagged record). */
    static List<BucketReport> inspect(List<Integer> buckets, boolean withCounts, ReplicasetState state) {
        return MoveAnswers.inspect(buckets, withCounts, new RocksBucketData(state));
    }

    /** What a move sends for a key: a string's record as stored, a collection's metadata with all its elements. */
    public static byte[] moveForm(RocksStore store, int bucket, byte[] key, byte[] stored) {
        return CollectionMeta.isCollection(stored) ? CollectionMeta.packForMove(stored, store.fields(bucket, key)) : stored;
    }

    public static BucketDigest digest(int bucket, ReplicasetState state) {
        long start = System.nanoTime();
        BucketDigest digest = MoveAnswers.digest(bucket, new RocksBucketData(state));
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (ms >= SLOW_DIGEST_MS) log.info("bucket {}: the digest of {} keys took {} ms", bucket, digest.keyCount(), ms);
        return digest;
    }

    /** A member's state as {@link MoveAnswers} reads it: records from the state, keys from RocksDB in their move form. */
    private record RocksBucketData(ReplicasetState state) implements MoveAnswers.BucketData {
        @Override
        public BucketRecord record(int bucket) {
            return state.record(bucket);
        }

        @Override
        public Iterable<BucketRecord> records() {
            return state.records();
        }

        @Override
        public void forEachEntry(int bucket, byte[] afterKey, Predicate<ChunkEntry> visitor) {
            RocksStore store = state.store();
            try (StoreIterator it = store.newIterator(store.data)) {
                it.seek(RocksStore.dataKey(bucket, afterKey));
                if (it.isValid() && afterKey.length > 0 && Arrays.equals(RocksStore.userKey(it.key()), afterKey)) it.next();
                for (; it.isValid() && RocksStore.bucketOf(it.key()) == bucket; it.next()) {
                    byte[] key = RocksStore.userKey(it.key());
                    if (!visitor.test(new ChunkEntry(key, MoveQueries.moveForm(store, bucket, key, it.value())))) return;
                }
            }
        }

        @Override
        public void forEachRecord(int bucket, byte[] afterKey, BiPredicate<byte[], byte[]> visitor) {
            RocksStore store = state.store();
            try (StoreIterator it = store.newIterator(store.data)) {
                it.seek(RocksStore.dataKey(bucket, afterKey));
                if (it.isValid() && afterKey.length > 0 && Arrays.equals(RocksStore.userKey(it.key()), afterKey)) it.next();
                for (; it.isValid() && RocksStore.bucketOf(it.key()) == bucket; it.next()) {
                    if (!visitor.test(RocksStore.userKey(it.key()), it.value())) return;
                }
            }
        }

        @Override
        public byte[] record(int bucket, byte[] key) {
            RocksStore store = state.store();
            return store.get(store.data, RocksStore.dataKey(bucket, key));
        }

        @Override
        public ChunkEntry part(int bucket, byte[] key, byte[] stored, byte[] afterElement, int budgetBytes) {
            return CollectionMeta.isCollection(stored) ? CollectionPieces.next(state.store(), bucket, key, stored, afterElement, budgetBytes)
                    : new ChunkEntry(key, stored);
        }

        @Override
        public long crc(int bucket, byte[] key, byte[] stored) {
            // A collection's CRC a page of elements at a time: the same value, never the whole key in memory.
            return CollectionMeta.isCollection(stored) ? CollectionPieces.wholeCrc(state.store(), bucket, key, stored)
                    : new ChunkEntry(key, stored).crc();
        }

        @Override
        public void forEachChanged(int bucket, byte[] afterKey, Predicate<byte[]> visitor) {
            state.store().forEachChanged(bucket, afterKey, visitor);
        }

        @Override
        public byte[] moveForm(int bucket, byte[] key) {
            RocksStore store = state.store();
            byte[] stored = store.get(store.data, RocksStore.dataKey(bucket, key));
            return stored == null ? null : MoveQueries.moveForm(store, bucket, key, stored);
        }

        @Override
        public long countKeys(int bucket) {
            return state.store().countKeys(bucket);
        }

        @Override
        public long lastWriteMs(int bucket) {
            return state.lastWriteMs(bucket);
        }
    }
}
