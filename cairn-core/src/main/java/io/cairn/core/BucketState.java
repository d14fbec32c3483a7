package io.cairn.core;

/** The life cycle states of a bucket record on one replicaset (SYSTEM.md, Concepts). */
public enum BucketState {
    /** Owned here, serves reads and writes; the rebalancer may move it. */
    ACTIVE,
    /** Owned here, serves reads and writes; never moved by the rebalancer. */
    PINNED,
    /** Being sent away: new writes are refused with a retryable error, reads still served. */
    SENDING,
    /** Being received: not served until activated. */
    RECEIVING,
    /** Left this replicaset; the record stays as a tombstone after the data is gone. */
    SENT,
    /** A failed receive or orphaned data awaiting the garbage collector. */
    GARBAGE,
    /** A contained doubled copy: reads only, writes refused. */
    READONLY;

    public boolean servesWrites() {
        return this == ACTIVE || this == PINNED;
    }

    public boolean servesReads() {
        return this == ACTIVE || this == PINNED || this == SENDING || this == READONLY;
    }

    /** A router sends requests for the bucket to a replicaset holding it in this state. */
    public boolean isRoutable() {
        return isOwned() || this == READONLY;
    }

    /** Counts toward the replicaset's share of bucket_count. */
    public boolean isOwned() {
        return this == ACTIVE || this == PINNED || this == SENDING;
    }
}
