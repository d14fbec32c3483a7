package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;

/**
 * The pure decisions of a move of an archived bucket that its port's I/O acts on (docs/archive.md,
 * "Moves by server-side copy"): when the source's object may be copied for a move, and what a
 * destination's record with the object's HEAD says about holding the bucket durably.
 */
public final class ArchiveMoves {
    private ArchiveMoves() {}

    /**
     * Null when {@code source}'s record lets its object be copied to {@code destination} for the move
     * at {@code generation} (SENDING there, or SENT with its object not yet dropped, and archived), else why not.
     */
    public static String copyRefusal(BucketRecord source, ArchivePointer pointer, String destination, long generation) {
        if (source == null) return "the source holds no record of the bucket";
        boolean moving = source.state() == BucketState.SENDING
                || (source.state() == BucketState.SENT && !source.has(BucketRecord.FLAG_DATA_DROPPED));
        if (!moving || source.generation() != generation || !source.peer().equals(destination)) {
            return "bucket " + source.id() + " is " + BucketLedger.describe(source) + ", not on its way to " + destination + " at " + generation;
        }
        if (!source.isArchived() || pointer == null) return "bucket " + source.id() + " is not archived on its source";
        return null;
    }

    /** Whether the answer about {@code destination}'s record needs the object's HEAD (an archived record at {@code generation}). */
    public static boolean needsHead(BucketRecord destination, long generation) {
        return destination != null && destination.generation() == generation && destination.isArchived() && holds(destination);
    }

    /**
     * Whether {@code destination} holds the bucket moved at {@code generation} durably; {@code objectPresent}
     * is the HEAD's answer, asked only when {@link #needsHead} (ignored otherwise).
     */
    public static MovePort.Durability durability(BucketRecord destination, long generation, boolean objectPresent) {
        if (destination == null || destination.generation() < generation) return MovePort.Durability.NOT_HELD;
        // Moved on since: only an owner at this generation that handed it on gets there.
        if (destination.generation() > generation) return MovePort.Durability.DURABLE;
        if (!holds(destination)) return MovePort.Durability.NOT_HELD;
        if (!destination.isArchived()) return MovePort.Durability.DURABLE; // live data, on a Raft majority of its replicaset
        return objectPresent ? MovePort.Durability.DURABLE : MovePort.Durability.MISSING;
    }

    /** A complete or activated copy: RECEIVING (the adopted verdict), or serving. */
    private static boolean holds(BucketRecord r) {
        return r.state() == BucketState.RECEIVING || r.state().isRoutable();
    }
}
