package io.cairn.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The members of one simulated replicaset and the Raft rules between them, reduced to what the
 * move protocol can observe (Kafka's RaftEventSimulationTest crashes a node by dropping its
 * unflushed log; this does the same to Cairn's ledger):
 * <ul>
 *   <li>The leader appends an entry (term-stamped) to its log; members flush their logs and the
 *       leader replicates to followers, each after a short random delay. An entry commits when a
 *       majority of voters has it flushed and, as Raft requires, an entry of the leader's own
 *       term is among them (a new leader's first entry is a no-op for that). Committed entries are
 *       applied to the replicaset's committed state ({@link SimReplicaset} itself, which the
 *       invariants read) and to the leader's state machine, whose answer goes to the caller.</li>
 *   <li>A follower takes the leader's log from the last index where their terms agree (the rest
 *       is truncated), or, when the leader compacted what it needs, the leader's snapshot
 *       (InstallSnapshot). It applies what the leader says is committed.</li>
 *   <li>Every member snapshots its state every {@link #snapshotEvery} applied entries and
 *       compacts its log. A crash drops its unflushed tail and its state (a process crash keeps the
 *       state machine's database, as RocksDB does); a restart rebuilds from the database or the
 *       snapshot plus the durable log ({@link SimMember#restart}).</li>
 *   <li>Losing the leader (crash or step-down) loses the answers of entries in flight; they may
 *       commit later or vanish. An election picks the most up-to-date member of a majority of
 *       voters that is up; none happens without one.</li>
 *   <li>Membership ({@link SimMembership}): one change at a time; a new member joins as a
 *       learner, catches up (snapshot then log) and only then votes.</li>
 * </ul>
 * The network between members is reliable here: replicaset-internal faults are crashes and
 * elections; {@link SimNetwork} faults sit between the replicaset and its callers.
 */
final class SimRaft {
    /** A leader's answer to a proposal, delivered when the entry commits (never if the leader is lost first). */
    private record Pending(long term, Consumer<Object> reply) {}

    private final SimScheduler scheduler;
    private final Random random;
    private final SimReplicaset committedState;
    final List<SimMember> members = new ArrayList<>();
    final int snapshotEvery;
    /** The slowest fsync of this run: a member flushes 0 to this many ms after its log grew (the window a crash loses). */
    private final int flushMaxMs;
    SimMember leader;
    long term;
    private long leaderNoopIndex = Long.MAX_VALUE;
    long commitIndex;
    /** The term of every committed entry, by index (0: the bootstrap state every initial member starts from). */
    private long[] committedTerms = new long[64];
    private final Map<Long, Pending> pending = new HashMap<>();
    private boolean electionScheduled;
    final SimRaftCounters counters = new SimRaftCounters();
    /** Members to compare with the committed state once they applied everything committed (after a rebuild). */
    private final List<SimMember> toCompare = new ArrayList<>();
    private long comparedAtCommit = -1;
    private byte[] committedSnapshot;

    SimRaft(SimScheduler scheduler, Random random, SimReplicaset committedState, int voters, int snapshotEvery, int flushMaxMs) {
        this.scheduler = scheduler;
        this.random = random;
        this.committedState = committedState;
        this.snapshotEvery = snapshotEvery;
        this.flushMaxMs = flushMaxMs;
        byte[] bootstrap = committedState.snapshot();
        for (int i = 0; i < voters; i++) {
            SimMember m = new SimMember(committedState.id + "/m" + i, committedState.changesInReply, true);
            m.snapshot = bootstrap;
            m.restart();
            members.add(m);
        }
        elect();
    }

    // ---- the leader's side ----

    boolean leaderReady() {
        return leader != null && commitIndex >= leaderNoopIndex;
    }

    /** Appends {@code entry} at the leader; {@code reply} gets the leader's answer when it commits. False without a ready leader. */
    boolean propose(SimEntry entry, Consumer<Object> reply) {
        if (!leaderReady()) return false;
        long index = append(entry.inTerm(term));
        pending.put(index, new Pending(term, reply));
        return true;
    }

    private long append(SimEntry entry) {
        leader.log.add(entry);
        scheduleFlush(leader);
        replicateToAll();
        return leader.lastIndex();
    }

    private void scheduleFlush(SimMember m) {
        if (m.flushScheduled) return;
        m.flushScheduled = true;
        scheduler.after(random.nextInt(flushMaxMs + 1), "flush " + m.id, () -> {
            if (!m.flushScheduled || !isMember(m)) return;
            m.flushScheduled = false;
            m.flush();
            membership.flushed(m);
            advanceCommit();
        });
    }

    void replicateToAll() {
        for (SimMember m : members) if (m != leader && m.up()) scheduleReplicate(m);
    }

    void scheduleReplicate(SimMember m) {
        if (m.replicateScheduled) return;
        m.replicateScheduled = true;
        scheduler.after(1 + random.nextInt(3), "replicate to " + m.id, () -> {
            if (!m.replicateScheduled || !isMember(m)) return;
            m.replicateScheduled = false;
            if (leader != null && m.up() && m != leader) replicate(m);
        });
    }

    /** One AppendEntries (or InstallSnapshot) from the leader to {@code f}, whatever its log holds. */
    private void replicate(SimMember f) {
        long lowest = Math.max(f.snapshotIndex, leader.snapshotIndex);
        long match = -1;
        for (long i = Math.min(f.lastIndex(), leader.lastIndex()); i > lowest; i--) {
            if (f.termAt(i) == leader.termAt(i)) {
                match = i;
                break;
            }
        }
        if (match < 0 && f.lastIndex() >= lowest) {
            // f's own snapshot holds only committed entries; at the leader's, the terms must agree
            if (lowest == f.snapshotIndex || f.termAt(lowest) == leader.snapshotTerm) match = lowest;
        }
        if (match < 0) {
            f.installSnapshot(leader);
            counters.snapshotCatchUps++;
            toCompare.add(f);
            match = f.lastIndex();
        } else {
            if (match < Math.min(f.appliedIndex, f.lastIndex())) {
                throw new Invariants.Violation(f.id + " applied entry " + f.appliedIndex + " but agrees with leader " + leader.id
                        + " only up to " + match + ": an applied entry was not committed; " + this);
            }
            counters.truncatedUncommitted += f.truncateAfter(match);
        }
        for (long i = f.lastIndex() + 1; i <= leader.lastIndex(); i++) f.log.add(leader.entry(i));
        f.commitIndex = Math.max(f.commitIndex, Math.min(commitIndex, f.lastIndex()));
        applyAndSnapshot(f);
        if (f.flushedIndex < f.lastIndex()) scheduleFlush(f);
        else membership.flushed(f);  // an InstallSnapshot is durable at once: a learner may be caught up already
    }

    private void applyAndSnapshot(SimMember m) {
        m.applyCommitted();
        if (m.appliedIndex - m.snapshotIndex >= snapshotEvery && m.takeSnapshot()) counters.snapshots++;
    }

    /** Raft's commit rule over the voters' flushed logs (a down member acknowledges nothing). */
    void advanceCommit() {
        if (leader == null) return;
        List<Long> matched = new ArrayList<>();
        for (SimMember m : members) {
            if (!m.voter) continue;
            boolean agrees = m.up() && m.flushedIndex >= 0
                    && (m.flushedIndex <= leader.snapshotIndex || m.termAt(m.flushedIndex) == leader.termAt(m.flushedIndex));
            matched.add(agrees ? Math.min(m.flushedIndex, leader.lastIndex()) : -1L);
        }
        matched.sort(null);
        long n = matched.get(matched.size() - majority(matched.size()));
        if (n <= commitIndex || leader.termAt(n) != term) return;
        commitTo(n);
    }

    private void commitTo(long n) {
        for (long i = commitIndex + 1; i <= n; i++) {
            SimEntry e = leader.entry(i);
            if (i >= committedTerms.length) committedTerms = Arrays.copyOf(committedTerms, committedTerms.length * 2);
            committedTerms[(int) i] = e.term();
            commitIndex = i;
            e.applyTo(committedState);
        }
        leader.commitIndex = n;
        while (leader.appliedIndex < n) {
            leader.appliedIndex++;
            Object answer = leader.entry(leader.appliedIndex).applyTo(leader.state);
            Pending p = pending.remove(leader.appliedIndex);
            if (p != null && p.term() == term) p.reply().accept(answer);
        }
        applyAndSnapshot(leader);
        replicateToAll();  // followers learn the commit index
    }

    static int majority(int voters) {
        return voters / 2 + 1;
    }

    // ---- leader loss, elections, crashes ----

    /** The leader steps down (or is cut off from its followers): its answers in flight are lost; an election follows after {@code delayMs}. */
    void loseLeader(long delayMs) {
        if (leader != null) counters.leaderLosses++;
        leader = null;
        counters.answersLost += pending.size();
        pending.clear();
        scheduleElection(delayMs);
    }

    void scheduleElection(long delayMs) {
        if (electionScheduled) return;
        electionScheduled = true;
        scheduler.after(delayMs, "election in " + committedState.id, () -> {
            electionScheduled = false;
            if (leader == null && !elect()) scheduleElection(20 + random.nextInt(80));
        });
    }

    /** Elects the most up-to-date member among the up voters if they are a majority; false when they are not. */
    boolean elect() {
        List<SimMember> up = new ArrayList<>();
        int voters = 0;
        for (SimMember m : members) {
            if (!m.voter) continue;
            voters++;
            if (m.up()) up.add(m);
        }
        if (up.size() < majority(voters)) return false;
        List<SimMember> best = new ArrayList<>();
        for (SimMember m : up) {
            if (up.stream().allMatch(m::atLeastAsUpToDateAs)) best.add(m);
        }
        SimMember winner = best.get(random.nextInt(best.size()));
        if (winner.lastIndex() < commitIndex || (commitIndex > winner.snapshotIndex && winner.termAt(commitIndex) != committedTerms[(int) commitIndex])) {
            throw new Invariants.Violation("committed entry " + commitIndex + " lost: the new leader " + winner.id + " does not hold it; " + this);
        }
        term++;
        counters.elections++;
        leader = winner;
        pending.clear();
        leader.log.add(SimEntry.noop(term));
        leaderNoopIndex = leader.lastIndex();
        scheduleFlush(leader);
        replicateToAll();
        return true;
    }

    /** A member crash: its unflushed log and its state (unless {@code keepDatabase}) are gone; restarts after {@code downMs}. */
    void crash(SimMember m, long downMs, boolean keepDatabase) {
        if (!m.up()) return;
        counters.memberCrashes++;
        if (membership.inProgress()) counters.crashesDuringReplacement++;
        if (keepDatabase) counters.crashesKeepingDatabase++;
        counters.lostUnflushed += m.crash(keepDatabase);
        if (m == leader) loseLeader(30 + random.nextInt(400));
        scheduler.after(downMs, "restart " + m.id, () -> restart(m));
    }

    void restart(SimMember m) {
        if (m.up() || !isMember(m) || m.wiped) return;
        SimMember.Replay replay = m.restart();
        counters.entriesSkippedOnReplay += replay.skipped();
        if (replay.replayed() > 0) counters.restartsReplaying++;
        toCompare.add(m);
        if (leader == null) scheduleElection(10 + random.nextInt(50));
        else scheduleReplicate(m);
    }

    /**
     * A voter's disk is lost (issue 21): it is in no election from then on (the real member's VoteGuard; here it
     * never comes back), and the membership replaces it: its member leaves the voters once the others keep an
     * up, caught-up majority, then a new member joins as a learner and is promoted once caught up. False when a
     * membership change is under way (one at a time, and one lost disk at a time: two of three is data loss).
     */
    boolean wipe(SimMember m) {
        if (!m.voter || m.wiped || membership.inProgress()) return false;
        counters.wipes++;
        counters.lostUnflushed += m.wipe();
        if (m == leader) loseLeader(30 + random.nextInt(400));
        return membership.replaceWiped(m);
    }

    boolean isMember(SimMember m) {
        return members.contains(m);
    }

    final SimMembership membership = new SimMembership(this);

    /** Fault-free from here: every member restarts now and one last election follows at once. */
    void heal() {
        for (SimMember m : List.copyOf(members)) if (!m.up()) restart(m);
        loseLeader(0);
    }

    /** Whether a bucket of this replicaset is half-way through a move (SENDING, RECEIVING, or copied ahead). */
    boolean movesInFlight() {
        for (io.cairn.core.BucketRecord r : committedState.records()) {
            if (r.state() == io.cairn.core.BucketState.SENDING || r.state() == io.cairn.core.BucketState.RECEIVING || r.isCopying()) return true;
        }
        return false;
    }

    String id() {
        return committedState.id;
    }

    SimScheduler scheduler() {
        return scheduler;
    }

    Random random() {
        return random;
    }

    // ---- member-level invariants ----

    /**
     * After every event: no member applied past the commit index; the last committed entry is
     * durable (flushed, same term, or inside a snapshot) on a majority of the voters, so no crash
     * can lose it; a member rebuilt from a snapshot and its log has, once it applied everything
     * committed, exactly the committed state.
     */
    void check() {
        int voters = 0, holding = 0, wiped = 0;
        for (SimMember m : members) {
            if (m.up() && m.appliedIndex > commitIndex) {
                throw new Invariants.Violation(m.id + " applied " + m.appliedIndex + " beyond the commit index " + commitIndex + "; " + this);
            }
            if (!m.voter) continue;
            voters++;
            if (m.wiped) wiped++;
            if (holdsDurably(m, commitIndex)) holding++;
        }
        // every election majority, drawn from the voters that still vote (a wiped one never does), holds the entry
        if (holding + majority(voters) <= voters - wiped) {
            throw new Invariants.Violation("committed entry " + commitIndex + " of " + committedState.id + " is durable on only " + holding
                    + " of " + voters + " voters; " + this);
        }
        if (!toCompare.isEmpty()) compareCaughtUp(false);
    }

    boolean holdsDurably(SimMember m, long index) {
        if (m.snapshotIndex >= index) return true;
        return m.flushedIndex >= index && m.termAt(index) == committedTerms[(int) index];
    }

    /** Compares members that applied everything committed with the committed state (all of them when {@code all}). */
    void compareCaughtUp(boolean all) {
        List<SimMember> which = all ? members : toCompare;
        for (SimMember m : List.copyOf(which)) {
            if (!m.up() || m.appliedIndex != commitIndex) {
                if (all) throw new AssertionError(m.id + " did not catch up in the fault-free phase: " + this);
                continue;
            }
            if (comparedAtCommit != commitIndex) {
                committedSnapshot = committedState.snapshot();
                comparedAtCommit = commitIndex;
            }
            if (!Arrays.equals(m.state.snapshot(), committedSnapshot)) {
                throw new Invariants.Violation(m.id + " at index " + m.appliedIndex + " (rebuilt from snapshot " + m.snapshotIndex
                        + " and its log) differs from the committed state of " + committedState.id + "; " + this);
            }
            counters.statesCompared++;
            toCompare.remove(m);
        }
    }

    @Override
    public String toString() {
        return "term " + term + ", leader " + (leader == null ? "none" : leader.id) + ", commit " + commitIndex + ", members " + members;
    }
}
