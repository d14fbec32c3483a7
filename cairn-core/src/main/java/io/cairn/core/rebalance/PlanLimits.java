package io.cairn.core.rebalance;

/**
 * Bounds on one planning round. The send and receive limits are concurrent moves per
 * replicaset (buckets already SENDING or RECEIVING use them up), so a plan never asks for more
 * than the storages would accept (vshard #282: routes that ignore them just spam throttling).
 *
 * @param thresholdPercent no moves while the disbalance is at or below this; 0 demands exact targets
 */
public record PlanLimits(double thresholdPercent, int maxSendingPerReplicaset, int maxReceivingPerReplicaset,
                         int maxMovesPerPlan) {
    /** vshard's {@code rebalancer_disbalance_threshold} default. */
    public static final double DEFAULT_THRESHOLD_PERCENT = 1.0;

    public PlanLimits {
        if (!Double.isFinite(thresholdPercent) || thresholdPercent < 0) {
            throw new IllegalArgumentException("thresholdPercent must be a finite number >= 0: " + thresholdPercent);
        }
        if (maxSendingPerReplicaset < 1 || maxReceivingPerReplicaset < 1 || maxMovesPerPlan < 1) {
            throw new IllegalArgumentException("move limits must be at least 1: sending " + maxSendingPerReplicaset
                    + ", receiving " + maxReceivingPerReplicaset + ", per plan " + maxMovesPerPlan);
        }
    }

    public static PlanLimits withDefaultThreshold(int maxSendingPerReplicaset, int maxReceivingPerReplicaset, int maxMovesPerPlan) {
        return new PlanLimits(DEFAULT_THRESHOLD_PERCENT, maxSendingPerReplicaset, maxReceivingPerReplicaset, maxMovesPerPlan);
    }
}
