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

    /** What the coordinator learned of one member from its admin port this round. */
    public record NodeState(boolean up, boolean rejoining, boolean leader, long appliedIndex) {
        public static final NodeState DOWN = new NodeState(false, false, false, 0);

        boolean ready() {
            return up && !rejoining;
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
     * @param states  what each member's admin port answered; members the topology no longer names are
     *                known only by their Raft address, so their state comes from their peers' answers
     */
    public static Step next(ReplicasetSpec wanted, MemberChange.View members, Function<String, NodeState> states) {
        if (!members.committed()) return Step.waiting("membership change at index " + members.index() + " not yet committed");
        List<String> waits = new ArrayList<>();
        for (NodeAddress n : wanted.nodes()) {
            if (!members.learners().containsKey(n.id())) continue;
            if (states.apply(n.id()).ready()) return Step.change(new MemberChange(MemberChange.Op.PROMOTE, n.id(), n.raftAddress(), members.index()));
            waits.add(n.id() + " is catching up as a learner");
        }
        if (waits.isEmpty()) {
            for (NodeAddress n : wanted.nodes()) {
                if (members.has(n.id())) continue;
                if (states.apply(n.id()).up()) return Step.change(new MemberChange(MemberChange.Op.ADD_LEARNER, n.id(), n.raftAddress(), members.index()));
                waits.add(n.id() + " is not up yet; start it to add it to the group");
            }
        }
        if (!waits.isEmpty()) return Step.waiting(String.join("; ", waits));
        for (String learner : members.learners().keySet()) {
            if (wanted.nodes().stream().noneMatch(n -> n.id().equals(learner))) {
                return Step.change(new MemberChange(MemberChange.Op.REMOVE, learner, "", members.index()));
            }
        }
        for (String voter : members.voters().keySet()) {
            if (wanted.nodes().stream().anyMatch(n -> n.id().equals(voter))) continue;
            String problem = removalProblem(members, voter, states);
            if (problem != null) return Step.waiting(problem + "; bring them back, or run cairn node remove " + voter + " --force");
            List<String> ready = readyVoters(members, voter, states);
            boolean aPeerLeads = ready.stream().anyMatch(v -> states.apply(v).leader());
            // the leaving voter may lead (no peer says it does): hand over first, then remove
            if (!aPeerLeads) return Step.change(MemberChange.lead(ready.get(0)));
            return Step.change(new MemberChange(MemberChange.Op.REMOVE, voter, "", members.index()));
        }
        return Step.IN_SYNC;
    }

    /**
     * Why removing voter {@code id} is unsafe: the voters left must include a majority that are up and
     * caught up, or a later failure could leave the group without the acknowledged writes. Null when safe.
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

    /** {@link #next}'s states from a map; absent members are {@link NodeState#DOWN}. */
    public static Function<String, NodeState> of(Map<String, NodeState> states) {
        return id -> states.getOrDefault(id, NodeState.DOWN);
    }
}
