package io.cairn.core;

/**
 * The life cycle states of a bucket record on one replicaset (SYSTEM.md, Concepts). Each has a
 * fixed {@link #code()}, stored in RocksDB and sent on the wire: never reuse or renumber one.
 */
public enum BucketState {
    /** Owned here, serves reads and writes; the rebalancer may move it. */
    ACTIVE(0),
    /** Owned here, serves reads and writes; never moved by the rebalancer. */
    PINNED(1),
    /** Being sent away: new writes are refused with a retryable error, reads still served. */
    SENDING(2),
    /** Being received: not served until activated. */
    RECEIVING(3),
    /** Left this replicaset; the record stays as a tombstone after the data is gone. */
    SENT(4),
    /** A failed receive or orphaned data awaiting the garbage collector. */
    GARBAGE(5),
    /** A contained doubled copy: reads only, writes refused. */
    READONLY(6);

    private static final BucketState[] BY_CODE = WireCodes.index(values(), BucketState::code);
    private final byte code;

    BucketState(int code) {
        this.code = (byte) code;
    }

    /** The state's stored and wire code. */
    public byte code() {
        return code;
    }

    /** @throws IllegalArgumentException for a code no state has (a corrupt record or a newer peer) */
    public static BucketState ofCode(byte code) {
        return WireCodes.lookup(BY_CODE, code, "bucket state");
    }

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
