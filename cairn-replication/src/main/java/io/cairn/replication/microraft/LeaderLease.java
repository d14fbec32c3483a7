package io.cairn.replication.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.message.AppendEntriesFailureResponse;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.AppendEntriesSuccessResponse;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.TriggerLeaderElectionRequest;
import io.microraft.transport.Transport;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The leader's read lease, kept beside MicroRaft so that a read under it needs no trip to the Raft
 * thread: {@link #holds} is a few field reads on the caller's thread.
 *
 * <h2>Why it is safe</h2>
 * A voter that accepts an append of the leader's term refuses sticky votes for the leader timeout
 * after it received it (MicroRaft's leader stickiness, on a monotonic clock, see
 * {@link MicroRaftReplica}). It received it after the leader sent it, so once a majority of voters
 * (the leader included) answered appends the leader sent at or after time {@code s}, no other member
 * can be elected before {@code s} plus the leader timeout. The lease is measured from the <em>send</em>
 * times of the answered appends (each append carries a flow-control number its answer echoes), not
 * from when the answers came back (which is what MicroRaft's own {@code LEADER_LEASE} query counts),
 * and ends a margin ({@link #LEASE_SHARE}) before the followers' window does, for clock rates that differ.
 * Votes that skip stickiness exist in two cases, and both end the lease:
 * <ul>
 *   <li>a leadership transfer: the leader itself sends {@code TriggerLeaderElection}; the lease of
 *       that term ends at once;</li>
 *   <li>a voter that restarted forgets when it heard from its leader: {@link VoteGuard} drops sticky
 *       vote requests for the leader timeout after a member starts.</li>
 * </ul>
 * A change of the voters starts the count again: answers count only for appends sent after the
 * change was seen.
 */
final class LeaderLease implements Transport {
    /** The part of the followers' window a lease may use. */
    static final double LEASE_SHARE = 0.75;
    /** Send times kept per follower; an answer to an older append does not extend the lease. */
    private static final int SENDS_KEPT = 64;

    private final Transport transport;
    private final String selfId;
    private final long leaseNanos;
    private final LongSupplier nanoClock;
    private final Map<String, Follower> followers = new HashMap<>();
    private Set<String> voters;
    private int term = -1;
    private boolean revoked;
    /** Appends sent before this time do not count (a new term or a change of voters). */
    private long countFrom = Long.MIN_VALUE;

    LeaderLease(Transport transport, String selfId, Set<String> voters, long followerWindowMillis, LongSupplier nanoClock) {
        this.transport = transport;
        this.selfId = selfId;
        this.voters = Set.copyOf(voters);
        this.leaseNanos = (long) (followerWindowMillis * 1_000_000L * LEASE_SHARE);
        this.nanoClock = nanoClock;
    }

    /** Whether this member, leading {@code term}, may answer a read from what it applied without asking anyone. */
    synchronized boolean holds(long term) {
        if (term != this.term || revoked || !voters.contains(selfId)) return false;
        int needed = voters.size() / 2; // a majority, less the leader's own vote
        if (needed == 0) return true;
        long now = nanoClock.getAsLong();
        int fresh = 0;
        for (String id : voters) {
            if (id.equals(selfId)) continue;
            Follower f = followers.get(id);
            if (f != null && f.answeredSentAt >= countFrom && now - f.answeredSentAt < leaseNanos && ++fresh >= needed) return true;
        }
        return false;
    }

    /** The voters changed: answers to appends sent before now no longer count. */
    synchronized void votersChanged(Set<String> voters) {
        if (this.voters.equals(voters)) return;
        this.voters = Set.copyOf(voters);
        countFrom = nanoClock.getAsLong();
    }

    /** An answer from a follower; only answers of the lease's term to appends whose send time is known count. */
    void received(RaftMessage message) {
        long sequence;
        if (message instanceof AppendEntriesSuccessResponse ok) sequence = ok.getFlowControlSequenceNumber();
        else if (message instanceof AppendEntriesFailureResponse failed) sequence = failed.getFlowControlSequenceNumber();
        else return;
        answered(Endpoint.idOf(message.getSender()), message.getTerm(), sequence);
    }

    private synchronized void answered(String followerId, int term, long sequence) {
        if (term != this.term || sequence <= 0) return;
        Follower f = followers.get(followerId);
        if (f != null) f.answered(sequence);
    }

    @Override
    public void send(RaftEndpoint target, RaftMessage message) {
        if (message instanceof AppendEntriesRequest append) {
            sent(Endpoint.idOf(target), append.getTerm(), append.getFlowControlSequenceNumber());
        } else if (message instanceof TriggerLeaderElectionRequest) {
            revoke(); // the target will be elected without waiting out anyone's window
        }
        transport.send(target, message);
    }

    private synchronized void sent(String followerId, int term, long sequence) {
        long now = nanoClock.getAsLong();
        if (term != this.term) {
            this.term = term;
            revoked = false;
            followers.clear();
            countFrom = now;
        }
        if (sequence <= 0) return; // an idle heartbeat: its answer cannot be told from another's
        followers.computeIfAbsent(followerId, id -> new Follower()).sent(sequence, now);
    }

    private synchronized void revoke() {
        revoked = true;
    }

    @Override
    public boolean isReachable(RaftEndpoint endpoint) {
        return transport.isReachable(endpoint);
    }

    /** Send times of the latest appends to one follower, and the newest one it answered. */
    private static final class Follower {
        private final long[] sequences = new long[SENDS_KEPT];
        private final long[] sentAt = new long[SENDS_KEPT];
        private long answeredSentAt = Long.MIN_VALUE;

        void sent(long sequence, long now) {
            int slot = (int) Math.floorMod(sequence, SENDS_KEPT);
            sequences[slot] = sequence;
            sentAt[slot] = now;
        }

        void answered(long sequence) {
            int slot = (int) Math.floorMod(sequence, SENDS_KEPT);
            if (sequences[slot] == sequence) answeredSentAt = Math.max(answeredSentAt, sentAt[slot]);
        }
    }
}
