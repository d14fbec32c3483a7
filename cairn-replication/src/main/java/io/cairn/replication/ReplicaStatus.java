package io.cairn.replication;

/**
 * @param role          this member's role now
 * @param term          the current term
 * @param leaderId      the leader this member knows for the term, or null
 * @param commitIndex   the highest log index this member knows committed
 * @param appliedIndex  the highest log index applied to the state machine here
 * @param msSinceLeader milliseconds since this follower last heard from its leader (0 on the leader,
 *                      {@code Long.MAX_VALUE} when it follows none)
 * @param rejoining     this member may not vote yet ({@link ReplicaConfig#vote()}): its folder is new, damaged or
 *                      unchecked, and it has not caught up with its leader: it neither votes nor may answer reads
 */
public record ReplicaStatus(Role role, long term, String leaderId, long commitIndex, long appliedIndex, long msSinceLeader,
                            boolean rejoining) {
    public enum Role { LEADER, FOLLOWER, LEARNER, CANDIDATE, STOPPED }

    /** Whether a proposal sent here now would be accepted (a leader that committed an entry of its term). */
    public boolean leads() {
        return role == Role.LEADER;
    }
}
