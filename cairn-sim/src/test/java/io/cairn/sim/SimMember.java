package io.cairn.sim;

import io.cairn.core.move.InMemoryReplicaset;

import java.util.ArrayList;
import java.util.List;

/**
 * One member of a simulated replicaset: its own copy of the state machine (an
 * {@link InMemoryReplicaset} changed only by applying log entries, or replaced by a snapshot), its
 * log, and what of it is durable.
 *
 * <p>Durable: the last snapshot (state bytes, index and term; written atomically, like a storage
 * member's checkpoint) and the log entries up to {@link #flushedIndex}, plus the commit index it
 * knew when it last flushed. Not durable: the log tail after it, the state machine and its applied
 * index. A crash keeps exactly the durable part; a restart restores the snapshot and replays the
 * durable log up to the durable commit index, through the same {@link SimEntry#applyTo} every
 * live member uses.
 *
 * <p>Log indexes start at 1; {@code log.get(0)} is index {@code snapshotIndex + 1} (entries up to
 * the snapshot are compacted away).
 */
final class SimMember {
    final String id;
    private final int changesInReply;
    final List<SimEntry> log = new ArrayList<>();
    long snapshotIndex;
    long snapshotTerm;
    byte[] snapshot;
    long flushedIndex;
    /** The commit index this member had learned when it last flushed: a restart replays this far. */
    long durableCommitIndex;
    /** Volatile: the commit index learned from the leader. */
    long commitIndex;
    long appliedIndex;
    /** The state machine; null while the member is down. */
    InMemoryReplicaset state;
    /** While down after a process crash: the state machine's database, at {@link #databaseIndex}. */
    private InMemoryReplicaset database;
    private long databaseIndex;
    boolean voter;
    /**
     * Its disk was lost while it was a voter: it never comes back (its node runs a new member, issue 21),
     * so it never votes again; it leaves the voters once the others keep a caught-up majority.
     */
    boolean wiped;
    boolean flushScheduled;
    boolean replicateScheduled;

    SimMember(String id, int changesInReply, boolean voter) {
        this.id = id;
        this.changesInReply = changesInReply;
        this.voter = voter;
    }

    int changesInReply() {
        return changesInReply;
    }

    boolean up() {
        return state != null;
    }

    long lastIndex() {
        return snapshotIndex + log.size();
    }

    long lastTerm() {
        return termAt(lastIndex());
    }

    /** The term of the entry at {@code index}; -1 when this member has no entry there (compacted away or beyond its log). */
    long termAt(long index) {
        if (index == snapshotIndex) return snapshotTerm;
        if (index < snapshotIndex || index > lastIndex()) return -1;
        return log.get((int) (index - snapshotIndex - 1)).term();
    }

    SimEntry entry(long index) {
        return log.get((int) (index - snapshotIndex - 1));
    }

    /** Raft's election restriction: a log is more up to date by its last term, then its length. */
    boolean atLeastAsUpToDateAs(SimMember other) {
        return lastTerm() != other.lastTerm() ? lastTerm() > other.lastTerm() : lastIndex() >= other.lastIndex();
    }

    /** Drops the entries after {@code index} (a conflict with the leader's log); none of them may be applied. */
    int truncateAfter(long index) {
        int dropped = 0;
        while (lastIndex() > index) {
            log.remove(log.size() - 1);
            dropped++;
        }
        flushedIndex = Math.min(flushedIndex, index);
        durableCommitIndex = Math.min(durableCommitIndex, index);
        return dropped;
    }

    /** fsync: the whole log as it is now becomes durable, with the commit index known now. */
    void flush() {
        flushedIndex = lastIndex();
        durableCommitIndex = Math.min(commitIndex, flushedIndex);
    }

    /** Applies committed entries it holds, in order. */
    void applyCommitted() {
        while (appliedIndex < Math.min(commitIndex, lastIndex())) {
            appliedIndex++;
            entry(appliedIndex).applyTo(state);
        }
    }

