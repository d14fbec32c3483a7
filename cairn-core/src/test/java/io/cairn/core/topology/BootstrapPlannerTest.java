package io.cairn.core.topology;

import io.cairn.core.topology.BootstrapPlanner.Range;
import io.cairn.core.testing.SeededRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The initial spread: contiguous ranges covering every bucket once, sized by largest remainder. */
@ExtendWith(SeededRandom.class)
class BootstrapPlannerTest {
    private static List<ReplicasetSpec> weights(int... weights) {
        List<ReplicasetSpec> out = new ArrayList<>();
        for (int i = 0; i < weights.length; i++) out.add(new ReplicasetSpec("rs" + (i + 1), weights[i], List.of()));
        return out;
    }

    private static List<Integer> sizes(Map<String, Range> plan) {
        return plan.values().stream().map(Range::size).toList();
    }

    @Test
    void singleReplicasetTakesEveryBucket() {
        assertThat(BootstrapPlanner.plan(3000, weights(1))).containsExactly(Map.entry("rs1", new Range(1, 3000)));
    }

    @Test
    void equalWeightsSplitEvenly() {
        assertThat(BootstrapPlanner.plan(3000, weights(2, 2, 2))).containsExactly(
                Map.entry("rs1", new Range(1, 1000)),
                Map.entry("rs2", new Range(1001, 2000)),
                Map.entry("rs3", new Range(2001, 3000)));
    }

    @Test
    void leftoverBucketsGoToTheLargestRemainders() {
        // 10 * 1/3 = 3.33, 10 * 2/3 = 6.67: the second has the larger remainder.
        assertThat(sizes(BootstrapPlanner.plan(10, weights(1, 2)))).containsExactly(3, 7);
        // 7 * (5, 3, 2) / 10 = 3.5, 2.1, 1.4: one leftover, to the first.
        assertThat(sizes(BootstrapPlanner.plan(7, weights(5, 3, 2)))).containsExactly(4, 2, 1);
        // 10 * (1, 1, 1, 3) / 6 = 1.67 x3, 5.0: remainders tie; two leftovers to the earliest.
        assertThat(sizes(BootstrapPlanner.plan(10, weights(1, 1, 1, 3)))).containsExactly(2, 2, 1, 5);
    }

    @Test
    void tiedRemaindersFavourTheEarlierReplicaset() {
        assertThat(sizes(BootstrapPlanner.plan(10, weights(1, 1, 1)))).containsExactly(4, 3, 3);
        assertThat(sizes(BootstrapPlanner.plan(2, weights(1, 1, 1)))).containsExactly(1, 1, 0);
    }

    @Test
    void zeroWeightReplicasetGetsAnEmptyRange() {
        Map<String, Range> plan = BootstrapPlanner.plan(10, weights(1, 0, 1));
        assertThat(plan.get("rs1")).isEqualTo(new Range(1, 5));
        assertThat(plan.get("rs2").size()).isZero();
        assertThat(plan.get("rs3")).isEqualTo(new Range(6, 10));
        for (int b = 1; b <= 10; b++) assertThat(plan.get("rs2").contains(b)).isFalse();
    }

    @Test
    void moreReplicasetsThanBucketsLeavesSomeEmpty() {
        Map<String, Range> plan = BootstrapPlanner.plan(2, weights(1, 1, 1, 1, 1));
        assertThat(sizes(plan)).containsExactly(1, 1, 0, 0, 0);
        assertCoversExactlyOnce(plan, 2, "");
    }

    @Test
    void allZeroWeightsAreRejected() {
        assertThatThrownBy(() -> BootstrapPlanner.plan(10, weights(0, 0))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BootstrapPlanner.plan(10, List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void largeWeightsDoNotOverflow() {
        Map<String, Range> plan = BootstrapPlanner.plan(TopologyValidator.MAX_BUCKET_COUNT, weights(1_000_000, 999_999, 1));
        assertCoversExactlyOnce(plan, TopologyValidator.MAX_BUCKET_COUNT, "");
        assertThat(plan.get("rs3").size()).isEqualTo(8);
    }

    @Test
    void rangeSizeAndContainment() {
        assertThat(new Range(5, 4).size()).isZero();
        assertThat(new Range(5, 5).size()).isEqualTo(1);
        assertThat(new Range(5, 9).contains(5)).isTrue();
        assertThat(new Range(5, 9).contains(9)).isTrue();
        assertThat(new Range(5, 9).contains(10)).isFalse();
        assertThat(new Range(5, 9).contains(4)).isFalse();
    }

    @Test
    void randomWeightsGiveContiguousProportionalRanges(Random random) {
        for (int round = 0; round < 2_000; round++) {
            int n = 1 + random.nextInt(12);
            int[] w = new int[n];
            for (int i = 0; i < n; i++) w[i] = random.nextInt(4) == 0 ? 0 : random.nextInt(1000);
            w[random.nextInt(n)] = 1 + random.nextInt(1000);
            int bucketCount = 1 + random.nextInt(random.nextBoolean() ? 50 : 20_000);
            String what = "round " + round;
            Map<String, Range> plan = BootstrapPlanner.plan(bucketCount, weights(w));

            assertThat(plan.keySet()).as(what).containsExactlyElementsOf(weights(w).stream().map(ReplicasetSpec::id).toList());
            assertCoversExactlyOnce(plan, bucketCount, what);
            assertLargestRemainder(plan, bucketCount, w, what);
        }
    }

    /** Ranges follow each other in input order and cover 1..bucketCount with no gap or overlap. */
    private static void assertCoversExactlyOnce(Map<String, Range> plan, int bucketCount, String what) {
        int next = 1;
        for (Range r : plan.values()) {
            assertThat(r.first()).as(what).isEqualTo(next);
            assertThat(r.size()).as(what).isGreaterThanOrEqualTo(0);
            next += r.size();
        }
        assertThat(next - 1).as(what).isEqualTo(bucketCount);
    }

    /** Each count is its quota rounded down or up; the rounded-up ones have the largest remainders. */
    private static void assertLargestRemainder(Map<String, Range> plan, int bucketCount, int[] w, String what) {
        long total = 0;
        for (int x : w) total += x;
        List<Range> ranges = new ArrayList<>(plan.values());
        long minRoundedUp = Long.MAX_VALUE;
        long maxRoundedDown = Long.MIN_VALUE;
        for (int i = 0; i < w.length; i++) {
            long exact = (long) bucketCount * w[i];
            long floor = exact / total;
            long remainder = exact % total;
            int size = ranges.get(i).size();
            assertThat((long) size).as(what + ", rs%d", i + 1).isBetween(floor, floor + 1);
            if (w[i] == 0) assertThat(size).as(what).isZero();
            if (size == floor + 1) {
                assertThat(remainder).as(what).isPositive();
                minRoundedUp = Math.min(minRoundedUp, remainder);
            } else {
                maxRoundedDown = Math.max(maxRoundedDown, remainder);
            }
        }
        if (minRoundedUp != Long.MAX_VALUE && maxRoundedDown != Long.MIN_VALUE) {
            assertThat(minRoundedUp).as(what).isGreaterThanOrEqualTo(maxRoundedDown);
        }
    }
}
