package io.cairn.raftbench.jgroupsraft;

import io.cairn.raftbench.RocksApplier;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.raft.StateMachine;

import java.io.DataInput;
import java.io.DataOutput;

/**
 * The harness's {@link RocksApplier} as jgroups-raft's state machine.
 *
 * <p>jgroups-raft 1.0 does not pass the log index to {@link StateMachine#apply}, so this class counts:
 * RAFT applies committed entries strictly in log order, one call per entry, both when it replays the log at
 * start ({@code RAFT.initStateMachineFromLog}, entries 1 (or the snapshot's index + 1) up to the persisted commit
 * index) and when entries commit ({@code RAFT.applyCommits}, from commit index + 1 on its single queue thread).
 * The only entries it does not pass here are its internal ones (membership changes), which the harness never
 * makes. So the count, started at 0 (or at the index a snapshot records, see below), is the log index of the entry
 * being applied, also after a restart. That is checked on every entry against RAFT's own indexes (read on the
 * thread that owns them): while replaying, the index is at most the commit index; when applying newly committed
 * entries, it lies above the commit index (RAFT moves that only after the batch) and at most the last appended.
 *
 * <p>A snapshot records only that index (the data stays in RocksDB), so it can restore a member's own count after a
 * restart but cannot bring a lagging member up to date: that fails loudly. jgroups-raft snapshots when a member's
 * log reaches {@code max_log_size} bytes, set to its largest value (2 GiB), so none is taken in a benchmark of
 * normal length.
 *
 * <p>After {@link #close()} the applier is no longer touched (RAFT's queue thread may still be finishing when its
 * channel has closed).
 */
final class ApplierStateMachine implements StateMachine {
    private final RocksApplier applier;
    private RAFT raft;
    /** The thread starting the channel: RAFT replays its log on it (its own queue thread applies everything else). */
    private volatile Thread replaying;
    /** Log index of the last entry applied (or skipped by the applier as already applied). */
    private long index;
    private boolean closed;

    ApplierStateMachine(RocksApplier applier) {
        this.applier = applier;
    }

    /** Before the channel connects: RAFT's indexes to check against, and the thread that will replay the log. */
    void starting(RAFT raft) {
        this.raft = raft;
        this.replaying = Thread.currentThread();
    }

    void started() {
        replaying = null;
    }

    @Override
    public synchronized byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
        if (closed) throw new IllegalStateException("jgroups-raft: state machine closed");
        long at = ++index;
        boolean replay = Thread.currentThread() == replaying;
        long commit = raft.commitIndex();
        if (replay ? at > commit : at <= commit || at > raft.lastAppended()) {
            throw new IllegalStateException("jgroups-raft: counted index " + at + " does not fit the log (commit index " + commit
                    + ", last appended " + raft.lastAppended() + (replay ? ", replaying" : "") + ")");
        }
        applier.apply(at, data, offset, length);
        return null;
    }

    @Override
    public synchronized void writeContentTo(DataOutput out) throws Exception {
        out.writeLong(index);
    }

    @Override
    public synchronized void readContentFrom(DataInput in) throws Exception {
        long at = in.readLong();
        if (applier.appliedIndex() < at) {
            throw new IllegalStateException("jgroups-raft: cannot install the snapshot at " + at + ": this member applied only up to "
                    + applier.appliedIndex() + " and raftbench snapshots carry no state");
        }
        index = at;
    }

    synchronized long index() {
        return index;
    }

    /** Stops applying: from here on an apply fails instead of touching the applier (which the harness closes next). */
    synchronized void close() {
        closed = true;
    }
}
