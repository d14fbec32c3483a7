package io.cairn.core.move;

import java.util.List;

/**
 * Replicated bucket-move decisions. Each one is a Raft log entry of ONE replicaset, applied by
 * {@link BucketLedger}; together they form the move protocol (docs/moves.md):
 *
 * <pre>
 * source:       StartSend (ACTIVE -> SENDING, generation + 1)
 * destination:  ReceiveChunk x n (creates RECEIVING at that generation; chunks numbered from 0)
 * destination:  FinishReceive (verifies count and checksum: COMPLETE, or fences the copy as GARBAGE);
 *               ReceiveLastChunk is the last chunk and FinishReceive in one decision
 * source:       MarkSent (SENDING -> SENT), only after COMPLETE
 * destination:  Activate (RECEIVING -> ACTIVE), only after MarkSent committed
 * source:       DropData (deletes the sent data, keeps the SENT record as a tombstone)
 * source:       RollbackSend (SENDING -> ACTIVE), only after FinishReceive answered ABORTED
 * </pre>
 * Copy ahead (the default): the data is copied while the source still serves writes, and the
 * bucket is SENDING only for the keys changed meanwhile and the hand-over:
 * <pre>
 * source:       StartCopy (ACTIVE -> ACTIVE copying, same generation; writes now mark changed keys)
 * destination:  ReceiveChunk x n (the whole bucket, read while ACTIVE, at generation + 1)
 * source:       SendCopied (ACTIVE copying -> SENDING, generation + 1)
 * destination:  ReceiveChunk x m, ReceiveLastChunk (the changed keys, deletions included, and the
 *               source's digest at SENDING); a COMPLETE verdict activates the copy in the same
 *               decision ({@code activate}): a copied SENDING source serves no reads, so it cannot
 *               answer a stale read once the destination takes writes
 * source:       MarkSent, then DropData as above
 * source:       CancelCopy (ACTIVE copying -> ACTIVE, generation + 1) when a copy is abandoned, after AbortReceive;
 *               at the same generation when the destination holds the bucket at the copy's generation or later
 * </pre>
 * Doubled buckets (docs/doubled-buckets.md): Contain (ACTIVE/PINNED -> READONLY doubled),
 * Quarantine (the losing copy -> GARBAGE quarantined, data kept), Reactivate (the kept copy ->
 * ACTIVE at a generation above every copy).
 * Archive tier (docs/archive.md; {@link ArchiveLedger}): BeginArchive (writes held), FinishArchive
 * (the verified object recorded, local data dropped) or CancelArchive; RestoreChunk x n and
 * FinishRestore (verified, the bucket serves again). The record stays ACTIVE or PINNED throughout.
 * A move of an archived bucket (docs/archive.md, "Moves by server-side copy"): StartSend as above,
 * the object copied by the store to the destination's prefix, AdoptArchive on the destination
 * (RECEIVING, complete, archived: the verdict), then MarkSent, Activate and DropData as above, the
 * source's object deleted only after the destination's object was found durable again.
 */
public sealed interface MoveCommand {
    int bucket();

    /**
     * A step that takes its bucket out of a map-reduce call's reach (or towards it): refused while
     * storage refs are held, and it takes turns with refs (docs/architecture.md, "Fairness").
     */
    default boolean takesTurnsWithRefs() {
        return false;
    }

    record StartSend(int bucket, String destination) implements MoveCommand {
        @Override
        public boolean takesTurnsWithRefs() {
            return true;
        }
    }

    /** Starts copying an ACTIVE bucket ahead of its move to {@code destination}. */
    record StartCopy(int bucket, String destination) implements MoveCommand {
        @Override
        public boolean takesTurnsWithRefs() {
            return true;
        }
    }

    /** Ends the copy ahead at {@code generation}: the bucket refuses writes (SENDING) until the hand-over. */
    record SendCopied(int bucket, String destination, long generation) implements MoveCommand {
        @Override
        public boolean takesTurnsWithRefs() {
            return true;
        }
    }

    /**
     * Abandons a copy ahead at {@code generation}: the bucket stays ACTIVE here and stops marking
     * changes. It takes that generation ({@code takeGeneration}), so the next move goes above the
     * fence the destination keeps, unless the destination holds the bucket at that generation or
     * later: then this copy is stale (a source restored from a copy taken during the copy ahead) and
     * must stay below the owner, a clean double that generations settle, never an equal tie.
     */
    record CancelCopy(int bucket, long generation, boolean takeGeneration) implements MoveCommand {
        public CancelCopy(int bucket, long generation) {
            this(bucket, generation, true);
        }
    }

    record ReceiveChunk(int bucket, String source, long generation, int seq, List<ChunkEntry> entries) implements MoveCommand {}

    /**
     * The verdict on a copy. With {@code activate} (the source is a copied SENDING, which serves no
     * reads) a COMPLETE copy also becomes ACTIVE in the same decision, before the source is SENT.
     */
    record FinishReceive(int bucket, long generation, long keyCount, long checksum, boolean activate) implements MoveCommand {}

