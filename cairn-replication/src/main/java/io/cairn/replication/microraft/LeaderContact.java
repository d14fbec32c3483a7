package io.cairn.replication.microraft;

import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.InstallSnapshotRequest;
import io.microraft.model.message.RaftMessage;

/**
 * When this member last heard from a leader, and the commit index that leader then had: what a
 * bounded-stale read on a follower needs, noted by the transport as messages arrive so that no call
 * waits on the Raft thread. MicroRaft keeps the same timestamp but shows it only in reports.
 */
final class LeaderContact {
    private record Heard(String leaderId, long nanos, long commitIndex) {
    }

    private volatile Heard last = new Heard(null, 0, 0);

    void received(RaftMessage message) {
        if (message instanceof AppendEntriesRequest r) {
            last = new Heard(Endpoint.idOf(r.getSender()), System.nanoTime(), r.getCommitIndex());
        } else if (message instanceof InstallSnapshotRequest r && r.isSenderLeader()) {
            last = new Heard(Endpoint.idOf(r.getSender()), System.nanoTime(), last.commitIndex);
        }
    }

    /** Milliseconds since {@code leaderId} was last heard from; {@code Long.MAX_VALUE} if it never was (or another was since). */
    long msSince(String leaderId) {
        Heard h = last;
        if (leaderId == null || !leaderId.equals(h.leaderId)) return Long.MAX_VALUE;
        return (System.nanoTime() - h.nanos) / 1_000_000;
    }

    /** The commit index {@code leaderId} sent last, or -1 if another leader was heard from since. */
    long commitIndexOf(String leaderId) {
        Heard h = last;
        return leaderId != null && leaderId.equals(h.leaderId) ? h.commitIndex : -1;
    }
}
