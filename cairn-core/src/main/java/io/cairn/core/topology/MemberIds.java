package io.cairn.core.topology;

/**
 * A storage node's Raft member id: the node's id, or, for a node that came back on a new or damaged
 * folder, the node's id and the folder's disk ({@code s1-2~3f09a1c2}): a new member of the group
 * (issue 21; etcd does the same for a replaced disk). The old member, which acknowledged entries the
 * new folder lacks, is removed from the voters, and the new one joins as a learner, catches up and is
 * promoted, so it never counts toward a majority before it holds what it would vote on. A fresh id is
 * what makes this possible with MicroRaft, which never re-adds one of a group's first members as a
 * learner, and ends a member that applies its own removal.
 */
public final class MemberIds {
    /** Separates a node's id from its disk in a member id; never part of a node id. */
    public static final char SEPARATOR = '~';
    private static final int DISK_CHARS = 8;

    private MemberIds() {
    }

    /** The node a member id belongs to. */
    public static String nodeOf(String memberId) {
        int at = memberId.indexOf(SEPARATOR);
        return at < 0 ? memberId : memberId.substring(0, at);
    }

    /** The member id of node {@code node} back on disk {@code disk}. */
    public static String onNewDisk(String node, String disk) {
        String d = disk.replace("-", "");
        return node + SEPARATOR + d.substring(0, Math.min(DISK_CHARS, d.length()));
    }
}
