/**
 * The replication port ({@link io.cairn.replication.Replica}) on MicroRaft 0.7, with Cairn's own TCP
 * transport, segmented log store and file-based snapshots; {@link io.cairn.replication.microraft.MicroRaftReplicas}
 * is the way in, {@link io.cairn.replication.microraft.MicroRaftReplica} says how durability and
 * threading work.
 *
 * <p>Limits worth knowing:
 * <ul>
 * <li>MicroRaft logs every role change (several lines) and every snapshot chunk at INFO, and some
 * expected refusals at ERROR: run {@code io.microraft} at WARN.</li>
 * <li>A removed member need not learn that its removal committed (as in any Raft): stop it.</li>
 * <li>At most two learners at a time (MicroRaft's limit).</li>
 * <li>{@code LEADER_LEASE} reads trust the leader's clock: its lease is the leader timeout.</li>
 * <li>Each member checkpoints its own state, so the pieces of two members' snapshots at one index
 * differ. If the leader changes while a follower receives a snapshot, the follower drops the new
 * leader's pieces (it must not mix them) and waits for that leader's next snapshot, up to one
 * snapshot interval of writes later.</li>
 * </ul>
 */
package io.cairn.replication.microraft;
