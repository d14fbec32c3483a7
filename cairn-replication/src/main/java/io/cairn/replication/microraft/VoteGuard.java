package io.cairn.replication.microraft;

import io.cairn.replication.ReplicaConfig.Vote;
import io.microraft.RaftEndpoint;
import io.microraft.RaftRole;
import io.microraft.model.log.LogEntry;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.AppendEntriesSuccessResponse;
import io.microraft.model.message.InstallSnapshotRequest;
import io.microraft.model.message.PreVoteRequest;
import io.microraft.model.message.RaftMessage;
import io.microraft.model.message.TriggerLeaderElectionRequest;
import io.microraft.model.message.VoteRequest;
import io.microraft.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.LongSupplier;

/**
 * Keeps a member out of elections while it must not take part in them, on both sides of the
 * transport:
 * <ul>
 *   <li>a learner asks for no votes until it is promoted (MicroRaft 0.7 runs a pre-vote when a node
 *       starts, learner or not: harmless, since voters refuse it, but noise for the voters, which do
 *       not yet know a joining learner's address);</li>
 *   <li>a <em>rejoining</em> member ({@link io.cairn.replication.ReplicaConfig#vote()}: its folder
 *       is new or was damaged in a group that already holds data, or it is not yet checked against what
 *       it is on record as having acknowledged) neither asks for votes nor
 *       grants them, and ignores a leadership handed to it, until its log holds everything committed
 *       before. Raft counts on a voter never losing what it acknowledged: a member that lost its folder
 *       and voted at once could, with one lagging member, elect a leader that lacks acknowledged
 *       writes.</li>
 *   <li>a member back from a restart stays out of elections (asks for no votes, grants no sticky
 *       ones) for one follower window: it forgot when it last heard from its leader, and a leader
 *       may count on it for its read lease ({@link LeaderLease}).</li>
 * </ul>
 *
 * <p>When is "everything committed before" held? A leader's commit index covers every entry
 * committed in earlier terms only once it covers an entry of its own term (a leader just elected, or
 * restarted, may still send 0). So the target is the first commit index the leader sends that reaches
 * an entry of its term (seen in its appends, as the entry before them, which is how a heartbeat names the
 * leader's term entry to a member that already holds it, or as the term of a snapshot it sends), and the member
 * is caught up once it acknowledges a log that long: its log then matches the leader's up to there.
 * A new leader starts the count again.
 * Incoming messages pass through {@link #admits}; outgoing ones through {@link #send}, which also
 * sees this member's acknowledgements of appended entries, and so when it has caught up.
 */
final class VoteGuard implements Transport {
    private static final Logger LOG = LoggerFactory.getLogger(VoteGuard.class);
    private final Transport transport;
    private final ReportTracker reports;
    private final String selfId;
    private volatile boolean rejoining;
    /** Started {@link Vote#AFTER_CHECK} and not yet checked: {@link #confirm} may let it vote. */
    private volatile boolean awaitingCheck;
    /** Out of elections for good, caught up or not ({@link #withhold}). */
    private volatile boolean withheld;
    /** While rejoining: the leader's term followed, and the lowest index of an entry of that term seen. */
    private int leaderTerm = -1;
    private long firstOfLeaderTerm = Long.MAX_VALUE;
    /** The index to reach: the leader's commit index once it covers an entry of its term; -1 before. */
    private volatile long catchUpTo = -1;
    /** Until this time ({@code nanoClock}) the member neither asks for votes nor grants sticky ones; then 0. */
    private volatile long quietUntil;
    private final LongSupplier nanoClock;

    VoteGuard(Transport transport, ReportTracker reports, String selfId, Vote vote, long quietMillis, LongSupplier nanoClock) {
        this.transport = transport;
        this.reports = reports;
        this.selfId = selfId;
        this.nanoClock = nanoClock;
        this.quietUntil = quietMillis > 0 ? nanoClock.getAsLong() + quietMillis * 1_000_000 : 0;
        this.rejoining = vote != Vote.AT_ONCE;
        this.awaitingCheck = vote == Vote.AFTER_CHECK;
        if (vote == Vote.AFTER_CATCH_UP) {
            LOG.warn("{}: rejoining on a new or damaged folder: it neither votes nor stands for election until it has caught up with its leader", selfId);
        }
    }

