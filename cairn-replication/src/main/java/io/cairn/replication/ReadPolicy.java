package io.cairn.replication;

/** How current a read must be. */
public enum ReadPolicy {
    /** At the leader, after confirming with a majority that it still leads (a round of heartbeats). */
    LINEARIZABLE,
    /** At the leader, while its lease holds (it heard from a majority within the lease); no round trip. */
    LEADER_LEASE,
    /**
     * At any member, from what it has applied; a follower answers only while it heard from its leader
     * within the leader timeout ({@link ReplicaConfig#leaderTimeout()}), and only once it applied what that
     * leader had then committed, so its answer misses at most that last stretch of writes.
     */
    BOUNDED_STALE
}
