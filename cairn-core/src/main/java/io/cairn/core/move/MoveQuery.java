package io.cairn.core.move;

import io.cairn.core.BucketRecord;

import java.util.List;

/** Read-only requests of the move driver, answered by a replicaset leader without entering the log. */
public sealed interface MoveQuery {
    /** The next keys of a SENDING bucket after {@code afterKey} (empty = from the start), bounded by count and bytes. */
    record ReadChunk(int bucket, long generation, byte[] afterKey, int maxKeys, int maxBytes) implements MoveQuery {}

    /** Count and checksum of a bucket's data, to verify a transfer. */
    record Digest(int bucket) implements MoveQuery {}

    /** Bucket counts, the records of unfinished moves, and up to {@code maxCandidates} movable buckets. */
    record Status(int maxCandidates) implements MoveQuery {}

    record ChunkPage(List<ChunkEntry> entries, boolean last, String refusal) {}

    record BucketDigest(BucketRecord record, long keyCount, long checksum) {}

    /**
     * @param unfinished SENDING, RECEIVING, and SENT records whose data is not dropped yet
     * @param candidates ACTIVE bucket ids this replicaset could send
     */
    record MoveStatus(int active, int pinned, int sending, int receiving, List<BucketRecord> unfinished,
                      List<Integer> candidates) {}
}