    /**
     * The last chunk with the source's digest ({@code keyCount}, {@code checksum}), so the verdict
     * costs no log entry of its own: applied as {@link ReceiveChunk}, then judged as
     * {@link FinishReceive} in the same entry.
     */
    record ReceiveLastChunk(int bucket, String source, long generation, int seq, List<ChunkEntry> entries,
                            long keyCount, long checksum, boolean activate) implements MoveCommand {
        public ReceiveChunk chunk() {
            return new ReceiveChunk(bucket, source, generation, seq, entries);
        }

        public FinishReceive finish() {
            return new FinishReceive(bucket, generation, keyCount, checksum, activate);
        }
    }

    record MarkSent(int bucket, long generation) implements MoveCommand {}

    record Activate(int bucket, long generation) implements MoveCommand {}

    record RollbackSend(int bucket, long generation) implements MoveCommand {}

    /** Fences a RECEIVING copy whose source is known to own the bucket again (recovery on the destination). */
    record AbortReceive(int bucket, long generation) implements MoveCommand {}

    record DropData(int bucket, long generation) implements MoveCommand {}

    record Pin(int bucket, boolean pinned) implements MoveCommand {}

    /**
     * Contains a doubled copy found by verification: ACTIVE/PINNED at {@code generation} becomes
     * READONLY with the doubled flag, same generation; {@code otherHolders} (the replicasets that
     * also claim it) is kept in the record's peer field for alerts.
     */
    record Contain(int bucket, long generation, String otherHolders) implements MoveCommand {}

    /**
     * Resolution, step 1: the losing copy, contained (READONLY) at {@code generation}, leaves the
     * routable states: GARBAGE, flags doubled + quarantined, data kept for export. A writable
     * losing copy is contained first.
     */
    record Quarantine(int bucket, long generation) implements MoveCommand {}

    /**
     * The garbage collector of quarantined copies: drops the data of a copy quarantined at
     * {@code generation} once {@code retentionMs} have passed since its quarantine (judged at
     * this entry's stamp). The record stays as a GARBAGE tombstone without the quarantined flag.
     */
    record DropQuarantined(int bucket, long generation, long retentionMs) implements MoveCommand {}

    /** Resolution, step 2: the kept copy becomes the one ACTIVE copy at {@code newGeneration} (above every copy). */
    record Reactivate(int bucket, long newGeneration) implements MoveCommand {}

    /** Holds writes to an ACTIVE or PINNED bucket at {@code generation} while the leader uploads its snapshot. */
    record BeginArchive(int bucket, long generation) implements MoveCommand {}

    /**
     * Records the uploaded, verified object and drops the local data. Applies only if the record has
     * not changed since BeginArchive took BSN {@code beganBsn} and every replica's copy has exactly
     * {@code pointer.keyCount()} keys with {@code checksum} (the sum of {@link ChunkEntry#crc()}s).
     */
    record FinishArchive(int bucket, long generation, long beganBsn, ArchivePointer pointer, long checksum) implements MoveCommand {}

    /** Gives up an archive in progress at {@code generation}: writes are served again, nothing else changes. */
    record CancelArchive(int bucket, long generation) implements MoveCommand {}

    /** Part {@code seq} (from 0) of an archived bucket's data on its way back; chunk 0 first drops leftovers of an earlier try. */
    record RestoreChunk(int bucket, long generation, int seq, List<ChunkEntry> entries) implements MoveCommand {}

    /** Ends a restore: the bucket serves again if what arrived adds up to the archive's {@code keyCount} and {@code checksum}. */
    record FinishRestore(int bucket, long generation, long keyCount, long checksum) implements MoveCommand {}

    /**
     * The destination's verdict on an archived bucket moved by server-side copy: the object at
     * {@code pointer} (in this replicaset's prefix, verified by HEAD before this was sent) becomes the
     * bucket's data here, as a complete RECEIVING copy at {@code generation} with the archived flag.
     * Sent again after a durable check found the object missing, it records the new copy's pointer.
     */
    record AdoptArchive(int bucket, String source, long generation, ArchivePointer pointer) implements MoveCommand {}

    /**
     * A bucket restored from a backup (docs/archive.md, "Backup and restore"): the backup's object,
     * copied into this replicaset's prefix and verified by HEAD before this was sent, becomes the data
     * of the bucket owned here at {@code generation}, which must be empty and not archived: the bucket
     * stays ACTIVE (or PINNED) with the archived flag and is restored on first access.
     */
    record AdoptBackup(int bucket, long generation, ArchivePointer pointer) implements MoveCommand {}

    /**
     * A bucket of a wiped replicaset rebuilt from a backup (docs/archive.md, "Restoring one
     * replicaset"): the backup's object, copied into this replicaset's prefix and verified by HEAD
     * before this was sent, becomes the bucket's data here, ACTIVE and archived at the backup's
     * {@code generation}. Only where this replicaset holds no record of the bucket at all. A bucket
     * that moved away since the backup is then held twice, here at the older generation: the
     * doubled-bucket check contains this copy (docs/doubled-buckets.md).
     */
    record AdoptRestored(int bucket, long generation, ArchivePointer pointer) implements MoveCommand {}
}
