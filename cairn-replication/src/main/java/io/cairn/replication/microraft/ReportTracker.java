package io.cairn.replication.microraft;

import io.cairn.replication.Membership;
import io.microraft.RaftEndpoint;
import io.microraft.RaftRole;
import io.microraft.report.RaftGroupMembers;
import io.microraft.report.RaftNodeReport;
import io.microraft.report.RaftNodeReportListener;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Keeps the latest of MicroRaft's reports, which it publishes on the Raft thread at every change of
 * role, leader, status or members (and periodically): {@link MicroRaftReplica#status()} and
 * {@link MicroRaftReplica#membership()} read it without waiting on that thread. It also tells the
 * transport every member's address, and completes the waits for a named leader.
 */
final class ReportTracker implements RaftNodeReportListener {
    private record Waiter(String leaderId, CompletableFuture<Void> future) {
    }

    private final BiConsumer<String, String> addressLearned;
    private final Consumer<Set<String>> votersSeen;
    private final List<Waiter> leaderWaiters = new CopyOnWriteArrayList<>();
    private volatile RaftNodeReport last;

    ReportTracker(BiConsumer<String, String> addressLearned, Consumer<Set<String>> votersSeen) {
        this.addressLearned = addressLearned;
        this.votersSeen = votersSeen;
    }

    @Override
    public void accept(RaftNodeReport report) {
        learnAddresses(report.getEffectiveMembers());
        learnAddresses(report.getCommittedMembers());
        RaftNodeReport before = last;
        if (before == null || before.getEffectiveMembers().getLogIndex() != report.getEffectiveMembers().getLogIndex()) {
            Set<String> voters = new HashSet<>();
            for (RaftEndpoint e : report.getEffectiveMembers().getVotingMembers()) voters.add(Endpoint.idOf(e));
            votersSeen.accept(voters);
        }
        last = report;
        String leader = Endpoint.idOf(report.getTerm().getLeaderEndpoint());
        for (Waiter w : leaderWaiters) {
            if (w.leaderId.equals(leader) || w.future.isDone()) {
                leaderWaiters.remove(w);
                w.future.complete(null);
            }
        }
    }

    /** Completes once a report names {@code leaderId} as leader. */
    CompletableFuture<Void> whenLeaderIs(String leaderId) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        leaderWaiters.add(new Waiter(leaderId, f));
        RaftNodeReport r = last;
        if (r != null && leaderId.equals(Endpoint.idOf(r.getTerm().getLeaderEndpoint()))) f.complete(null);
        return f;
    }

    /** The latest report, or null before the first. */
    RaftNodeReport last() {
        return last;
    }

    RaftRole role() {
        RaftNodeReport r = last;
        return r == null ? RaftRole.FOLLOWER : r.getRole();
    }

    long commitIndex() {
        RaftNodeReport r = last;
        return r == null ? 0 : r.getLog().getCommitIndex();
    }

    /** The effective members (committed or not) from the latest report, or null before the first. */
    Membership membership() {
        RaftNodeReport r = last;
        if (r == null) return null;
        RaftGroupMembers effective = r.getEffectiveMembers();
        Map<String, String> voters = new HashMap<>();
        Map<String, String> addresses = new HashMap<>();
        Set<String> learners = new HashSet<>();
        for (RaftEndpoint e : effective.getMembers()) {
            String id = Endpoint.idOf(e);
            addresses.put(id, addressOf(e));
            if (effective.getVotingMembers().contains(e)) voters.put(id, addressOf(e));
            else learners.add(id);
        }
        return new Membership(effective.getLogIndex(), voters, learners, addresses,
                effective.getLogIndex() == r.getCommittedMembers().getLogIndex());
    }

    private static String addressOf(RaftEndpoint e) {
        return e instanceof Endpoint ep && ep.address() != null ? ep.address() : "";
    }

    private void learnAddresses(RaftGroupMembers members) {
        for (RaftEndpoint e : members.getMembers()) {
            if (e instanceof Endpoint ep && ep.address() != null) addressLearned.accept(ep.id(), ep.address());
        }
    }
}
