package io.cairn.core.topology;

import io.cairn.core.wire.MemberChange;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The next Raft membership change that brings a replicaset's group toward the nodes its topology
 * names (issue 21: a new member is added, caught up and promoted under the coordinator's control,
 * and a node the topology dropped leaves the group). The coordinator's leader asks this once a round
 * and makes the one change it returns ({@code MemberReconciler} in cairn-server); the topology is
 * the wish, the Raft membership follows it.
 *
 * <p>Safety, one change at a time, each naming the membership index it starts from:
 * <ul>
 *   <li>nothing while the last change is uncommitted;</li>
 *   <li>a node back on a new or damaged disk is a new member ({@link MemberIds}): its old member, which
 *       never votes again ({@code VoteGuard}), leaves the voters only while the voters left include a
 *       caught-up majority (else the group waits and says so), then the new one joins as below;</li>
 *   <li>a node joins as a learner (it does not count toward majorities) and only once it answers, so
 *       no dead member is ever added; it becomes a voter only once it reports itself caught up (its
 *       {@code DiskIdentity} check: a new or replaced disk neither votes nor serves before);</li>
 *   <li>additions and promotions come before removals, so a replace never shrinks the voters first;</li>
 *   <li>a voter leaves only if the voters left include a majority that are up and caught up
 *       ({@link #removalProblem}); a leader hands its leadership to the most applied of them first
 *       (a leader that removes itself steps down and the others wait out their leader timeout).</li>
 * </ul>
 * Pure: no I/O, no clock; table-driven tests in {@code MemberPlannerTest}.
 */
public final class MemberPlanner {
    private MemberPlanner() {
    }

    /**
     * What the coordinator learned of one node from its admin port this round.
     *
     * @param member the Raft member id the node runs as ({@link MemberIds}); null for the node's own id
     */
    public record NodeState(boolean up, boolean rejoining, boolean leader, long appliedIndex, String member) {
        public static final NodeState DOWN = new NodeState(false, false, false, 0, null);

        public NodeState(boolean up, boolean rejoining, boolean leader, long appliedIndex) {
            this(up, rejoining, leader, appliedIndex, null);
        }

        boolean ready() {
            return up && !rejoining;
        }

        /** The member id node {@code node} runs as. */
        String memberOf(String node) {
            return member == null || member.isEmpty() ? node : member;
        }
    }

    /** One step: a change to make, or none with the reason the group waits (null when it matches the topology). */
    public record Step(MemberChange change, String waiting) {
        static Step change(MemberChange c) {
            return new Step(c, null);
        }

        static Step waiting(String reason) {
            return new Step(null, reason);
        }

        public static final Step IN_SYNC = new Step(null, null);
    }

    /**
     * @param wanted  the replicaset as the current topology names it
     * @param members its Raft membership, as its leader knows it
     * @param states  what each node's admin port answered, by node id; nodes the topology no longer names are
     *                known only by their Raft address, so their state comes from their peers' answers
     */
    public static Step next(ReplicasetSpec wanted, MemberChange.View members, Function<String, NodeState> states) {
        if (!members.committed()) return Step.waiting("membership change at index " + members.index() + " not yet committed");
        Function<String, NodeState> byMember = byMember(states);
        List<String> waits = new ArrayList<>();
        for (NodeAddress n : wanted.nodes()) {
            String member = states.apply(n.id()).memberOf(n.id());
            if (!members.learners().containsKey(member)) continue;
            if (byMember.apply(member).ready()) return Step.change(new MemberChange(MemberChange.Op.PROMOTE, member, n.raftAddress(), members.index()));
            waits.add(member + " is catching up as a learner");
        }
        if (waits.isEmpty()) {
            for (NodeAddress n : wanted.nodes()) {
                Step s = join(n, members, states.apply(n.id()), byMember, waits);
                if (s != null) return s;
            }
        }
        if (!waits.isEmpty()) return Step.waiting(String.join("; ", waits));
        for (String learner : members.learners().keySet()) {
            if (!named(wanted, learner)) return Step.change(new MemberChange(MemberChange.Op.REMOVE, learner, "", members.index()));
        }
        for (String voter : members.voters().keySet()) {
            if (named(wanted, voter)) continue;
            String problem = removalProblem(members, voter, byMember);
            if (problem != null) return Step.waiting(problem + "; bring them back, or run cairn node remove " + MemberIds.nodeOf(voter) + " --force");
            List<String> ready = readyVoters(members, voter, byMember);
            boolean aPeerLeads = ready.stream().anyMatch(v -> byMember.apply(v).leader());
            // the leaving voter may lead (no peer says it does): hand over first, then remove
            if (!aPeerLeads) return Step.change(MemberChange.lead(ready.get(0)));
            return Step.change(new MemberChange(MemberChange.Op.REMOVE, voter, "", members.index()));
        }
        for (String voter : members.voters().keySet()) {
            if (byMember.apply(voter).up() && byMember.apply(voter).rejoining()) {
                return Step.waiting(voter + " catches up with its vote withheld (its folder is older than what it acknowledged)");
            }
        }
        return Step.IN_SYNC;
    }

    /**
     * The step that makes node {@code n}'s running member a member of the group, or null when it is one (or
     * the node is down: then the reason is added to {@code waits}). A node back on a new disk runs as a new
     * member ({@link MemberIds}): its old member leaves first, if the voters left keep a caught-up majority,
     * and the new one joins as a learner.
     */
    private static Step join(NodeAddress n, MemberChange.View members, NodeState state, Function<String, NodeState> byMember, List<String> waits) {
        String member = state.memberOf(n.id());
        if (members.has(member)) return null;
        List<String> old = members.membersOf(n.id());
        if (!state.up()) {
            if (old.isEmpty()) waits.add(n.id() + " is not up yet; start it to add it to the group");
            return null;
        }
        if (old.isEmpty()) return Step.change(new MemberChange(MemberChange.Op.ADD_LEARNER, member, n.raftAddress(), members.index()));
        String previous = old.get(0);
        String problem = removalProblem(members, previous, byMember);
        if (problem != null) {
            waits.add(n.id() + " is back on a new disk as " + member + ", which joins as a learner once its old member " + previous
                    + " leaves the voters; until then " + previous + " stays a voter that never votes: " + problem);
            return null;
        }
        return Step.change(new MemberChange(MemberChange.Op.REMOVE, previous, "", members.index()));
    }

    /** Whether {@code member} is a node the topology names, running as that member (not an old member of a node back on a new disk). */
    private static boolean named(ReplicasetSpec wanted, String member) {
        return wanted.nodes().stream().anyMatch(n -> n.id().equals(MemberIds.nodeOf(member)));
    }

    /** A member's state: its node's, when the node runs as that member; DOWN for an old member of a node back on a new disk. */
    public static Function<String, NodeState> byMember(Function<String, NodeState> byNode) {
        return member -> {
            String node = MemberIds.nodeOf(member);
            NodeState s = byNode.apply(node);
            return s.memberOf(node).equals(member) ? s : NodeState.DOWN;
        };
    }

    /**
     * Why removing voter {@code id} is unsafe: the voters left must include a majority that are up and
     * caught up, or a later failure could leave the group without the acknowledged writes. Null when safe.
     *
     * @param states by member id ({@link #byMember})
     */
    public static String removalProblem(MemberChange.View members, String id, Function<String, NodeState> states) {
        if (!members.voters().containsKey(id)) return null;
        List<String> stay = new ArrayList<>(members.voters().keySet());
        stay.remove(id);
        List<String> ready = readyVoters(members, id, states);
        if (ready.size() * 2 > stay.size()) return null;
        return "removing " + id + " leaves voters " + sorted(stay) + " of which only " + sorted(ready) + " are up and caught up, not a majority";
    }

    /** The voters other than {@code leaving} that are up and caught up, the most applied first (the one to hand leadership to). */
    public static List<String> readyVoters(MemberChange.View members, String leaving, Function<String, NodeState> states) {
        List<String> ready = new ArrayList<>();
        for (String v : members.voters().keySet()) if (!v.equals(leaving) && states.apply(v).ready()) ready.add(v);
        ready.sort(Comparator.comparingLong((String v) -> states.apply(v).appliedIndex()).reversed().thenComparing(Comparator.naturalOrder()));
        return ready;
    }

    private static List<String> sorted(List<String> ids) {
        return ids.stream().sorted().toList();
    }

    /** {@link #next}'s states from a map by node id; absent nodes are {@link NodeState#DOWN}. */
    public static Function<String, NodeState> of(Map<String, NodeState> states) {
        return id -> states.getOrDefault(id, NodeState.DOWN);
    }
}
