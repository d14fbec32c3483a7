package io.cairn.storage.state;

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

    /**
     * Told, in the apply of a committed entry, that no record points to {@code objectKey} any more
     * (FLUSHALL emptied its bucket): the leader deletes it directly, never restoring it first. Called
     * on every replica and on the apply thread, so it only queues work; a miss is the sweeper's.
     */
    default void released(int bucket, String objectKey) {}

    /**
     * Told, in the apply of a committed AdoptArchive or AdoptBackup, that {@code bucket} is now held
     * here as an archive (on every replica, on the apply thread: it only notes the bucket).
     */
    default void adopted(int bucket) {}
}
