package io.cairn.router;

import io.cairn.core.BucketState;

/**
 * One bucket's route as a router knows it, for operators' views (the web console's bucket map):
 * the owner discovery found and the state and flags of the owner's record when it was learned
 * ({@link io.cairn.core.BucketRecord}). It may lag the replicasets by a discovery round.
 *
 * @param owner null while no owner is known (then state is null too)
 */
public record BucketRoute(int bucket, String owner, BucketState state, long generation, int flags) {
    /** Visits every bucket's route without allocating one object per bucket (a map of a million buckets). */
    @FunctionalInterface
    public interface Visitor {
        void route(int bucket, String owner, BucketState state, int flags);
    }
}
