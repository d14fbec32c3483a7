package io.cairn.storage;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveQuery.*;
import org.rocksdb.RocksIterator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Answers the move driver's read-only questions from a member's current state. A SENDING
 * bucket refuses writes, so the chunks read here are a stable picture of its data.
 */
final class MoveQueries {
    private MoveQueries() {}

    static byte[] answer(ByteBuffer request, ReplicasetState state) {
        MoveQuery q = MoveCodec.decodeQuery(request);
        if (q instanceof ReadChunk c) return MoveCodec.encode(readChunk(c, state));
        if (q instanceof Digest d) return MoveCodec.encode(digest(d.bucket(), state));
        return MoveCodec.encode(status(((Status) q).maxCandidates(), state.records()));
    }

    static ChunkPage readChunk(ReadChunk q, ReplicasetState state) {
        BucketRecord r = state.record(q.bucket());
        if (r == null || r.state() != BucketState.SENDING || r.generation() != q.generation()) {
            return new ChunkPage(List.of(), true, "bucket " + q.bucket() + " is not SENDING at generation " + q.generation() + ": " + r);
        }
        RocksStore store = state.store();
        List<ChunkEntry> entries = new ArrayList<>();
        int bytes = 0;
        try (RocksIterator it = store.newIterator(store.data)) {
            it.seek(RocksStore.dataKey(q.bucket(), q.afterKey()));
            if (it.isValid() && q.afterKey().length > 0 && Arrays.equals(userKey(it.key()), q.afterKey())) it.next();
            while (it.isValid() && RocksStore.bucketOf(it.key()) == q.bucket()) {
                ChunkEntry e = new ChunkEntry(userKey(it.key()), it.value());
                if (!entries.isEmpty() && (entries.size() >= q.maxKeys() || bytes + e.sizeBytes() > q.maxBytes())) break;
                entries.add(e);
                bytes += e.sizeBytes();
                it.next();
            }
            boolean last = !it.isValid() || RocksStore.bucketOf(it.key()) != q.bucket();
            return new ChunkPage(entries, last, "");
        }
    }

    static BucketDigest digest(int bucket, ReplicasetState state) {
        RocksStore store = state.store();
        long keys = 0;
        long checksum = 0;
        try (RocksIterator it = store.newIterator(store.data)) {
            for (it.seek(RocksStore.dataKey(bucket, new byte[0])); it.isValid() && RocksStore.bucketOf(it.key()) == bucket; it.next()) {
                keys++;
                checksum += new ChunkEntry(userKey(it.key()), it.value()).crc();
            }
        }
        return new BucketDigest(state.record(bucket), keys, checksum);
    }

    static MoveStatus status(int maxCandidates, Collection<BucketRecord> records) {
        int active = 0, pinned = 0, sending = 0, receiving = 0;
        List<BucketRecord> unfinished = new ArrayList<>();
        List<Integer> candidates = new ArrayList<>();
        for (BucketRecord r : records) {
            switch (r.state()) {
                case ACTIVE -> {
                    active++;
                    candidates.add(r.id());
                }
                case PINNED -> pinned++;
                case SENDING -> { sending++; unfinished.add(r); }
                case RECEIVING -> { receiving++; unfinished.add(r); }
                case SENT -> { if ((r.flags() & BucketRecord.FLAG_DATA_DROPPED) == 0) unfinished.add(r); }
                default -> { }
            }
        }
        candidates.sort(null);
        return new MoveStatus(active, pinned, sending, receiving, unfinished,
                List.copyOf(candidates.subList(0, Math.min(maxCandidates, candidates.size()))));
    }

    private static byte[] userKey(byte[] dataKey) {
        return Arrays.copyOfRange(dataKey, 4, dataKey.length);
    }
}
