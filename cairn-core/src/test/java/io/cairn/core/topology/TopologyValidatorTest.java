package io.cairn.core.topology;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every problem of a topology on its own, and the guardrails on a change between epochs. */
class TopologyValidatorTest {
    private static final String HOST = "127.0.0.1";
    private static final NodeAddress C1 = node("c1", 7000);

    /** A node with raftPort {@code port} and adminPort {@code port + 1}. */
    private static NodeAddress node(String id, int port) {
        return new NodeAddress(id, HOST, port, port + 1);
    }

    /** A replicaset of {@code size} nodes named {@code id-1..}, on ports from {@code basePort}. */
    private static ReplicasetSpec replicaset(String id, int size, int basePort) {
        List<NodeAddress> nodes = new ArrayList<>();
        for (int i = 0; i < size; i++) nodes.add(node(id + "-" + (i + 1), basePort + 2 * i));
        return new ReplicasetSpec(id, 1, nodes);
    }

    private static Topology topology(int bucketCount, ReplicasetSpec... replicasets) {
        return new Topology(1, bucketCount, List.of(C1), List.of(replicasets), List.of(new RouterSpec("r1", HOST, 6379, 7002)));
    }

    private static Topology valid() {
        return topology(3000, replicaset("rs1", 3, 7100), replicaset("rs2", 1, 7200));
    }

