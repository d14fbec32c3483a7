package io.cairn.core;

/**
 * A bucket's record on one replicaset. {@code generation} grows by one on every change of
 * owner; {@code bsn} is the replicaset's sequence number of the last change of this record;
 * {@code peer} is the other replicaset of a move (or empty).
 */
public record BucketRecord(int id, BucketState state, long generation, long bsn, String peer, int flags) {
    public static final int FLAG_DOUBLED = 1;
    /**
     * ACTIVE or PINNED (still owned here, routed here) with its data in the archive tier, not in
     * RocksDB: the replicated archive pointer names the object (docs/archive.md). Reads and writes
     * are refused with BUCKET_RESTORING while the leader restores it.
     */
    public static final int FLAG_ARCHIVED = 2;
    /** SENT or GARBAGE: the bucket's data is deleted here; the record stays as a tombstone. */
    public static final int FLAG_DATA_DROPPED = 4;
    /**
     * GARBAGE kept on purpose: the losing copy of a resolved doubled bucket. Its data is NOT
     * dropped; an operator can export it until the retention period ends (docs/doubled-buckets.md).
     */
    public static final int FLAG_QUARANTINED = 8;
    /**
     * ACTIVE, with its data being copied ahead of a move to {@code peer}, at the generation the
     * move will give the destination. Writes are still served; each one also marks its key as
     * changed, and the move sends only the changed keys while the bucket is SENDING (docs/moves.md).
     */
    public static final int FLAG_COPYING = 16;
    /**
     * ACTIVE or PINNED, being written to the archive tier: writes are refused with a retryable error
     * so the snapshot the leader uploads is the bucket's whole content; reads are still served.
     */
    public static final int FLAG_ARCHIVING = 32;

    public boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** The data is in the archive tier, not here ({@link #FLAG_ARCHIVED}). */
    public boolean isArchived() {
        return has(FLAG_ARCHIVED);
    }

    /** Archived, or being archived: neither may move (a move restores it first) nor take writes. */
    public boolean isArchivedOrArchiving() {
        return has(FLAG_ARCHIVED) || has(FLAG_ARCHIVING);
    }

    public boolean isCopying() {
        return has(FLAG_COPYING);
    }

    /** ACTIVE and being copied ahead of a move: writes mark their keys as changed. */
    public boolean marksChanges() {
        return state == BucketState.ACTIVE && has(FLAG_COPYING);
    }

    /**
     * The generation a copy ahead of this record's move is made at, and the one the source takes
     * when it hands over (SendCopied) or gives the copy up (CancelCopy): the next one.
     */
    public long copyGeneration() {
        return generation + 1;
    }

    /**
     * Whether reads of the bucket are served here. A SENDING record that was copied ahead serves
     * none: its destination activates at the verdict, before this record is SENT, and a read here
     * could then miss a write acknowledged there.
     */
    public boolean servesReads() {
        return state.servesReads() && !(state == BucketState.SENDING && isCopying());
    }

    /** A copy contained as doubled: READONLY with {@link #FLAG_DOUBLED}. */
    public boolean isContainedDouble() {
        return state == BucketState.READONLY && has(FLAG_DOUBLED);
    }

    /**
     * Data or a move the cluster still needs on this replicaset: a replicaset holding such a
     * record must not be removed (GARBAGE only while quarantined: its data is kept for export).
     */
    public boolean isHeld() {
        return switch (state) {
            case ACTIVE, PINNED, SENDING, RECEIVING, READONLY -> true;
            case SENT -> !has(FLAG_DATA_DROPPED);
            case GARBAGE -> has(FLAG_QUARANTINED);
        };
    }

    public BucketRecord {
        if (id <= 0) throw new IllegalArgumentException("bucket id must be positive: " + id);
        if (state == null) throw new IllegalArgumentException("state is required");
        peer = peer == null ? "" : peer;
    }

    /** The next version of this record in {@code to}, checked against the transition table. */
    public BucketRecord transition(BucketState to, long newBsn, String newPeer) {
        BucketTransitions.check(id, state, to);
        return new BucketRecord(id, to, generation, newBsn, newPeer, flags);
    }
}
