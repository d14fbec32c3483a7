package io.cairn.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Replacing a member of a simulated replicaset, one change at a time, as Cairn allows
 * (SYSTEM.md 002: a new disk rejoins as a learner, catches up, then is promoted; a change keeps a
 * majority): either the new member joins first (learner, caught up by the leader's snapshot then
 * its log, then a voter) and the old one is removed after, or the old one is removed first and
 * the new one joins after. A removal waits until the voters left would still hold a majority that
 * is up and has every committed entry durable, so a change never costs a committed entry, even
 * with crashes going on; a member that leaves takes its disk with it.
 */
final class SimMembership {
    private final SimRaft raft;
    private SimMember joining;
    private SimMember leaving;
    private boolean removeFirst;
    private int nextMember;

    SimMembership(SimRaft raft) {
        this.raft = raft;
    }

    boolean inProgress() {
        return joining != null || leaving != null;
    }

    /** Starts replacing a random voter (perhaps the leader, perhaps one that is down); false while a change is in progress. */
    boolean startReplace() {
        if (inProgress()) return false;
        List<SimMember> voters = new ArrayList<>();
        for (SimMember m : raft.members) if (m.voter) voters.add(m);
        if (nextMember == 0) nextMember = raft.members.size();
        leaving = voters.get(raft.random().nextInt(voters.size()));
        removeFirst = raft.random().nextBoolean();
        raft.counters.replacementsStarted++;
        if (raft.movesInFlight()) raft.counters.replacementsDuringMoves++;
        if (removeFirst) tryRemove();
        else addLearner();
        return true;
    }

    /** Replaces voter {@code m}, whose disk was lost: its member leaves first (when safe), then a new one joins as a learner. */
    boolean replaceWiped(SimMember m) {
        if (inProgress()) return false;
        if (nextMember == 0) nextMember = raft.members.size();
        leaving = m;
        removeFirst = true;
        raft.counters.replacementsStarted++;
        if (raft.movesInFlight()) raft.counters.replacementsDuringMoves++;
        tryRemove();
        return true;
    }

    private void addLearner() {
        joining = SimMember.empty(raft.id() + "/m" + nextMember++, raft.members.get(0).changesInReply());
        raft.members.add(joining);
        joining.restart();  // an empty disk: nothing to restore
        if (raft.leader != null) raft.scheduleReplicate(joining);
    }

    /** After {@code m} flushed: a learner that holds everything committed durably becomes a voter. */
    void flushed(SimMember m) {
        if (m != joining || !m.up() || raft.leader == null || m.lastIndex() < raft.commitIndex || !raft.holdsDurably(m, raft.commitIndex)) return;
        m.voter = true;
        joining = null;
        raft.counters.promotions++;
        if (!removeFirst) tryRemove();
        else finished();
    }

    /** Removes {@code leaving} once the voters left keep an up, up-to-date majority; retries later otherwise. */
    private void tryRemove() {
        if (leaving == null) return;
        int voters = 0, upToDate = 0;
        for (SimMember m : raft.members) {
            if (!m.voter || m == leaving) continue;
            voters++;
            if (m.up() && raft.holdsDurably(m, raft.commitIndex)) upToDate++;
        }
        if (upToDate < SimRaft.majority(voters)) {
            raft.scheduler().after(20 + raft.random().nextInt(80), "retry removing " + leaving.id, this::tryRemove);
            return;
        }
        SimMember gone = leaving;
        leaving = null;
        raft.members.remove(gone);
        if (gone == raft.leader) raft.loseLeader(30 + raft.random().nextInt(300));
        else raft.advanceCommit();  // fewer voters: a smaller majority may commit more
        if (removeFirst) addLearner();
        else finished();
    }

    private void finished() {
        raft.counters.replacements++;
    }
}
