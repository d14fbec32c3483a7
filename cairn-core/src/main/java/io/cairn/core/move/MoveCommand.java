package io.cairn.core.move;

import java.util.List;

/**
 * Replicated bucket-move decisions. Each one is a Raft log entry of ONE replicaset, applied by
 * {@link BucketLedger}; together they form the move protocol (docs/moves.md):
 *
 * <pre>
 * source:       StartSend (ACTIVE -> SENDING, generation + 1)
 * destination:  ReceiveChunk x n (creates RECEIVING at that generation; chunks numbered from 0)
 * destination:  FinishReceive (verifies count and checksum: COMPLETE, or fences the copy as GARBAGE)
 * source:       MarkSent (SENDING -> SENT), only after COMPLETE
 * destination:  Activate (RECEIVING -> ACTIVE), only after MarkSent committed
 * source:       DropData (deletes the sent data, keeps the SENT record as a tombstone)
 * source:       RollbackSend (SENDING -> ACTIVE), only after FinishReceive answered ABORTED
 * </pre>
 */
public sealed interface MoveCommand {
    int bucket();

    record StartSend(int bucket, String destination) implements MoveCommand {}

    record ReceiveChunk(int bucket, String source, long generation, int seq, List<ChunkEntry> entries) implements MoveCommand {}

    record FinishReceive(int bucket, long generation, long keyCount, long checksum) implements MoveCommand {}

    record MarkSent(int bucket, long generation) implements MoveCommand {}

    record Activate(int bucket, long generation) implements MoveCommand {}

    record RollbackSend(int bucket, long generation) implements MoveCommand {}

    /** Fences a RECEIVING copy whose source is known to own the bucket again (recovery on the destination). */
    record AbortReceive(int bucket, long generation) implements MoveCommand {}

    record DropData(int bucket, long generation) implements MoveCommand {}

    record Pin(int bucket, boolean pinned) implements MoveCommand {}
}
