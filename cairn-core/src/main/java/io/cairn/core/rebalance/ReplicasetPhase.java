package io.cairn.core.rebalance;

/**
 * Where a replicaset stands in the cluster's shape (issue 21): a new one fills up, a drained one
 * empties, the rest are ready. Derived each rebalancer round from its weight, the buckets it holds
 * and the plan's target for it; {@code cairn status}, {@code cairn topology show} and the
 * coordinator's metrics show it.
 */
public enum ReplicasetPhase {
    /** Weight above 0 and fewer buckets than the plan gives it (a replicaset just added). */
    BOOTSTRAPPING,
    /** Weight above 0 and its share reached (or the cluster is balanced). */
    READY,
    /** Weight 0 and still holding buckets or moves: it receives no bucket, it only gives. */
    DRAINING,
    /** Weight 0 and holding nothing: safe to remove ({@code cairn topology remove-replicaset}). */
    DRAINED;

    /**
     * @param weight   the replicaset's weight
     * @param held     buckets it owns, sends or receives
     * @param target   the plan's target for it, or -1 when there is no plan yet
     * @param balanced the last plan is within its threshold and no move is in flight
     */
    public static ReplicasetPhase of(double weight, int held, int target, boolean balanced) {
        if (weight <= 0) return held > 0 ? DRAINING : DRAINED;
        return balanced || target < 0 || held >= target ? READY : BOOTSTRAPPING;
    }

    /** Buckets still to arrive (BOOTSTRAPPING) or to leave (DRAINING); 0 otherwise. */
    public static int bucketsLeft(ReplicasetPhase phase, int held, int target) {
        return switch (phase) {
            case BOOTSTRAPPING -> Math.max(0, target - held);
            case DRAINING -> held;
            default -> 0;
        };
    }
}
