package io.cairn.core.topology;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one-time initial spread of buckets over replicasets by weight (largest remainder), as
 * contiguous id ranges. The ranges cover 1..bucketCount exactly once, so the sum over
 * replicasets always equals bucketCount.
 */
public final class BootstrapPlanner {
    /** Inclusive range of bucket ids. */
    public record Range(int first, int last) {
        public int size() {
            return last < first ? 0 : last - first + 1;
        }

        public boolean contains(int bucket) {
            return bucket >= first && bucket <= last;
        }
    }

    private BootstrapPlanner() {}

    public static Map<String, Range> plan(int bucketCount, List<ReplicasetSpec> replicasets) {
        if (bucketCount < 1) throw new IllegalArgumentException("bucketCount must be positive: " + bucketCount);
        if (replicasets.stream().anyMatch(r -> r.weight() < 0)) throw new IllegalArgumentException("weights must not be negative");
        long totalWeight = replicasets.stream().mapToLong(ReplicasetSpec::weight).sum();
        if (totalWeight <= 0) throw new IllegalArgumentException("at least one replicaset needs a positive weight");
        int n = replicasets.size();
        int[] counts = new int[n];
        long[] remainders = new long[n];
        int assigned = 0;
        for (int i = 0; i < n; i++) {
            long exact = (long) bucketCount * replicasets.get(i).weight();
            counts[i] = (int) (exact / totalWeight);
            remainders[i] = exact % totalWeight;
            assigned += counts[i];
        }
        for (int left = bucketCount - assigned; left > 0; left--) {
            int best = 0;
            for (int i = 1; i < n; i++) if (remainders[i] > remainders[best]) best = i;
            counts[best]++;
            remainders[best] = -1;
        }
        Map<String, Range> plan = new LinkedHashMap<>();
        int next = 1;
        for (int i = 0; i < n; i++) {
            plan.put(replicasets.get(i).id(), new Range(next, next + counts[i] - 1));
            next += counts[i];
        }
        return plan;
    }
}
