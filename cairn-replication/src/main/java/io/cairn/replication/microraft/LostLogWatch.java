package io.cairn.replication.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.RaftRole;
import io.microraft.model.message.AppendEntriesFailureResponse;
import io.microraft.model.message.RaftMessage;
import io.microraft.report.RaftNodeReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * On a leader: notices a follower that lost entries it had acknowledged (its folder wiped, or
 * replaced by an older copy) and hands leadership to another voter.
 *
 * <p>Raft assumes a member never loses what it acknowledged, and MicroRaft's leader acts on it: it
 * never moves a follower's next index below that follower's match index, so a follower that comes
 * back with a shorter log rejects every append and is never repaired ("Cannot decrement next index
 * ... below match index"). A new leader starts with no match index for anyone, finds where the
 * follower's log ends and sends it the rest, or its latest snapshot. So when a follower refuses an
 * append because it lacks an entry at or below the match index the leader's report holds for it
 * (reports lag, so that match index is a lower bound of the real one: the evidence is certain),
 * this leader transfers leadership to the voter with the highest match index, at most once per
 * {@link #PAUSE_MS} per follower. Reports come every few seconds; a refusal the latest one cannot
 * settle is checked against a fresh one. With no other voter to hand over to it logs once and waits.
 *
 * <p>Left for issue 21: until it has caught up, such a member can still vote, and a restored one
 * votes with the term and vote of its old copy; it should rejoin as a learner.
 */
final class LostLogWatch {
    private static final Logger LOG = LoggerFactory.getLogger(LostLogWatch.class);
    /** Between two hand-overs for the same follower: the new leader needs an election and a snapshot's time. */
    static final long PAUSE_MS = 15_000;
    /** After a hand-over that did not happen (the voter did not catch up in time, say under load): the next try. */
    static final long RETRY_FAILED_MS = 2_000;
    /** Between two fresh reports asked for because of one follower's refusals. */
    static final long FRESH_REPORT_EVERY_MS = 1_000;

    private final String selfId;
    private final Supplier<RaftNodeReport> report;
    private final Supplier<CompletableFuture<RaftNodeReport>> freshReport;
    private final Function<RaftEndpoint, CompletableFuture<?>> transferTo;
    private final LongSupplier nowMs;
    private final Map<String, Long> lastActionMs = new HashMap<>();
    private final Map<String, Long> lastFreshReportMs = new HashMap<>();

    /**
     * @param report      MicroRaft's latest report of this member (null before the first)
     * @param freshReport asks MicroRaft for a report now
     * @param transferTo  asks MicroRaft to hand leadership to a voter; completes exceptionally when it did not happen
     */
    LostLogWatch(String selfId, Supplier<RaftNodeReport> report, Supplier<CompletableFuture<RaftNodeReport>> freshReport,
                 Function<RaftEndpoint, CompletableFuture<?>> transferTo, LongSupplier nowMs) {
        this.selfId = selfId;
        this.report = report;
        this.freshReport = freshReport;
        this.transferTo = transferTo;
        this.nowMs = nowMs;
    }

    /** Looks at each message this member receives (transport threads). */
    void received(RaftMessage message) {
        if (!(message instanceof AppendEntriesFailureResponse failure)) return;
        if (!check(failure, report.get())) askAgain(failure);
    }

    /**
     * The latest report may be seconds old, its match index for the follower below the real one:
     * when it cannot settle a refusal, a fresh report is asked for (at most once per
     * {@link #FRESH_REPORT_EVERY_MS} per follower) and the refusal checked against it.
     */
    private void askAgain(AppendEntriesFailureResponse failure) {
        String id = Endpoint.idOf(failure.getSender());
        long now = nowMs.getAsLong();
        synchronized (this) {
            Long last = lastFreshReportMs.get(id);
            if (last != null && now - last < FRESH_REPORT_EVERY_MS) return;
            lastFreshReportMs.put(id, now);
        }
        try {
            freshReport.get().thenAccept(r -> check(failure, r));
        } catch (RuntimeException stopping) { // the Raft thread is gone: nothing to repair any more
            LOG.debug("{}: no fresh report: {}", selfId, stopping.toString());
        }
    }

    /** @return whether {@code r} settles the refusal (it shows the follower lost entries, or that this member does not lead in that term) */
    private synchronized boolean check(AppendEntriesFailureResponse failure, RaftNodeReport r) {
        if (r == null) return false;
        if (r.getRole() != RaftRole.LEADER || r.getTerm().getTerm() != failure.getTerm()) return true;
        RaftEndpoint follower = failure.getSender();
        Long match = matchIndexOf(r, follower);
        // The failure answers an append whose previous entry (at expectedNextIndex - 1) the follower does not hold.
        long missing = failure.getExpectedNextIndex() - 1;
        if (match == null || match <= 0 || missing > match) return false;
        String id = Endpoint.idOf(follower);
        long now = nowMs.getAsLong();
        Long last = lastActionMs.get(id);
        if (last != null && now - last < PAUSE_MS) return true;
        lastActionMs.put(id, now);
        RaftEndpoint target = successor(r, follower);
        if (target == null) {
            LOG.warn("{}: {} lost entries it had acknowledged (it lacks entry {}, it had {}); no other voter to hand leadership to, "
                    + "so it stays behind until one is back", selfId, id, missing, match);
            return true;
        }
        LOG.warn("{}: {} lost entries it had acknowledged (it lacks entry {}, it had {}): handing leadership to {}, "
                + "whose fresh view of {} repairs it", selfId, id, missing, match, Endpoint.idOf(target), id);
        transferTo.apply(target).whenComplete((done, failed) -> {
            if (failed == null) return;
            LOG.info("{}: the hand-over to {} did not happen ({}); trying again in {} ms", selfId, Endpoint.idOf(target),
                    failed.getMessage(), RETRY_FAILED_MS);
            synchronized (this) {
                lastActionMs.put(id, nowMs.getAsLong() - PAUSE_MS + RETRY_FAILED_MS);
            }
        });
        return true;
    }

    private static Long matchIndexOf(RaftNodeReport r, RaftEndpoint follower) {
        for (Map.Entry<RaftEndpoint, Long> e : r.getLog().getFollowerMatchIndices().entrySet()) {
            if (Endpoint.idOf(e.getKey()).equals(Endpoint.idOf(follower))) return e.getValue();
        }
        return null;
    }

    /** The voter other than this member and {@code lost} with the highest match index; null if none has one. */
    private RaftEndpoint successor(RaftNodeReport r, RaftEndpoint lost) {
        Set<RaftEndpoint> voters = Set.copyOf(r.getEffectiveMembers().getVotingMembers());
        Map<String, RaftEndpoint> byId = new HashMap<>();
        for (RaftEndpoint v : voters) byId.put(Endpoint.idOf(v), v);
        RaftEndpoint best = null;
        long bestMatch = 0;
        for (Map.Entry<RaftEndpoint, Long> e : r.getLog().getFollowerMatchIndices().entrySet()) {
            String id = Endpoint.idOf(e.getKey());
            if (id.equals(selfId) || id.equals(Endpoint.idOf(lost)) || !byId.containsKey(id)) continue;
            if (e.getValue() > bestMatch) {
                best = byId.get(id);
                bestMatch = e.getValue();
            }
        }
        return best;
    }
}
