package io.cairn.replication;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One running member of a replicated group: what a storage node needs of a Raft engine, and all of
 * it. The bucket ledger, moves, discovery and doubled-bucket code reach replication only through
 * this port, so the engine behind it can change (docs/raft-engines.md says why it is MicroRaft).
 *
 * <p>Every future completes on an engine thread: callers must not block in their callbacks.
 * Failures are {@link ReplicationException}s; {@link ReplicationException.NotLeader} carries the
 * member to try next.
 */
public interface Replica extends AutoCloseable {
    /**
     * Appends {@code command} to the log; completes with the state machine's reply once the entry is
     * committed (forced to disk on a majority) and applied on this member. Leader only.
     */
    CompletableFuture<byte[]> propose(byte[] command);

    /** Answers {@code query} from the state machine under {@code policy}, without a log entry. */
    CompletableFuture<byte[]> read(byte[] query, ReadPolicy policy);

    /** A consistent view of this member's role, term, leader and indexes, as of now. */
    ReplicaStatus status();

    /** Hands leadership to {@code memberId}, which must be a voter; completes once it leads. Leader only. */
    CompletableFuture<Void> transferLeadership(String memberId);

    /**
     * Changes the group's members by one step: add a learner, promote a learner to voter, or remove
     * a member. {@code expectedMembershipIndex} is the index of the membership the caller saw
     * ({@link Membership#index()}): the change is refused when another landed since. Leader only.
     */
    CompletableFuture<Membership> changeMembership(String memberId, String address, MembershipChange change, long expectedMembershipIndex);

    /**
     * Takes a snapshot of this member's state now (it need not lead) and drops its log up to it;
     * completes with the snapshot's index. Taken anyway after every {@code snapshotEveryEntries}.
     */
    CompletableFuture<Long> takeSnapshot();

    /**
     * For a member started {@link ReplicaConfig.Vote#AFTER_CHECK}: {@code acknowledgedIndex} is the
     * highest log index it is on record as having acknowledged (its leaders report it). If its log
     * reaches that far it votes from now on; if not, its folder is older than what it acknowledged (an
     * older copy restored) and it votes only once it has caught up with its leader. Completes with
     * whether it votes now; a member not waiting for the check answers at once.
     */
    CompletableFuture<Boolean> confirmAcknowledged(long acknowledgedIndex);

    /**
     * On the leader: the highest log index each member is known to hold, its own log end and each
     * follower's match index, for the record {@link #confirmAcknowledged} is checked against. Leader only.
     */
    CompletableFuture<Map<String, Long>> acknowledged();

    /**
     * From now on this member neither votes nor stands for election, whatever it catches up: it runs on a
     * folder that is no longer its node's member in the group (an older disk put back). Idempotent.
     */
    default void withholdVote() {
    }

    /** What this member holds for peers that do not read what it sends; {@link SendBacklog#NONE} for an engine that does not say. */
    default SendBacklog sendBacklog() {
        return SendBacklog.NONE;
    }

    /** The members as this member knows them (committed or not yet committed). */
    Membership membership();

    /** Stops this member: its listener, timers and files. Idempotent. */
    @Override
    void close();
}
