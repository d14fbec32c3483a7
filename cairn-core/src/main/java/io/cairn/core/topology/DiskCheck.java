package io.cairn.core.topology;

import java.util.Map;

/**
 * Whether a restarted storage node runs on the disk its cluster has on record for it (issue 21, seed
 * 002's DiskGenID). A node's disk is recorded in two places once it has caught up on it: its
 * replicaset's replicated state (a DISK entry through the group's log, kept in snapshots) and the
 * coordinator's ledger. Either may be out of reach when the node restarts (the coordinator down, no
 * leader yet), and the node's own copy of the group's state may be as old as its folder. So every
 * record that answers is consulted, and any one naming another disk settles it: the folder is not the
 * disk the cluster last saw this node catch up on (an older disk put back, a copy of a replaced one),
 * and the node catches up before it votes. Records agreeing with the folder prove nothing about how
 * much of the log it holds; that is the acknowledged-index check's part.
 *
 * <p>Pure: the caller gathers the records; tests in {@code DiskCheckTest}.
 */
public final class DiskCheck {
    private DiskCheck() {
    }

    /**
     * Why {@code node}'s folder (disk {@code ownDisk}) is not the disk on record, or null when no record
     * names another.
     *
     * @param records where each record was read (e.g. "replicaset rs1", "the coordinator") to the disk it
     *                names; a null value is a record that is absent or did not answer, in iteration order
     */
    public static String otherDisk(String node, String ownDisk, Map<String, String> records) {
        for (Map.Entry<String, String> r : records.entrySet()) {
            String recorded = r.getValue();
            if (recorded == null || recorded.isEmpty() || recorded.equals(ownDisk)) continue;
            return "restarted on disk " + ownDisk + " while " + r.getKey() + " records disk " + recorded + " for " + node
                    + " (an older disk put back, or a copy of a replaced one?)";
        }
        return null;
    }

    /**
     * Why a folder whose log ends at {@code logEnd} is an older copy of the node's own, given the highest index the
     * cluster has on record as acknowledged by the node; null when the log reaches it (an ordinary restart).
     */
    public static String olderCopy(long logEnd, long acknowledged) {
        return logEnd >= acknowledged ? null : "restarted on a log that ends at index " + logEnd + ", below the index " + acknowledged
                + " it had acknowledged (its folder is an older copy?)";
    }
}
