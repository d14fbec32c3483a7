package io.cairn.storage;

/**
 * Told when a request meets an archived bucket on this member, so its leader restores the bucket
 * (lazily, on first access: docs/archive.md). Called on the thread that refused the request (a
 * query thread, or the apply thread for a write), so it only queues work and never blocks.
 */
@FunctionalInterface
public interface ArchivedAccess {
    /** What became of the request to restore. */
    enum Admission {
        /** A restore of the bucket is queued or running. */
        QUEUED,
        /** The queue of restores is full: nothing was queued. */
        QUEUE_FULL,
        /** This member does not lead its replicaset (or has no archive tier): the leader must be asked. */
        NOT_LEADER
    }

    ArchivedAccess NONE = bucket -> Admission.NOT_LEADER;

    Admission requested(int bucket);
}
