package io.cairn.core.rebalance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** Targets (vshard's etalon with pinned freeze), disbalance and bounded routes, case by case. */
class RebalancePlannerTest {
    private static final PlanLimits UNLIMITED = new PlanLimits(0, 10_000, 10_000, 10_000);

    private static ReplicasetLoad rs(String id, double weight, int active) {
        return ReplicasetLoad.settled(id, weight, active, 0);
    }

    private static ReplicasetLoad rs(String id, double weight, int active, int pinned) {
        return ReplicasetLoad.settled(id, weight, active, pinned);
    }

    /** rs1..rsN with these weights and no buckets yet. */
    private static List<ReplicasetLoad> weights(String weights) {
        String[] w = weights.trim().split(" +");
        List<ReplicasetLoad> out = new ArrayList<>();
        for (int i = 0; i < w.length; i++) out.add(rs("rs" + (i + 1), Double.parseDouble(w[i]), 0));
        return out;
    }

    private static Plan plan(PlanLimits limits, int bucketCount, ReplicasetLoad... loads) {
        return RebalancePlanner.plan(List.of(loads), bucketCount, limits);
    }

    @ParameterizedTest(name = "{0} buckets over weights {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
            "3000 | 1 1 1           | 1000 1000 1000",
            "10   | 1 2             | 3 7",            // 3.33, 6.67: the larger remainder wins
            "7    | 5 3 2           | 4 2 1",          // 3.5, 2.1, 1.4
            "10   | 1 1 1 3         | 2 2 1 5",        // tied remainders: smaller ids first
            "10   | 1 1 1           | 4 3 3",
            "2    | 1 1 1 1 1       | 1 1 0 0 0",
            "100  | 0.5 1.5         | 25 75",
            "3000 | 1000000 999999 1 | 1500 1500 0",
            "10   | 1 0 1           | 5 0 5",
            "0    | 1 1             | 0 0",
    })
    void targetsFollowWeightsAndSumToBucketCount(int bucketCount, String weights, String expected) {
        Map<String, Integer> targets = RebalancePlanner.targets(weights(weights), bucketCount);
        assertThat(targets.values()).containsExactlyElementsOf(Arrays.stream(expected.trim().split(" +")).map(Integer::valueOf).toList());
        assertThat(targets.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(bucketCount);
    }

    @Test
    void tiedRemaindersGoToTheSmallerIdWhateverTheInputOrder() {
        Map<String, Integer> targets = RebalancePlanner.targets(List.of(rs("c", 1, 0), rs("a", 1, 0), rs("b", 1, 0)), 10);
        assertThat(targets).containsExactly(Map.entry("a", 4), Map.entry("b", 3), Map.entry("c", 3));
    }

    @Test
    void weightZeroDrainsAllButPinned() {
        Plan plan = plan(UNLIMITED, 100, rs("a", 0, 45, 5), rs("b", 1, 40), rs("c", 0, 10));
        assertThat(plan.targets()).containsExactly(Map.entry("a", 5), Map.entry("b", 95), Map.entry("c", 0));
        assertThat(plan.disbalancePercent()).isInfinite();
        assertThat(plan.routes()).containsExactly(new Route("a", "b", 45), new Route("c", "b", 10));
    }

    @Test
    void pinnedAboveShareFreezesReplicaset() {
        Map<String, Integer> targets = RebalancePlanner.targets(List.of(rs("a", 1, 0, 60), rs("b", 1, 40), rs("c", 1, 0)), 100);
        assertThat(targets).containsExactly(Map.entry("a", 60), Map.entry("b", 20), Map.entry("c", 20));
    }

    @Test
    void freezingOneReplicasetCanFreezeTheNextUntilStable() {
        // Shares 25 each freeze a (60 pinned); then b's share of the rest (14) is below its 25 pinned.
        List<ReplicasetLoad> loads = List.of(rs("a", 1, 0, 60), rs("b", 1, 0, 25), rs("c", 1, 15), rs("d", 1, 0));
        assertThat(RebalancePlanner.targets(loads, 100))
                .containsExactly(Map.entry("a", 60), Map.entry("b", 25), Map.entry("c", 8), Map.entry("d", 7));
    }

    @Test
    void pinnedAtExactlyItsShareIsNotFrozen() {
        Map<String, Integer> targets = RebalancePlanner.targets(List.of(rs("a", 1, 0, 34), rs("b", 1, 66), rs("c", 1, 0)), 100);
        assertThat(targets).containsExactly(Map.entry("a", 34), Map.entry("b", 33), Map.entry("c", 33));
    }

    @Test
    void zeroWeightsAreFineWhenEveryBucketIsPinned() {
        assertThat(RebalancePlanner.targets(List.of(rs("a", 0, 0, 6), rs("b", 0, 0, 4)), 10))
                .containsExactly(Map.entry("a", 6), Map.entry("b", 4));
    }

    static Stream<Arguments> impossibleInputs() {
        return Stream.of(
                arguments("all weights zero", (Executable) () -> RebalancePlanner.targets(weights("0 0"), 10), "no replicaset has a positive weight"),
                arguments("zero weights, some pinned", (Executable) () -> RebalancePlanner.targets(List.of(rs("a", 0, 0, 4), rs("b", 0, 6)), 10),
                        "hold the 6 buckets that are not pinned"),
                arguments("no replicasets", (Executable) () -> RebalancePlanner.targets(List.of(), 10), "no replicaset has a positive weight"),
                arguments("negative weight", (Executable) () -> rs("a", -1, 0), "weight of a must be a finite number >= 0"),
                arguments("NaN weight", (Executable) () -> rs("a", Double.NaN, 0), "weight of a must be a finite number >= 0"),
                arguments("infinite weight", (Executable) () -> rs("a", Double.POSITIVE_INFINITY, 0), "weight of a"),
                arguments("negative count", (Executable) () -> new ReplicasetLoad("a", 1, 0, 0, -1, 0), "must not be negative"),
                arguments("more pinned than buckets", (Executable) () -> RebalancePlanner.targets(List.of(rs("a", 1, 0, 11)), 10),
                        "11 pinned buckets exceed bucketCount 10"),
                arguments("duplicate id", (Executable) () -> RebalancePlanner.targets(List.of(rs("a", 1, 0), rs("a", 2, 0)), 10),
                        "replicaset a appears twice"),
                arguments("negative bucket count", (Executable) () -> RebalancePlanner.targets(weights("1"), -1), "bucketCount must not be negative"),
                arguments("missing target", (Executable) () -> RebalancePlanner.disbalancePercent(List.of(rs("a", 1, 0)), Map.of()),
                        "no target for replicaset a"),
                arguments("negative threshold", (Executable) () -> new PlanLimits(-1, 1, 1, 1), "thresholdPercent"),
                arguments("NaN threshold", (Executable) () -> new PlanLimits(Double.NaN, 1, 1, 1), "thresholdPercent"),
                arguments("no moves allowed", (Executable) () -> new PlanLimits(1, 1, 1, 0), "move limits must be at least 1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("impossibleInputs")
    void impossibleInputsAreRejectedWithAClearMessage(String name, Executable call, String message) {
        assertThatThrownBy(call::execute).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @ParameterizedTest(name = "a={0} b={1} -> {2}%")
    @CsvSource({"100, 100, 0", "90, 110, 10", "50, 150, 50", "101, 99, 1"})
    void disbalanceIsTheWorstGapRelativeToTheTarget(int a, int b, double expected) {
        List<ReplicasetLoad> loads = List.of(rs("a", 1, a), rs("b", 1, b));
        assertThat(RebalancePlanner.disbalancePercent(loads, Map.of("a", 100, "b", 100))).isEqualTo(expected);
    }

    @Test
    void disbalanceIsInfiniteOnlyWhileADrainedReplicasetHoldsBuckets() {
        assertThat(RebalancePlanner.disbalancePercent(List.of(rs("a", 0, 1), rs("b", 1, 99)), Map.of("a", 0, "b", 100))).isInfinite();
        assertThat(RebalancePlanner.disbalancePercent(List.of(rs("a", 0, 0), rs("b", 1, 100)), Map.of("a", 0, "b", 100))).isZero();
    }

    @Test
    void bucketsInFlightCountAtTheirDestination() {
        // a: 50 ACTIVE + 10 SENDING to b; b: 40 ACTIVE + those 10 RECEIVING. Once they land it is 50/50.
        Plan plan = plan(UNLIMITED, 100, new ReplicasetLoad("a", 1, 50, 0, 10, 0), new ReplicasetLoad("b", 1, 40, 0, 0, 10));
        assertThat(plan.disbalancePercent()).isZero();
        assertThat(plan.bucketsToMove()).isZero();
        assertThat(plan.routes()).isEmpty();
    }

    @Test
    void aSurplusAlreadyInFlightIsNotSentAgain() {
        // a holds 70 (60 ACTIVE + 10 SENDING), target 50: only 10 more must go, although capacity allows 90.
        Plan plan = plan(new PlanLimits(0, 100, 100, 100), 100,
                new ReplicasetLoad("a", 1, 60, 0, 10, 0), new ReplicasetLoad("b", 1, 30, 0, 0, 10));
        assertThat(plan.bucketsToMove()).isEqualTo(10);
        assertThat(plan.routes()).containsExactly(new Route("a", "b", 10));
    }

    @Test
    void noRoutesWithinThreshold() {
        ReplicasetLoad a = rs("a", 1, 504);
        ReplicasetLoad b = rs("b", 1, 496);
        PlanLimits onePercent = PlanLimits.withDefaultThreshold(10, 10, 10);
        Plan within = plan(onePercent, 1000, a, b);
        assertThat(within.disbalancePercent()).isEqualTo(0.8);
        assertThat(within.bucketsToMove()).isEqualTo(4);
        assertThat(within.routes()).isEmpty();
        assertThat(RebalancePlanner.converged(within, onePercent)).isTrue();

        PlanLimits halfPercent = new PlanLimits(0.5, 10, 10, 10);
        Plan above = plan(halfPercent, 1000, a, b);
        assertThat(above.routes()).containsExactly(new Route("a", "b", 4));
        assertThat(RebalancePlanner.converged(above, halfPercent)).isFalse();
    }

    @Test
    void largestSurplusFillsLargestDeficitFirst() {
        Plan plan = plan(UNLIMITED, 500, rs("a", 1, 130), rs("b", 1, 100), rs("c", 1, 120), rs("d", 1, 60), rs("e", 1, 90));
        assertThat(plan.routes()).containsExactly(new Route("a", "d", 30), new Route("c", "d", 10), new Route("c", "e", 10));
        assertThat(plan.bucketsToMove()).isEqualTo(50);
        assertThat(plan.plannedMoves()).isEqualTo(50);
    }

    /** 300 buckets, target 75 each; a already sends 2 to c. */
    private static List<ReplicasetLoad> crowded() {
        return List.of(new ReplicasetLoad("a", 1, 148, 0, 2, 0), rs("b", 1, 150),
                new ReplicasetLoad("c", 1, 0, 0, 0, 2), rs("d", 1, 0));
    }

    @ParameterizedTest(name = "maxSending={0} maxReceiving={1} maxMoves={2} -> {3}")
    @CsvSource(delimiter = '|', value = {
            // b (75 surplus) sends 5; a (73) has 5-2 = 3 left; d takes 4; c has 4-2 = 2 left.
            "5   | 4   | 100 | b>d:4 b>c:1 a>c:1",
            "5   | 4   | 3   | b>d:3",
            "2   | 100 | 100 | b>d:2",                 // a is already at its sending limit
            "100 | 2   | 100 | b>d:2",                 // c is already at its receiving limit
            "100 | 100 | 500 | b>d:75 a>c:73",
    })
    void routesRespectSendReceiveAndPlanLimits(int maxSending, int maxReceiving, int maxMoves, String expected) {
        Plan plan = RebalancePlanner.plan(crowded(), 300, new PlanLimits(1, maxSending, maxReceiving, maxMoves));
        assertThat(plan.bucketsToMove()).isEqualTo(148);
        assertThat(plan.routes()).containsExactlyElementsOf(Arrays.stream(expected.split(" ")).map(r -> {
            String[] parts = r.split("[>:]");
            return new Route(parts[0], parts[1], Integer.parseInt(parts[2]));
        }).toList());
    }

    @Test
    void aDonorSendsOnlyItsActiveBuckets() {
        // a was drained while still receiving 5 from b: 8 must leave, but only its 3 ACTIVE can go now.
        Plan plan = plan(UNLIMITED, 100, new ReplicasetLoad("a", 0, 3, 0, 0, 5), new ReplicasetLoad("b", 1, 92, 0, 5, 0));
        assertThat(plan.bucketsToMove()).isEqualTo(8);
        assertThat(plan.routes()).containsExactly(new Route("a", "b", 3));
    }

    @Test
    void planDoesNotDependOnInputOrder() {
        List<ReplicasetLoad> loads = new ArrayList<>(crowded());
        Plan plan = RebalancePlanner.plan(loads, 300, UNLIMITED);
        Collections.reverse(loads);
        assertThat(RebalancePlanner.plan(loads, 300, UNLIMITED)).isEqualTo(plan);
        assertThat(plan.targets().keySet()).containsExactly("a", "b", "c", "d");
    }
}