    @Test
    void validTopologyHasNoProblems() {
        assertThat(TopologyValidator.problems(valid())).isEmpty();
        assertThatCode(() -> TopologyValidator.requireValid(valid())).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, TopologyValidator.MAX_BUCKET_COUNT + 1})
    void bucketCountOutOfRangeIsAProblem(int bucketCount) {
        assertThat(TopologyValidator.problems(topology(bucketCount, replicaset("rs1", 1, 7100))))
                .singleElement().asString().contains("bucketCount").contains(Integer.toString(bucketCount));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, TopologyValidator.MAX_BUCKET_COUNT})
    void bucketCountBoundsAreAccepted(int bucketCount) {
        assertThat(TopologyValidator.problems(topology(bucketCount, replicaset("rs1", 1, 7100)))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 6, 7})
    void replicasetSizesOutsideOneToFiveAreAProblem(int size) {
        assertThat(TopologyValidator.problems(topology(3000, replicaset("rs1", size, 7100))))
                .anySatisfy(p -> assertThat(p).contains("'rs1'").contains(size + " nodes"));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void replicasetsOfOneToFiveAreAcceptedTwoAndFourWhileAMemberIsReplaced(int size) {
        assertThat(TopologyValidator.problems(topology(3000, replicaset("rs1", size, 7100)))).isEmpty();
    }

    @Test
    void duplicateNodeIdIsAProblem() {
        ReplicasetSpec a = new ReplicasetSpec("rs1", 1, List.of(node("s1", 7100)));
        ReplicasetSpec b = new ReplicasetSpec("rs2", 1, List.of(node("s1", 7200)));
        assertThat(TopologyValidator.problems(topology(3000, a, b))).containsExactly("duplicate node id 's1'");
    }

    @Test
    void storageNodeReusingTheCoordinatorIdIsAProblem() {
        ReplicasetSpec a = new ReplicasetSpec("rs1", 1, List.of(node("c1", 7100)));
        assertThat(TopologyValidator.problems(topology(3000, a))).containsExactly("duplicate node id 'c1'");
    }

    @Test
    void routerReusingANodeIdIsAProblem() {
        Topology t = new Topology(1, 3000, List.of(C1), List.of(replicaset("rs1", 1, 7100)),
                List.of(new RouterSpec("rs1-1", HOST, 6379, 7002)));
        assertThat(TopologyValidator.problems(t)).containsExactly("duplicate node id 'rs1-1'");
    }

    @Test
    void duplicateReplicasetIdIsAProblem() {
        assertThat(TopologyValidator.problems(topology(3000, replicaset("rs1", 1, 7100), replicaset("rs1", 1, 7200))))
                .anySatisfy(p -> assertThat(p).contains("duplicate replicaset id 'rs1'"));
    }

    @Test
    void replicasetAndNodeMayShareAnId() {
        ReplicasetSpec a = new ReplicasetSpec("alpha", 1, List.of(node("alpha", 7100)));
        assertThat(TopologyValidator.problems(topology(3000, a))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 1_000_001})
    void weightOutOfRangeIsAProblem(int weight) {
        ReplicasetSpec a = new ReplicasetSpec("rs1", weight, List.of(node("s1", 7100)));
        ReplicasetSpec b = new ReplicasetSpec("rs2", 1, List.of(node("s2", 7200)));
        assertThat(TopologyValidator.problems(topology(3000, a, b)))
                .singleElement().asString().contains("'rs1' weight").contains(Integer.toString(weight));
    }

    @Test
    void allZeroWeightsAreAProblem() {
        ReplicasetSpec a = new ReplicasetSpec("rs1", 0, List.of(node("s1", 7100)));
        ReplicasetSpec b = new ReplicasetSpec("rs2", 0, List.of(node("s2", 7200)));
        assertThat(TopologyValidator.problems(topology(3000, a, b))).containsExactly("at least one replicaset needs a positive weight");
    }

    @Test
    void negativeWeightDoesNotOffsetAPositiveOne() {
        ReplicasetSpec a = new ReplicasetSpec("rs1", -5, List.of(node("s1", 7100)));
        ReplicasetSpec b = new ReplicasetSpec("rs2", 0, List.of(node("s2", 7200)));
        assertThat(TopologyValidator.problems(topology(3000, a, b)))
                .anySatisfy(p -> assertThat(p).contains("positive weight"));
    }

    @Test
    void portUsedTwiceOnOneHostIsAProblem() {
        ReplicasetSpec a = new ReplicasetSpec("rs1", 1, List.of(new NodeAddress("s1", HOST, 7100, 7101)));
        ReplicasetSpec b = new ReplicasetSpec("rs2", 1, List.of(new NodeAddress("s2", HOST, 7200, 7100)));
        assertThat(TopologyValidator.problems(topology(3000, a, b)))
                .singleElement().asString().contains("s2 adminPort").contains(HOST + ":7100").contains("used twice");
    }

    @Test
    void dataPortClashingWithAnotherPortIsAProblem() {
        ReplicasetSpec a = new ReplicasetSpec("rs1", 1, List.of(new NodeAddress("s1", HOST, 7100, 7101, 7102)));
        ReplicasetSpec b = new ReplicasetSpec("rs2", 1, List.of(new NodeAddress("s2", HOST, 7200, 7201, 7101)));
        assertThat(TopologyValidator.problems(topology(3000, a, b)))
                .singleElement().asString().contains("s2 dataPort").contains(HOST + ":7101").contains("used twice");
    }

    @Test
    void dataPortOutOfRangeIsAProblemAndZeroMeansUnnamed() {
        ReplicasetSpec unnamed = new ReplicasetSpec("rs1", 1, List.of(new NodeAddress("s1", HOST, 7100, 7101, 0)));
        assertThat(TopologyValidator.problems(topology(3000, unnamed))).isEmpty();
        ReplicasetSpec outOfRange = new ReplicasetSpec("rs1", 1, List.of(new NodeAddress("s1", HOST, 7100, 7101, 70000)));
        assertThat(TopologyValidator.problems(topology(3000, outOfRange))).singleElement().asString().contains("s1 dataPort").contains("70000");
    }

    @Test
    void routerPortClashingWithANodePortIsAProblem() {
        Topology t = new Topology(1, 3000, List.of(C1), List.of(replicaset("rs1", 1, 7100)),
                List.of(new RouterSpec("r1", HOST, 7000, 7002)));
        assertThat(TopologyValidator.problems(t)).singleElement().asString().contains("router r1 respPort");
    }

    @Test
    void samePortOnDifferentHostsIsFine() {
        ReplicasetSpec a = new ReplicasetSpec("rs1", 1, List.of(new NodeAddress("s1", "10.0.0.1", 7100, 7101)));
        ReplicasetSpec b = new ReplicasetSpec("rs2", 1, List.of(new NodeAddress("s2", "10.0.0.2", 7100, 7101)));
        assertThat(TopologyValidator.problems(topology(3000, a, b))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 65536})
    void portOutOfRangeIsAProblem(int port) {
        ReplicasetSpec a = new ReplicasetSpec("rs1", 1, List.of(new NodeAddress("s1", HOST, port, 7101)));
        assertThat(TopologyValidator.problems(topology(3000, a)))
                .singleElement().asString().contains("s1 raftPort").contains(Integer.toString(port));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "has space", "slash/id", "dot.id", "ünï"})
    void badIdsAreProblems(String id) {
        ReplicasetSpec a = new ReplicasetSpec(id, 1, List.of(node(id, 7100)));
        assertThat(TopologyValidator.problems(topology(3000, a)))
                .anySatisfy(p -> assertThat(p).startsWith("replicaset id '" + id + "'"))
                .anySatisfy(p -> assertThat(p).startsWith("storage node id '" + id + "'"));
    }

    @Test
    void idLengthIsLimitedTo64() {
        ReplicasetSpec ok = new ReplicasetSpec("r".repeat(64), 1, List.of(node("n".repeat(64), 7100)));
        assertThat(TopologyValidator.problems(topology(3000, ok))).isEmpty();
        ReplicasetSpec tooLong = new ReplicasetSpec("r".repeat(65), 1, List.of(node("s1", 7100)));
        assertThat(TopologyValidator.problems(topology(3000, tooLong))).hasSize(1);
    }

    @Test
    void missingHostCoordinatorsOrReplicasetsAreProblems() {
        ReplicasetSpec a = new ReplicasetSpec("rs1", 1, List.of(new NodeAddress("s1", " ", 7100, 7101)));
        assertThat(TopologyValidator.problems(topology(3000, a))).containsExactly("storage node 's1' has no host");
        Topology empty = new Topology(1, 3000, List.of(), List.of(), null);
        assertThat(TopologyValidator.problems(empty)).containsExactlyInAnyOrder(
                "at least one coordinator node is required", "at least one replicaset is required");
    }

    @Test
    void everyProblemIsReportedAtOnce() {
        ReplicasetSpec a = new ReplicasetSpec("rs 1", -1, List.of(node("s1", 7100), node("s1", 7100), node("s2", 7102), node("s3", 7104),
                node("s4", 7106), node("s5", 7108)));
        List<String> problems = TopologyValidator.problems(topology(0, a));
        assertThat(problems).anySatisfy(p -> assertThat(p).contains("bucketCount"))
                .anySatisfy(p -> assertThat(p).contains("replicaset id 'rs 1'"))
                .anySatisfy(p -> assertThat(p).contains("has 6 nodes"))
                .anySatisfy(p -> assertThat(p).contains("weight"))
                .anySatisfy(p -> assertThat(p).contains("duplicate node id 's1'"))
                .anySatisfy(p -> assertThat(p).contains("used twice"));
        assertThatThrownBy(() -> TopologyValidator.requireValid(topology(0, a)))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_CONFIG))
                .hasMessageContaining("bucketCount").hasMessageContaining("duplicate node id 's1'");
    }

    @Test
    void changingBucketCountIsRefused() {
        Topology next = topology(4000, replicaset("rs1", 3, 7100), replicaset("rs2", 1, 7200)).withEpoch(2);
        assertThat(TopologyValidator.changeProblems(valid(), next))
                .singleElement().asString().contains("bucketCount is fixed").contains("3000").contains("4000");
    }

    @Test
    void keepingAMajorityOfMembersIsAccepted() {
        ReplicasetSpec replaced = new ReplicasetSpec("rs1", 1, List.of(node("rs1-1", 7100), node("rs1-2", 7102), node("rs1-new", 7104)));
        Topology next = topology(3000, replaced, replicaset("rs2", 1, 7200));
        assertThat(TopologyValidator.changeProblems(valid(), next)).isEmpty();
        Topology grown = topology(3000, replicaset("rs1", 5, 7100), replicaset("rs2", 1, 7200));
        assertThat(TopologyValidator.changeProblems(valid(), grown)).isEmpty();
    }

    @Test
    void keepingAMinorityOfMembersIsRefused() {
        ReplicasetSpec replaced = new ReplicasetSpec("rs1", 1, List.of(node("rs1-1", 7100), node("x2", 7102), node("x3", 7104)));
        Topology next = topology(3000, replaced, replicaset("rs2", 1, 7200));
        assertThat(TopologyValidator.changeProblems(valid(), next))
                .singleElement().asString().contains("'rs1' would keep 1 of its 3 members");
    }

    @Test
    void replacingTheOnlyMemberOrHalfOfFiveIsRefused() {
        Topology fiveAndOne = topology(3000, replicaset("rs1", 5, 7100), replicaset("rs2", 1, 7200));
        ReplicasetSpec twoOfFive = new ReplicasetSpec("rs1", 1, List.of(node("rs1-1", 7100), node("rs1-2", 7102), node("x3", 7104)));
        ReplicasetSpec newSingle = new ReplicasetSpec("rs2", 1, List.of(node("x9", 7200)));
        assertThat(TopologyValidator.changeProblems(fiveAndOne, topology(3000, twoOfFive, newSingle))).containsExactlyInAnyOrder(
                "replicaset 'rs1' would keep 2 of its 5 members; a change must keep a majority",
                "replicaset 'rs2' would keep 0 of its 1 members; a change must keep a majority");
    }

    @Test
    void changeToAnInvalidTopologyReportsItsProblems() {
        Topology next = topology(3000, replicaset("rs1", 6, 7100), replicaset("rs2", 1, 7200));
        assertThat(TopologyValidator.changeProblems(valid(), next)).anySatisfy(p -> assertThat(p).contains("has 6 nodes"));
    }

    /** A replace adds a member, then removes one: 3, 4, 3 (issue 21). */
    @Test
    void aReplicasetGrowsByOneMemberAndShrinksBackWhileAMemberIsReplaced() {
        Topology four = topology(3000, replicaset("rs1", 4, 7100), replicaset("rs2", 1, 7200));
        assertThat(TopologyValidator.changeProblems(valid(), four)).isEmpty();
        ReplicasetSpec without2 = new ReplicasetSpec("rs1", 1, List.of(node("rs1-1", 7100), node("rs1-3", 7104), node("rs1-4", 7106)));
        assertThat(TopologyValidator.changeProblems(four, topology(3000, without2, replicaset("rs2", 1, 7200)))).isEmpty();
    }

    @Test
    void addingAReplicasetIsAccepted() {
        Topology next = topology(3000, replicaset("rs1", 3, 7100), replicaset("rs2", 1, 7200), replicaset("rs3", 3, 7300));
        assertThat(TopologyValidator.changeProblems(valid(), next)).isEmpty();
    }

    @Test
    void removingAReplicasetIsRefusedUntilItsWeightIsZero() {
        Topology withoutRs2 = topology(3000, replicaset("rs1", 3, 7100));
        assertThat(TopologyValidator.changeProblems(valid(), withoutRs2))
                .singleElement().asString().contains("'rs2' has weight 1").contains("drain it first");
        ReplicasetSpec drained = new ReplicasetSpec("rs2", 0, replicaset("rs2", 1, 7200).nodes());
        Topology afterDrain = topology(3000, replicaset("rs1", 3, 7100), drained);
        assertThat(TopologyValidator.changeProblems(afterDrain, withoutRs2)).isEmpty();
    }
}
