package io.cairn.sim;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.InMemoryReplicaset;
import io.cairn.core.move.ReceiveProgress;

import java.util.function.IntConsumer;

/**
 * One replicaset as the move protocol sees it: a linearizable log whose state machine is the
 * bucket records, receive progress, per-bucket key maps, changed-key marks and the BSN counter
 * (cairn-core's {@link InMemoryReplicaset}, which mirrors cairn-storage). Commands go through the
 * production {@link io.cairn.core.move.BucketLedger}. Leader loss is modelled by
 * {@link #leaderUpAt} and {@link #term}; the network decides what that means for requests in flight.
 */
final class SimReplicaset extends InMemoryReplicaset {
    /** Told of every applied client write (key, value), to keep the model of expected data. */
    interface WriteListener {
        void applied(SimReplicaset rs, int bucket, String key, String value);
    }

    private final IntConsumer onChange;
    private final WriteListener onWrite;
    private long leaderUpAtMs;
    private int term;

    SimReplicaset(String id, IntConsumer onChange, WriteListener onWrite) {
        super(id);
        this.onChange = onChange;
        this.onWrite = onWrite;
    }

    @Override
    protected void changed(int bucket) {
        onChange.accept(bucket);
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

    /** A client write: applied only while the bucket's record serves writes, else refused (nothing applied). */
    @Override
    public boolean write(int bucket, String key, String value) {
        if (!super.write(bucket, key, value)) return false;
        onWrite.applied(this, bucket, key, value);
        return true;
    }

    /** Bootstrap and the operator's out-of-band changes: stores a record with the next BSN. */
    BucketRecord force(BucketRecord r) {
        return put(r);
    }

    ReceiveProgress progressOf(int bucket) {
        return progress(bucket);
    }
}
