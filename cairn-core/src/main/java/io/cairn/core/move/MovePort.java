package io.cairn.core.move;

import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.core.move.MoveQuery.ChunkPage;
import io.cairn.core.move.MoveQuery.MoveStatus;

import java.util.function.Consumer;

/**
 * How move logic reaches replicasets and time. The real implementation talks to Raft groups;
 * the simulator delivers (or drops, delays, duplicates) the same calls. Every callback runs on
 * the caller's single driver thread; an answer of {@code null} (or an UNAVAILABLE reply) means
 * "no answer": the command may or may not have been applied.
 */
public interface MovePort {
    /** Submits a command to the replicaset's log; the reply comes after commit and apply. */
    void submit(String replicaset, MoveCommand command, Consumer<MoveReply> reply);

    /**
     * Submits a chunk copied ahead, while its bucket still serves writes: it may wait for the
     * transfer budget (rebalancer.maxBytesPerSecond). Chunks sent while writes are held go through
     * {@link #submit} and never wait for it.
     */
    default void submitCopy(String replicaset, MoveCommand.ReceiveChunk chunk, Consumer<MoveReply> reply) {
        submit(replicaset, chunk, reply);
    }

    void readChunk(String replicaset, MoveQuery.ReadChunk query, Consumer<ChunkPage> reply);

    void readChanges(String replicaset, MoveQuery.ReadChanges query, Consumer<MoveQuery.ChangesPage> reply);

    void digest(String replicaset, int bucket, Consumer<BucketDigest> reply);

    void status(String replicaset, int maxCandidates, Consumer<MoveStatus> reply);

    /** Records (and optionally key counts) of buckets held by a replicaset; null = no answer. */
    default void inspect(String replicaset, MoveQuery.Inspect query, Consumer<java.util.List<MoveQuery.BucketReport>> reply) {
        reply.accept(null);
    }

    /** The next keys of a contained or quarantined doubled copy, for export; null = no answer. */
    default void exportChunk(String replicaset, MoveQuery.ExportChunk query, Consumer<ChunkPage> reply) {
        reply.accept(null);
    }

    /**
     * Copies the object of {@code bucket}, archived and SENDING (or SENT with its object kept) at
     * {@code generation} on {@code source}, to {@code destination}'s prefix by the store's server-side
     * copy (no bucket data through any node), verified there by HEAD. Null = no answer (try again).
     */
    default void copyArchive(String source, String destination, int bucket, long generation, Consumer<ArchiveCopy> reply) {
        reply.accept(ArchiveCopy.refused("this move port has no archive tier"));
    }

    /**
     * The durable acknowledgement for an archived copy: whether {@code replicaset} holds {@code bucket}
     * at {@code generation} durably. From an archived record that means its object answers HEAD with
     * the recorded size and hash. Null = no answer.
     */
    default void archiveDurable(String replicaset, int bucket, long generation, Consumer<Durability> reply) {
        reply.accept(Durability.NOT_HELD);
    }

    /** Deletes an archive object no record names any more (a move's clean-up); best effort, the sweeper catches a miss. */
    default void deleteArchive(String objectKey) {}

    /** The copy at the destination (its pointer there), or why there is none; a refusal is final for this try. */
    record ArchiveCopy(ArchivePointer pointer, String refusal) {
        public static ArchiveCopy refused(String why) {
            return new ArchiveCopy(null, why);
        }

        public boolean copied() {
            return pointer != null;
        }
    }

    enum Durability {
        /** Held at that generation (or moved on since): live data on a Raft majority, or an archived record whose object is there. */
        DURABLE,
        /** An archived record whose object is gone or differs: the source must keep its own. */
        MISSING,
        /** No record at that generation holding the bucket. */
        NOT_HELD
    }

    /** Runs {@code task} on the driver thread after {@code delayMs}. */
    void after(long delayMs, Runnable task);

    /** The driver's clock in milliseconds; only figures (how long writes were held) read it, no decision does. */
    long nowMs();
}