    /**
     * The check of a member started {@link Vote#AFTER_CHECK}: it votes if its log ({@code logEnd})
     * reaches what it is on record as having acknowledged; otherwise it stays out until it has caught
     * up. Returns whether it votes now.
     */
    synchronized boolean confirm(long acknowledged, long logEnd) {
        if (!rejoining) return true;
        if (!awaitingCheck) return false;
        awaitingCheck = false;
        if (logEnd >= acknowledged) {
            rejoining = false;
            return true;
        }
        if (acknowledged == Long.MAX_VALUE) {
            LOG.warn("{}: its node rejoins (see its REPLACED_DISK line): it neither votes nor stands for election until it has caught up with its leader", selfId);
        } else {
            LOG.warn("{}: its log ends at index {}, below the {} it had acknowledged (its folder was restored from an older copy?): "
                    + "it neither votes nor stands for election until it has caught up with its leader", selfId, logEnd, acknowledged);
        }
        return false;
    }

    /** Keeps this member out of elections for good ({@link io.cairn.replication.Replica#withholdVote}). */
    void withhold() {
        withheld = true;
        rejoining = true;
        awaitingCheck = false;
        LOG.warn("{}: runs on a folder that is no longer its node's member in the group: it neither votes nor stands for election", selfId);
    }

    /** Whether this member still waits to catch up before it may vote. */
    boolean rejoining() {
        return rejoining;
    }

    /** Whether an incoming message may reach MicroRaft. */
    boolean admits(RaftMessage message) {
        if (message instanceof VoteRequest vote && vote.isSticky() && quiet()) return false;
        return !rejoining || admitWhileRejoining(message);
    }

    /** Whether the member is still in its quiet time after a restart (and so out of elections). */
    private boolean quiet() {
        long until = quietUntil;
        if (until == 0) return false;
        if (nanoClock.getAsLong() - until < 0) return true;
        quietUntil = 0;
        return false;
    }

    /** Synchronized: the leader's messages may come over more than one connection, on different event loops. */
    private synchronized boolean admitWhileRejoining(RaftMessage message) {
        if (message instanceof VoteRequest || message instanceof PreVoteRequest || message instanceof TriggerLeaderElectionRequest) return false;
        if (message instanceof AppendEntriesRequest append) {
            if (!follow(append.getTerm())) return true;
            // A heartbeat to a member whose log already holds the leader's term entry names that entry as the one before.
            if (append.getPreviousLogTerm() == leaderTerm) firstOfLeaderTerm = Math.min(firstOfLeaderTerm, append.getPreviousLogIndex());
            for (LogEntry e : append.getLogEntries()) {
                if (e.getTerm() == leaderTerm) firstOfLeaderTerm = Math.min(firstOfLeaderTerm, e.getIndex());
            }
            if (catchUpTo < 0 && append.getCommitIndex() >= firstOfLeaderTerm) {
                catchUpTo = append.getCommitIndex();
                LOG.info("{}: rejoining: leader {} of term {} committed up to index {}; it votes again once its log reaches it", selfId,
                        Endpoint.idOf(append.getSender()), leaderTerm, catchUpTo);
            }
        } else if (message instanceof InstallSnapshotRequest snapshot && snapshot.isSenderLeader()) {
            if (follow(snapshot.getTerm()) && snapshot.getSnapshotTerm() == leaderTerm) firstOfLeaderTerm = Math.min(firstOfLeaderTerm, snapshot.getSnapshotIndex());
        }
        return true;
    }

    /** Follows the leader of {@code term} if it is the newest seen; false for a message of an older term (MicroRaft refuses it). */
    private boolean follow(int term) {
        if (term < leaderTerm) return false;
        if (term > leaderTerm) {
            leaderTerm = term;
            firstOfLeaderTerm = Long.MAX_VALUE;
            catchUpTo = -1;
        }
        return true;
    }

    @Override
    public void send(RaftEndpoint target, RaftMessage message) {
        if (message instanceof PreVoteRequest || message instanceof VoteRequest) {
            if (rejoining || quiet() || reports.role() == RaftRole.LEARNER) return;
        } else if (rejoining && message instanceof AppendEntriesSuccessResponse ok) {
            long goal = catchUpTo;
            if (goal >= 0 && ok.getLastLogIndex() >= goal && !withheld) {
                rejoining = false;
                awaitingCheck = false;
                LOG.info("{}: caught up with its leader at index {}: it votes again", selfId, ok.getLastLogIndex());
            }
        }
        transport.send(target, message);
    }

    @Override
    public boolean isReachable(RaftEndpoint endpoint) {
        return transport.isReachable(endpoint);
    }
}
