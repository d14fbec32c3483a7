package io.cairn.storage.raft;

import io.cairn.replication.SendBacklog;
import io.cairn.storage.state.ArchivedAccess;
import io.cairn.storage.state.ReplicasetState;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * What a {@link io.cairn.storage.StorageNode} needs of the Raft engine its member runs on: the data-plane seam
 * ({@link MemberAccess}), the state it replicates, and its role for status pages. One
 * implementation per {@link io.cairn.storage.ReplicationEngine}.
 */
public interface NodeEngine extends AutoCloseable {
    /** Starts the member (binds its Raft port, recovers its log). */
    void start() throws IOException;

    /** Data-plane requests on this member. */
    MemberAccess access();

    /** The replicated state as this member applied it; null while it is being replaced (a snapshot install) or after close. */
    ReplicasetState state();

    boolean isLeader();

    /** LEADER, FOLLOWER, CANDIDATE, LEARNER, ... or DOWN. */
    String role();

    /**
     * Whether this member is back on a new or damaged folder and has not yet caught up with its leader
     * ({@link io.cairn.storage.DiskIdentity}): it neither votes nor serves reads. Only MicroRaft keeps such a member from
     * voting; a Ratis member always answers false.
     */
    default boolean rejoining() {
        return false;
    }

    /** See {@link io.cairn.replication.Replica#withholdVote}; an engine without it does nothing. */
    default void withholdVote() {
    }

    /** See {@link io.cairn.replication.Replica#confirmAcknowledged}; an engine without the check answers true. */
    default CompletableFuture<Boolean> confirmAcknowledged(long acknowledgedIndex) {
        return CompletableFuture.completedFuture(true);
    }

    /** See {@link io.cairn.replication.Replica#acknowledged}; an engine without the record answers an empty map. */
    default CompletableFuture<Map<String, Long>> acknowledged() {
        return CompletableFuture.completedFuture(Map.of());
    }

    /** See {@link io.cairn.replication.Replica#sendBacklog}; Ratis members answer none. */
    default SendBacklog sendBacklog() {
        return SendBacklog.NONE;
    }

    /** The current term; -1 when unknown. */
    long term();

    /** Hands leadership to member {@code memberId}; completes once it leads, exceptionally when refused or not done in time. Leader only. */
    CompletableFuture<Void> transferLeadership(String memberId);

    /** Takes a snapshot of this member's state now and drops its log up to it; completes with the snapshot's index. */
    CompletableFuture<Long> takeSnapshot();

    /** Snapshots this member received from a leader and installed since it started. */
    long snapshotInstalls();

    /** Calls {@code hook} with the buckets of every Verify query this member answers. */
    void onVerifyRequest(Consumer<List<Integer>> hook);

    /** Tells {@code hook} of every request refused here because its bucket is archived ({@link ArchivedAccess}). */
    void onArchivedAccess(ArchivedAccess hook);

    /**
     * Before a planned stop: if this member leads, hands leadership to another voter (bounded in
     * time), so writes flow again at once instead of after the followers' leader timeout. Engines
     * that do it themselves at close do nothing here.
     *
     * @return the member that leads now, or null when this one did not lead or none took over in time
     */
    default String handOverLeadership() {
        return null;
    }

    @Override
    void close() throws IOException;
}
