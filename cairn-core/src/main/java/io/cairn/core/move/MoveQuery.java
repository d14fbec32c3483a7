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

    /**
     * This replicaset's records of {@code buckets} (those it has a record of), with key counts
     * and last write stamps when {@code withCounts} (a walk of each bucket's keys). An empty list
     * asks for every bucket held here with the doubled flag. At most {@link #MAX_INSPECT} buckets.
     */
    record Inspect(List<Integer> buckets, boolean withCounts) implements MoveQuery {}

    /**
     * A router's request to verify suspected doubled buckets: answered like a plain Inspect, and
     * the leader checks each bucket it holds ACTIVE/PINNED against the cluster (asynchronously).
     */
    record Verify(List<Integer> buckets) implements MoveQuery {}

    /** The next keys of a contained or quarantined doubled copy after {@code afterKey}, for export. */
    record ExportChunk(int bucket, byte[] afterKey, int maxKeys, int maxBytes) implements MoveQuery {}

    int MAX_INSPECT = 4_096;

    /** One bucket as a replicaset holds it; {@code keyCount} and {@code lastWriteMs} are -1 when not asked for. */
    record BucketReport(BucketRecord record, long keyCount, long lastWriteMs) {}

    record ChunkPage(List<ChunkEntry> entries, boolean last, String refusal) {}

    record BucketDigest(BucketRecord record, long keyCount, long checksum) {}

    /**
     * @param unfinished SENDING, RECEIVING, and SENT records whose data is not dropped yet
     * @param candidates ACTIVE bucket ids this replicaset could send
     */
    record MoveStatus(int active, int pinned, int sending, int receiving, List<BucketRecord> unfinished,
                      List<Integer> candidates) {}
}
