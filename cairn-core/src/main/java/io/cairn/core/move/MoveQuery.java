package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;

/** Read-only requests of the move driver, answered by a replicaset leader without entering the log. */
public sealed interface MoveQuery {
    /**
     * The next keys of a SENDING bucket, or of one being copied ahead, after {@code afterKey}
     * (empty = from the start), bounded by count and bytes; with {@code afterElement} (not empty)
     * the page resumes inside the collection {@code afterKey}, after that element ({@link ChunkEntry#resumeElement}).
     */
    record ReadChunk(int bucket, long generation, byte[] afterKey, int maxKeys, int maxBytes, byte[] afterElement) implements MoveQuery {
        public ReadChunk(int bucket, long generation, byte[] afterKey, int maxKeys, int maxBytes) {
            this(bucket, generation, afterKey, maxKeys, maxBytes, new byte[0]);
        }

        /** Whether the bucket's record allows this read: SENDING at {@code generation}, or being copied ahead for it. */
        public boolean allows(BucketRecord r) {
            if (r == null) return false;
            if (r.state() == BucketState.SENDING) return r.generation() == generation;
            return r.marksChanges() && r.copyGeneration() == generation;
        }
    }

    /**
     * The next keys written since a copy ahead started (deletions included), of a bucket SENDING
     * at {@code generation}; the last page carries the bucket's digest. {@code afterElement} as in {@link ReadChunk}.
     */
    record ReadChanges(int bucket, long generation, byte[] afterKey, int maxKeys, int maxBytes, byte[] afterElement) implements MoveQuery {
        public ReadChanges(int bucket, long generation, byte[] afterKey, int maxKeys, int maxBytes) {
            this(bucket, generation, afterKey, maxKeys, maxBytes, new byte[0]);
        }

        /** The first page at the default chunk bounds: what SendCopied's answer carries. */
        public static ReadChanges first(int bucket, long generation) {
            SendMove.Limits d = SendMove.Limits.defaults();
            return new ReadChanges(bucket, generation, new byte[0], d.chunkKeys(), d.chunkBytes());
        }
    }

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

    /** A bucket's record and archive pointer, for a move of an archived bucket (the driver's port copies and checks the object). */
    record ArchiveOf(int bucket) implements MoveQuery {}

    /** The answer to {@link ArchiveOf}: either may be null. */
    record ArchiveState(BucketRecord record, ArchivePointer pointer) {}

    int MAX_INSPECT = 4_096;

    /** One bucket as a replicaset holds it; {@code keyCount} and {@code lastWriteMs} are -1 when not asked for. */
    record BucketReport(BucketRecord record, long keyCount, long lastWriteMs) {}

    record ChunkPage(List<ChunkEntry> entries, boolean last, String refusal) {
        /** The next page of a sorted key map after {@code afterKey} (empty: from the start); for in-memory models. */
        public static ChunkPage of(NavigableMap<byte[], byte[]> keys, byte[] afterKey, int maxKeys, int maxBytes) {
            List<ChunkEntry> entries = new ArrayList<>();
            int bytes = 0;
            for (var e : (afterKey.length == 0 ? keys : keys.tailMap(afterKey, false)).entrySet()) {
                ChunkEntry c = new ChunkEntry(e.getKey(), e.getValue());
                if (!entries.isEmpty() && (entries.size() >= maxKeys || bytes + c.sizeBytes() > maxBytes)) return new ChunkPage(entries, false, "");
                entries.add(c);
                bytes += c.sizeBytes();
            }
            return new ChunkPage(entries, true, "");
        }
    }

    record BucketDigest(BucketRecord record, long keyCount, long checksum) {}

    /** A page of changed keys; {@code keyCount} and {@code checksum} are the bucket's digest on the last page, else -1. */
    record ChangesPage(ChunkPage page, long keyCount, long checksum) {}

    /**
     * @param unfinished SENDING, RECEIVING, and SENT records whose data is not dropped yet
     * @param candidates ACTIVE bucket ids this replicaset could send
     */
    record MoveStatus(int active, int pinned, int sending, int receiving, List<BucketRecord> unfinished,
                      List<Integer> candidates) {
        /** SENDING, RECEIVING, SENT with its data not dropped yet, or copied ahead: a move that has not ended. */
        public static boolean isUnfinished(BucketRecord r) {
            return r.state() == BucketState.SENDING || r.state() == BucketState.RECEIVING || r.isCopying()
                    || (r.state() == BucketState.SENT && !r.has(BucketRecord.FLAG_DATA_DROPPED));
        }

        /** Buckets that serve writes here: ACTIVE (copied ahead or not) and PINNED. */
        public int writable() {
            return active + pinned + (int) unfinished.stream().filter(BucketRecord::marksChanges).count();
        }

        /** Counted as sending rather than active: SENDING, or ACTIVE and copied ahead (it is leaving). */
        public static boolean isLeaving(BucketRecord r) {
            return r.state() == BucketState.SENDING || r.marksChanges();
        }

        /** The status of a replicaset holding {@code records} in id order, for models that keep no tally. */
        public static MoveStatus of(Iterable<BucketRecord> records, int maxCandidates) {
            int active = 0, pinned = 0, sending = 0, receiving = 0;
            List<BucketRecord> unfinished = new ArrayList<>();
            List<Integer> candidates = new ArrayList<>();
            for (BucketRecord r : records) {
                if (isUnfinished(r)) unfinished.add(r);
                if (isLeaving(r)) sending++;
                else if (r.state() == BucketState.ACTIVE) {
                    active++;
                    if (candidates.size() < maxCandidates) candidates.add(r.id());
                } else if (r.state() == BucketState.PINNED) pinned++;
                else if (r.state() == BucketState.RECEIVING) receiving++;
            }
            return new MoveStatus(active, pinned, sending, receiving, unfinished, candidates);
        }
    }
}
