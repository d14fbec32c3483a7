package io.cairn.core.rebalance;

/**
 * What the rebalancer knows about one replicaset: its weight and how many bucket records it
 * holds in each state that matters for balancing. PINNED buckets count toward the share but
 * never move; SENDING and RECEIVING are moves in flight (see {@link RebalancePlanner} for how
 * they are counted).
 */
public record ReplicasetLoad(String replicasetId, double weight, int activeCount, int pinnedCount,
                             int sendingCount, int receivingCount) {
    public ReplicasetLoad {
        if (replicasetId == null || replicasetId.isBlank()) throw new IllegalArgumentException("replicasetId must not be blank");
        if (!Double.isFinite(weight) || weight < 0) {
            throw new IllegalArgumentException("weight of " + replicasetId + " must be a finite number >= 0: " + weight);
        }
        if (activeCount < 0 || pinnedCount < 0 || sendingCount < 0 || receivingCount < 0) {
            throw new IllegalArgumentException("bucket counts of " + replicasetId + " must not be negative");
        }
    }

    /** A replicaset with no move in flight. */
    public static ReplicasetLoad settled(String replicasetId, double weight, int activeCount, int pinnedCount) {
        return new ReplicasetLoad(replicasetId, weight, activeCount, pinnedCount, 0, 0);
    }

    /**
     * The buckets this replicaset will own once the moves in flight finish: ACTIVE + PINNED +
     * RECEIVING. SENDING buckets are already on their way out. Differs on purpose from
     * {@code BucketState.isOwned} (who serves the bucket right now).
     */
    public int expectedCount() {
        return activeCount + pinnedCount + receivingCount;
    }
}
