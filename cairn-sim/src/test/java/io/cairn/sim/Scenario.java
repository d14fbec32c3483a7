package io.cairn.sim;

/** The cluster changes the simulation drives, each under the same faults. */
enum Scenario {
    /** (a) Two replicasets hold every bucket; a third (or fourth) joins with weight 1. */
    ADD_REPLICASET,
    /** (b) One replicaset of three or four is drained (weight 0). */
    DRAIN,
    /** (c) A balanced cluster; one bucket is moved back and forth by hand, also through a stale driver. */
    MANUAL_BACK_AND_FORTH,
    /**
     * (d) Two replicasets (and sometimes a third joining); bucket 1 is injected ACTIVE on both at
     * different generations, reported as DOUBLED_BUCKETS, then resolved by the operator.
     */
    DOUBLED_BUCKET,
    /**
     * (e) As (d) (one run in four with equal generations), with the storage leaders' verification running ({@link SimVerifier}) and a
     * stale client that keeps writing bucket 1 to the replicaset holding the older copy. The
     * older copy must be contained; no write may be applied to a copy after it was contained;
     * once verification ran fault-free at most one writable copy remains, the one with the
     * highest generation. The operator then resolves with Quarantine and Reactivate.
     */
    DOUBLED_CONTAINED,
    /**
     * (f) As (e), the double made by a restore (issue 21): bucket 1's source is restored from a
     * backup taken while it copied the bucket ahead to its new owner, after the move finished. The
     * restored copy is ACTIVE, still copying ahead, one generation below the owner. Recovery ends its
     * copy; the restored copy must stay below the owner's generation at every instant (never an
     * equal tie) and be contained.
     */
    RESTORED_COPY
}