    /**
     * Takes a snapshot of the applied state and compacts the log up to it (the snapshot is written
     * atomically). Only while the log reaches the applied index: after a restart on a database
     * ahead of its durable log, the member first gets the missing entries from the leader.
     */
    boolean takeSnapshot() {
        if (appliedIndex > lastIndex()) return false;
        int compacted = (int) (appliedIndex - snapshotIndex);
        snapshotTerm = termAt(appliedIndex);
        snapshot = state.snapshot();
        log.subList(0, compacted).clear();
        snapshotIndex = appliedIndex;
        flushedIndex = Math.max(flushedIndex, snapshotIndex);
        durableCommitIndex = Math.max(durableCommitIndex, snapshotIndex);
        return true;
    }

    /**
     * A crash: the unflushed log tail and everything in memory are gone; returns how many entries
     * were lost. With {@code keepDatabase} (a process crash: a storage member's RocksDB keeps every
     * applied entry, written with its index in one batch) the state machine survives at its
     * applied index, which may be past the durable log; otherwise (power loss) it is rebuilt.
     */
    int crash(boolean keepDatabase) {
        int lost = truncateAfter(flushedIndex);
        database = keepDatabase ? state : null;
        databaseIndex = appliedIndex;
        state = null;
        appliedIndex = 0;
        commitIndex = 0;
        flushScheduled = false;
        replicateScheduled = false;
        return lost;
    }

    /**
     * A restart: the database if it survived, else the last snapshot; then the durable log is
     * replayed up to the commit index it had made durable, skipping the entries the database
     * holds already (cairn-storage's ReplicasetStateMachine skips every entry at or below the
     * database's applied index: applying one twice would take a second BSN).
     */
    Replay restart() {
        long skipped = 0;
        if (database != null) {
            state = database;
            appliedIndex = databaseIndex;
            skipped = Math.max(0, Math.min(databaseIndex, durableCommitIndex) - snapshotIndex);
            database = null;
        } else {
            state = freshState();
            if (snapshot != null) state.restore(snapshot);  // null: a new member's empty disk, it needs the leader's snapshot
            appliedIndex = snapshotIndex;
        }
        commitIndex = durableCommitIndex;
        long from = appliedIndex;
        applyCommitted();
        return new Replay(appliedIndex - from, skipped);
    }

    /** What a restart replayed from the durable log, and skipped because its database held it. */
    record Replay(long replayed, long skipped) {}

    /** InstallSnapshot from the leader: the member's log and state are replaced by the leader's snapshot. */
    void installSnapshot(SimMember leader) {
        log.clear();
        snapshot = leader.snapshot;
        snapshotIndex = leader.snapshotIndex;
        snapshotTerm = leader.snapshotTerm;
        flushedIndex = snapshotIndex;
        durableCommitIndex = snapshotIndex;
        commitIndex = Math.max(commitIndex, snapshotIndex);
        state = freshState();
        state.restore(snapshot);
        appliedIndex = snapshotIndex;
    }

    private InMemoryReplicaset freshState() {
        InMemoryReplicaset s = new InMemoryReplicaset(id);
        s.changesInReply = changesInReply;
        return s;
    }

    /** A new member with an empty disk: no snapshot, no log, down until it is started. */
    /** Its disk is lost: everything it held, durable or not, is gone for good; returns the log entries lost. */
    int wipe() {
        int lost = log.size();
        crash(false);
        log.clear();
        snapshot = null;
        snapshotIndex = -1;
        snapshotTerm = -1;
        flushedIndex = -1;
        durableCommitIndex = -1;
        wiped = true;
        return lost;
    }

    static SimMember empty(String id, int changesInReply) {
        SimMember m = new SimMember(id, changesInReply, false);
        // -1: below every leader's snapshot, so its first catch-up is an InstallSnapshot
        m.snapshotIndex = -1;
        m.snapshotTerm = -1;
        m.flushedIndex = -1;
        m.durableCommitIndex = -1;
        m.commitIndex = -1;
        m.appliedIndex = -1;
        return m;
    }

    @Override
    public String toString() {
        return id + (up() ? "" : "(down)") + (voter ? "" : "(learner)") + " log " + snapshotIndex + "+" + log.size()
                + " flushed " + flushedIndex + " commit " + commitIndex + " applied " + appliedIndex;
    }
}
