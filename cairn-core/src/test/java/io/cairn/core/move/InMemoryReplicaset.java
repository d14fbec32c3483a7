package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.core.move.MoveQuery.ChunkPage;
import io.cairn.core.move.MoveQuery.MoveStatus;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One replicaset's state for unit tests: bucket records, receive progress and per-bucket data,
 * changed only through {@link BucketLedger} (plus {@link #bootstrap} and {@link #write}). The
 * queries mirror cairn-storage's MoveQueries.
 */
final class InMemoryReplicaset implements BucketLedger.Store {
    final String id;
    final Map<Integer, BucketRecord> records = new TreeMap<>();
    final Map<Integer, ReceiveProgress> progress = new HashMap<>();
    final Map<Integer, TreeMap<byte[], byte[]>> data = new HashMap<>();
    long bsn;
    /** Every record stored, in order, to check BSNs. */
    final List<BucketRecord> puts = new ArrayList<>();

    InMemoryReplicaset(String id) {
        this.id = id;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    MoveReply apply(MoveCommand command) {
        return BucketLedger.apply(command, this);
    }

    /** Creates {@code bucket} ACTIVE at {@code generation} holding {@code keys} keys k0..k(n-1). */
    InMemoryReplicaset bootstrap(int bucket, long generation, int keys) {
        put(new BucketRecord(bucket, BucketState.ACTIVE, generation, 0, "", 0));
        for (int k = 0; k < keys; k++) putData(bucket, new ChunkEntry(bytes("k" + k), bytes("v" + k)));
        return this;
    }

    /** A client write: applied only while the bucket's record serves writes. */
    boolean write(int bucket, String key, String value) {
        BucketRecord r = records.get(bucket);
        if (r == null || !r.state().servesWrites()) return false;
        putData(bucket, new ChunkEntry(bytes(key), bytes(value)));
        return true;
    }

    TreeMap<byte[], byte[]> keys(int bucket) {
        return data.getOrDefault(bucket, new TreeMap<>(Arrays::compareUnsigned));
    }

    ChunkPage readChunk(MoveQuery.ReadChunk q) {
        BucketRecord r = records.get(q.bucket());
        if (r == null || r.state() != BucketState.SENDING || r.generation() != q.generation()) {
            return new ChunkPage(List.of(), true, "not SENDING at " + q.generation() + ": " + r);
        }
        List<ChunkEntry> entries = new ArrayList<>();
        int size = 0;
        var tail = q.afterKey().length == 0 ? keys(q.bucket()) : keys(q.bucket()).tailMap(q.afterKey(), false);
        for (var e : tail.entrySet()) {
            ChunkEntry c = new ChunkEntry(e.getKey(), e.getValue());
            if (!entries.isEmpty() && (entries.size() >= q.maxKeys() || size + c.sizeBytes() > q.maxBytes())) {
                return new ChunkPage(entries, false, "");
            }
            entries.add(c);
            size += c.sizeBytes();
        }
        return new ChunkPage(entries, true, "");
    }

    BucketDigest digest(int bucket) {
        long sum = 0;
        for (var e : keys(bucket).entrySet()) sum += new ChunkEntry(e.getKey(), e.getValue()).crc();
        return new BucketDigest(records.get(bucket), keys(bucket).size(), sum);
    }

    MoveStatus status(int maxCandidates) {
        int active = 0, pinned = 0, sending = 0, receiving = 0;
        List<BucketRecord> unfinished = new ArrayList<>();
        List<Integer> candidates = new ArrayList<>();
        for (BucketRecord r : records.values()) {
            switch (r.state()) {
                case ACTIVE -> { active++; if (candidates.size() < maxCandidates) candidates.add(r.id()); }
                case PINNED -> pinned++;
                case SENDING -> { sending++; unfinished.add(r); }
                case RECEIVING -> { receiving++; unfinished.add(r); }
                case SENT -> { if ((r.flags() & BucketRecord.FLAG_DATA_DROPPED) == 0) unfinished.add(r); }
                default -> { }
            }
        }
        return new MoveStatus(active, pinned, sending, receiving, unfinished, candidates);
    }

    @Override
    public BucketRecord record(int bucket) {
        return records.get(bucket);
    }

    @Override
    public BucketRecord put(BucketRecord withoutBsn) {
        BucketRecord r = new BucketRecord(withoutBsn.id(), withoutBsn.state(), withoutBsn.generation(), ++bsn,
                withoutBsn.peer(), withoutBsn.flags());
        records.put(r.id(), r);
        puts.add(r);
        return r;
    }

    @Override
    public ReceiveProgress progress(int bucket) {
        return progress.get(bucket);
    }

    @Override
    public void putProgress(int bucket, ReceiveProgress p) {
        progress.put(bucket, p);
    }

    @Override
    public void clearProgress(int bucket) {
        progress.remove(bucket);
    }

    @Override
    public void putData(int bucket, ChunkEntry entry) {
        data.computeIfAbsent(bucket, b -> new TreeMap<>(Arrays::compareUnsigned)).put(entry.key(), entry.stored());
    }

    @Override
    public void dropData(int bucket) {
        data.remove(bucket);
    }

    /** The stamp of the next applied command (tests move it forward). */
    long nowMs;
    final Map<Integer, Long> quarantinedAt = new HashMap<>();

    @Override
    public long nowMs() {
        return nowMs;
    }

    @Override
    public long quarantinedAtMs(int bucket) {
        return quarantinedAt.getOrDefault(bucket, -1L);
    }

    @Override
    public void putQuarantinedAt(int bucket, long stampMs) {
        quarantinedAt.put(bucket, stampMs);
    }
}
