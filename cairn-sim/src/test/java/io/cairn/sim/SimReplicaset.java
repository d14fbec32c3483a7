package io.cairn.sim;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.InMemoryReplicaset;
import io.cairn.core.move.ReceiveProgress;

import java.util.Random;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * One replicaset as the move protocol sees it. This object is its committed state: the bucket
 * records, receive progress, per-bucket key maps, changed-key marks and the BSN counter
 * (cairn-core's {@link InMemoryReplicaset}, which mirrors cairn-storage) after every committed
 * log entry, applied in commit order; the invariants read it. Behind it are the members
 * ({@link SimRaft}): each applies the same entries to a state machine of its own, crashes,
 * rebuilds from its snapshot and log, and is replaced. Callers reach the leader only: commands
 * are proposed there ({@link #propose}) and answered when they commit, queries read the
 * leader's state machine ({@link #leaderState}), and neither is answered without a ready leader.
 */
final class SimReplicaset extends InMemoryReplicaset {
    /** Told of every applied client write (key, value), to keep the model of expected data. */
    interface WriteListener {
        void applied(SimReplicaset rs, int bucket, String key, String value);
    }

    private final IntConsumer onChange;
    private final WriteListener onWrite;
    private SimRaft raft;

    SimReplicaset(String id, IntConsumer onChange, WriteListener onWrite) {
        super(id);
        this.onChange = onChange;
        this.onWrite = onWrite;
    }

    @Override
    protected void changed(int bucket) {
        onChange.accept(bucket);
    }

    /** Starts the members from the state set up so far (bootstrap, injected doubles): each begins with it as its snapshot. */
    SimRaft startMembers(SimScheduler scheduler, Random random, int voters, int snapshotEvery, int flushMaxMs) {
        raft = new SimRaft(scheduler, random, this, voters, snapshotEvery, flushMaxMs);
        return raft;
    }

    SimRaft raft() {
        return raft;
    }

    // ---- leader ----

    /** Whether a leader whose first entry committed is there to answer (Ratis answers "not ready" before that). */
    boolean leaderUp(long nowMs) {
        return raft.leaderReady();
    }

    /** The leader's own state machine, which answers queries; only while {@link #leaderUp}. */
    InMemoryReplicaset leaderState() {
        return raft.leader.state;
    }

    /** The leader steps down; an election follows after {@code delayMs}. Answers in flight are lost. */
    void loseLeader(long delayMs) {
        raft.loseLeader(delayMs);
    }

    /** Appends a log entry at the leader; {@code reply} gets the leader's answer if it commits under that leader. */
    boolean propose(SimEntry entry, Consumer<Object> reply) {
        return raft.propose(entry, reply);
    }

    /** A client write, as applied to the committed state: only while the bucket's record serves writes, else refused. */
    @Override
    public boolean write(int bucket, String key, String value) {
        if (!super.write(bucket, key, value)) return false;
        onWrite.applied(this, bucket, key, value);
        return true;
    }

    /** Bootstrap only (before the members start): stores a record with the next BSN. */
    BucketRecord force(BucketRecord r) {
        return put(r);
    }

    ReceiveProgress progressOf(int bucket) {
        return progress(bucket);
    }
}
