package io.cairn.core.topology;

import io.cairn.core.topology.MemberPlanner.NodeState;
import io.cairn.core.topology.MemberPlanner.Step;
import io.cairn.core.wire.MemberChange;
import io.cairn.core.wire.MemberChange.Op;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class MemberPlannerTest {
    private static final NodeState READY = new NodeState(true, false, false, 100);
    private static final NodeState LEADER = new NodeState(true, false, true, 100);
    private static final NodeState CATCHING_UP = new NodeState(true, true, false, 10);

    @Test
    void aGroupThatMatchesItsTopologyNeedsNothing() {
        Step s = plan(rs("a", "b", "c"), view(true, voters("a", "b", "c"), learners()), Map.of("a", LEADER, "b", READY, "c", READY));
        assertThat(s).isEqualTo(Step.IN_SYNC);
    }

    @Test
    void aNewNodeJoinsAsALearnerOnlyOnceItAnswers() {
        MemberChange.View v = view(true, voters("a", "b", "c"), learners());
        assertThat(plan(rs("a", "b", "c", "d"), v, Map.of("a", LEADER)).waiting()).contains("d is not up yet");
        Step s = plan(rs("a", "b", "c", "d"), v, Map.of("a", LEADER, "d", CATCHING_UP));
        assertThat(s.change()).isEqualTo(new MemberChange(Op.ADD_LEARNER, "d", "127.0.0.1:4", 7));
    }

    @Test
    void aLearnerIsPromotedOnlyOnceCaughtUp() {
        MemberChange.View v = view(true, voters("a", "b", "c"), learners("d"));
        assertThat(plan(rs("a", "b", "c", "d"), v, Map.of("d", CATCHING_UP)).waiting()).contains("d is catching up");
        assertThat(plan(rs("a", "b", "c", "d"), v, Map.of("d", NodeState.DOWN)).change()).isNull();
        assertThat(plan(rs("a", "b", "c", "d"), v, Map.of("d", READY)).change()).isEqualTo(new MemberChange(Op.PROMOTE, "d", "127.0.0.1:4", 7));
    }

    @Test
    void nothingChangesWhileTheLastChangeIsUncommitted() {
        Step s = plan(rs("a", "b", "c", "d"), view(false, voters("a", "b", "c"), learners("d")), Map.of("d", READY));
        assertThat(s.change()).isNull();
        assertThat(s.waiting()).contains("not yet committed");
    }

    @Test
    void additionsComeBeforeRemovalsSoAReplaceNeverShrinksTheVotersFirst() {
        // the topology already swapped b for d: d is added and promoted before b leaves
        MemberChange.View v = view(true, voters("a", "b", "c"), learners());
        Map<String, NodeState> states = Map.of("a", LEADER, "b", READY, "c", READY, "d", CATCHING_UP);
        assertThat(plan(rs("a", "c", "d"), v, states).change().op()).isEqualTo(Op.ADD_LEARNER);
        v = view(true, voters("a", "b", "c"), learners("d"));
        assertThat(plan(rs("a", "c", "d"), v, states).waiting()).contains("d is catching up");
        assertThat(plan(rs("a", "c", "d"), v, with(states, "d", READY)).change().op()).isEqualTo(Op.PROMOTE);
        v = view(true, voters("a", "b", "c", "d"), learners());
        assertThat(plan(rs("a", "c", "d"), v, with(states, "d", READY)).change()).isEqualTo(new MemberChange(Op.REMOVE, "b", "", 7));
    }

    @Test
    void aVoterLeavesOnlyWithACaughtUpMajorityLeft() {
        MemberChange.View v = view(true, voters("a", "b", "c"), learners());
        // voters left a (down) and c: one of two is not a majority
        Step s = plan(rs("a", "c"), v, Map.of("b", LEADER, "c", READY));
        assertThat(s.change()).isNull();
        assertThat(s.waiting()).contains("removing b leaves voters [a, c] of which only [c]").contains("--force");
        // a rejoining voter does not count either
        assertThat(plan(rs("a", "c"), v, Map.of("a", CATCHING_UP, "c", LEADER)).change()).isNull();
        assertThat(plan(rs("a", "c"), v, Map.of("a", READY, "c", LEADER)).change().op()).isEqualTo(Op.REMOVE);
    }

    @Test
    void aLeavingLeaderHandsOverToTheMostAppliedReadyVoterFirst() {
        MemberChange.View v = view(true, voters("a", "b", "c"), learners());
        Map<String, NodeState> states = Map.of("a", new NodeState(true, false, false, 90), "c", new NodeState(true, false, false, 95));
        assertThat(plan(rs("a", "c"), v, states).change()).isEqualTo(MemberChange.lead("c"));
        assertThat(plan(rs("a", "c"), v, with(states, "c", LEADER)).change().op()).isEqualTo(Op.REMOVE);
    }

    @Test
    void aLearnerTheTopologyDroppedIsRemovedWhateverItsState() {
        MemberChange.View v = view(true, voters("a", "b", "c"), learners("d"));
        assertThat(plan(rs("a", "b", "c"), v, Map.of()).change()).isEqualTo(new MemberChange(Op.REMOVE, "d", "", 7));
    }

    /** Node b back on a new disk runs as member b~n1: b leaves the voters when safe, b~n1 joins as a learner, then votes. */
    private static final NodeState B_NEW_CATCHING_UP = new NodeState(true, true, false, 0, "b~n1");
    private static final NodeState B_NEW_READY = new NodeState(true, false, false, 100, "b~n1");

    @Test
    void aNodeBackOnANewDiskReplacesItsOldMemberWhichLeavesTheVotersBeforeTheNewOneJoinsAsALearner() {
        ReplicasetSpec wanted = rs("a", "b", "c");
        MemberChange.View v = view(true, voters("a", "b", "c"), learners());
        Map<String, NodeState> states = Map.of("a", LEADER, "b", B_NEW_CATCHING_UP, "c", READY);
        assertThat(plan(wanted, v, states).change()).isEqualTo(new MemberChange(Op.REMOVE, "b", "", 7));

        v = view(true, voters("a", "c"), learners());
        assertThat(plan(wanted, v, states).change()).isEqualTo(new MemberChange(Op.ADD_LEARNER, "b~n1", "127.0.0.1:2", 7));

        v = view(true, voters("a", "c"), learners("b~n1"));
        assertThat(plan(wanted, v, states).waiting()).contains("b~n1 is catching up as a learner");
        assertThat(plan(wanted, v, with(states, "b", B_NEW_READY)).change()).isEqualTo(new MemberChange(Op.PROMOTE, "b~n1", "127.0.0.1:2", 7));

        v = view(true, voters("a", "c", "b~n1"), learners());
        assertThat(plan(wanted, v, with(states, "b", B_NEW_READY))).isEqualTo(Step.IN_SYNC);
    }

    @Test
    void theOldMemberOfANodeOnANewDiskStaysAVoterWhileTheOthersAreNotACaughtUpMajority() {
        MemberChange.View v = view(true, voters("a", "b", "c"), learners());
        // the leader a is down: removing b would leave a (down) and c, and the group would stand on c alone
        Step s = plan(rs("a", "b", "c"), v, Map.of("b", B_NEW_CATCHING_UP, "c", READY));
        assertThat(s.change()).isNull();
        assertThat(s.waiting()).contains("b is back on a new disk as b~n1").contains("its old member b").contains("not a majority");
        // a lagging voter back (c caught up, a catching up): still not
        assertThat(plan(rs("a", "b", "c"), v, Map.of("a", CATCHING_UP, "b", B_NEW_CATCHING_UP, "c", READY)).change()).isNull();
    }

    @Test
    void anOldMemberIsNeverTakenForItsNodesNewMember() {
        // the node runs as b~n1: the state its admin port reports is not the old member b's, which is down for good
        MemberChange.View v = view(true, voters("a", "b", "c"), learners());
        assertThat(MemberPlanner.byMember(MemberPlanner.of(Map.of("b", B_NEW_READY))).apply("b")).isEqualTo(NodeState.DOWN);
        assertThat(MemberPlanner.byMember(MemberPlanner.of(Map.of("b", B_NEW_READY))).apply("b~n1")).isEqualTo(B_NEW_READY);
        // the topology drops a, but b's old member goes first: a and c (ready) keep a caught-up majority without it
        Step s = plan(rs("b", "c"), v, Map.of("a", LEADER, "b", B_NEW_READY, "c", READY));
        assertThat(s.change()).isEqualTo(new MemberChange(Op.REMOVE, "b", "", 7));
    }

    @Test
    void aNodeDownOnANewDiskLeavesItsOldMemberAlone() {
        MemberChange.View v = view(true, voters("a", "b", "c"), learners());
        assertThat(plan(rs("a", "b", "c"), v, Map.of("a", LEADER, "c", READY))).isEqualTo(Step.IN_SYNC);
    }

    private static Step plan(ReplicasetSpec rs, MemberChange.View v, Map<String, NodeState> states) {
        return MemberPlanner.next(rs, v, MemberPlanner.of(states));
    }

    private static ReplicasetSpec rs(String... ids) {
        return new ReplicasetSpec("rs1", 1, Arrays.stream(ids).map(MemberPlannerTest::node).toList());
    }

    private static NodeAddress node(String id) {
        int port = id.charAt(0) - 'a' + 1;
        return new NodeAddress(id, "127.0.0.1", port, 100 + port, 200 + port);
    }

    private static MemberChange.View view(boolean committed, Map<String, String> voters, Map<String, String> learners) {
        return new MemberChange.View(7, committed, voters, learners);
    }

    private static Map<String, String> voters(String... ids) {
        return addresses(List.of(ids));
    }

    private static Map<String, String> learners(String... ids) {
        return addresses(List.of(ids));
    }

    private static Map<String, String> addresses(List<String> ids) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String id : ids) m.put(id, node(id).raftAddress());
        return m;
    }

    private static Map<String, NodeState> with(Map<String, NodeState> states, String id, NodeState s) {
        Map<String, NodeState> m = new HashMap<>(states);
        m.put(id, s);
        return m;
    }
}
