package io.cairn.sim;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.BucketLedger;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.core.move.MoveQuery.ChunkPage;
import io.cairn.core.move.MoveQuery.MoveStatus;
import io.cairn.core.move.MoveReply;
import io.cairn.core.move.ReceiveProgress;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntConsumer;

/**
 * One replicaset as the move protocol sees it: a linearizable log whose state machine is the
 * bucket records, receive progress, per-bucket key maps and the BSN counter. Commands go through
 * the production {@link BucketLedger}; the queries mirror cairn-storage's MoveQueries. Leader
 * loss is modelled by {@link #leaderUpAt} and {@link #term}; the network decides what that means
 * for requests in flight.
 */
final class SimReplicaset implements BucketLedger.Store {
    /** Told of every applied client write (key, value), to keep the model of expected data. */
    interface WriteListener {
        void applied(SimReplicaset rs, int bucket, String key, String value);
    }

    final String id;
    private final TreeMap<Integer, BucketRecord> records = new TreeMap<>();
    private final Map<Integer, ReceiveProgress> progress = new HashMap<>();
    private final Map<Integer, TreeMap<byte[], byte[]>> data = new HashMap<>();
    private final IntConsumer onChange;
    private final WriteListener onWrite;
    private long bsn;
    private long leaderUpAtMs;
    private int term;

    SimReplicaset(String id, IntConsumer onChange, WriteListener onWrite) {
        this.id = id;
        this.onChange = onChange;
        this.onWrite = onWrite;
    }

    // ---- leader ----

    boolean leaderUp(long nowMs) {
        return nowMs >= leaderUpAtMs;
    }

    /** Loses the leader until {@code untilMs}; requests in flight in the old term lose their replies. */
    void loseLeader(long untilMs) {
        leaderUpAtMs = Math.max(leaderUpAtMs, untilMs);
        term++;
    }

    int term() {
        return term;
    }

    // ---- log entries ----

    MoveReply apply(MoveCommand command) {
        return BucketLedger.apply(command, this);
    }

    /** A client write: applied only while the bucket's record serves writes, else refused (nothing applied). */
    boolean write(int bucket, String key, String value) {
        BucketRecord r = records.get(bucket);
        if (r == null || !r.state().servesWrites()) return false;
        putData(bucket, new ChunkEntry(Sim.bytes(key), Sim.bytes(value)));
        onWrite.applied(this, bucket, key, value);
        return true;
    }

    /** Bootstrap and the operator's out-of-band changes: stores a record with the next BSN. */
    BucketRecord force(BucketRecord r) {
        return put(r);
    }

    // ---- queries ----

    @Override
    public BucketRecord record(int bucket) {
        return records.get(bucket);
    }

    Iterable<BucketRecord> records() {
        return records.values();
    }

    ReceiveProgress progressOf(int bucket) {
        return progress.get(bucket);
    }

    TreeMap<byte[], byte[]> keys(int bucket) {
        TreeMap<byte[], byte[]> m = data.get(bucket);
        return m == null ? new TreeMap<>(Arrays::compareUnsigned) : m;
    }

    long bsn() {
        return bsn;
    }

    ChunkPage readChunk(MoveQuery.ReadChunk q) {
        BucketRecord r = records.get(q.bucket());
        if (r == null || r.state() != BucketState.SENDING || r.generation() != q.generation()) {
            return new ChunkPage(List.of(), true, "bucket " + q.bucket() + " is not SENDING at generation " + q.generation() + ": " + r);
        }
        TreeMap<byte[], byte[]> keys = keys(q.bucket());
        Map<byte[], byte[]> tail = q.afterKey().length == 0 ? keys : keys.tailMap(q.afterKey(), false);
        List<ChunkEntry> entries = new ArrayList<>();
        int bytes = 0;
        for (Map.Entry<byte[], byte[]> e : tail.entrySet()) {
            ChunkEntry c = new ChunkEntry(e.getKey(), e.getValue());
            if (!entries.isEmpty() && (entries.size() >= q.maxKeys() || bytes + c.sizeBytes() > q.maxBytes())) {
                return new ChunkPage(entries, false, "");
            }
            entries.add(c);
            bytes += c.sizeBytes();
        }
        return new ChunkPage(entries, true, "");
    }

    BucketDigest digest(int bucket) {
        long sum = 0;
        TreeMap<byte[], byte[]> keys = keys(bucket);
        for (Map.Entry<byte[], byte[]> e : keys.entrySet()) sum += new ChunkEntry(e.getKey(), e.getValue()).crc();
        return new BucketDigest(records.get(bucket), keys.size(), sum);
    }

    MoveStatus status(int maxCandidates) {
        int active = 0, pinned = 0, sending = 0, receiving = 0;
        List<BucketRecord> unfinished = new ArrayList<>();
        List<Integer> candidates = new ArrayList<>();
        for (BucketRecord r : records.values()) {
            switch (r.state()) {
                case ACTIVE -> {
                    active++;
                    if (candidates.size() < maxCandidates) candidates.add(r.id());
                }
                case PINNED -> pinned++;
                case SENDING -> { sending++; unfinished.add(r); }
                case RECEIVING -> { receiving++; unfinished.add(r); }
                case SENT -> { if ((r.flags() & BucketRecord.FLAG_DATA_DROPPED) == 0) unfinished.add(r); }
                default -> { }
            }
        }
        return new MoveStatus(active, pinned, sending, receiving, unfinished, candidates);
    }

    // ---- BucketLedger.Store ----

    @Override
    public BucketRecord put(BucketRecord withoutBsn) {
        BucketRecord r = new BucketRecord(withoutBsn.id(), withoutBsn.state(), withoutBsn.generation(), ++bsn,
                withoutBsn.peer(), withoutBsn.flags());
        records.put(r.id(), r);
        onChange.accept(r.id());
        return r;
    }

    @Override
    public ReceiveProgress progress(int bucket) {
        return progress.get(bucket);
    }

    @Override
    public void putProgress(int bucket, ReceiveProgress p) {
        progress.put(bucket, p);
        onChange.accept(bucket);
    }

    @Override
    public void clearProgress(int bucket) {
        progress.remove(bucket);
        onChange.accept(bucket);
    }

    @Override
    public void putData(int bucket, ChunkEntry entry) {
        data.computeIfAbsent(bucket, b -> new TreeMap<>(Arrays::compareUnsigned)).put(entry.key(), entry.stored());
        onChange.accept(bucket);
    }

    @Override
    public void dropData(int bucket) {
        data.remove(bucket);
        onChange.accept(bucket);
    }
}
