package io.cairn.storage.raft;

import io.cairn.core.topology.MemberIds;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.MemberChange;
import io.cairn.core.wire.StorageRequest;
import io.cairn.replication.Membership;
import io.cairn.replication.MembershipChange;
import io.cairn.replication.ReadPolicy;
import io.cairn.replication.Replica;
import io.cairn.replication.ReplicaStatus;
import io.cairn.replication.ReplicationException;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Data-plane requests on a member of the replication port ({@code cairn-replication}), the
 * counterpart of {@link RatisAccess}: the leader stamps its clock into a write and proposes it
 * wrapped in a ONCE entry with the router's client and call ids, so a write the router re-sends
 * after losing its answer is answered from {@link io.cairn.storage.state.CallReplies}, not applied twice (what Ratis's
 * retry cache does for {@link RatisAccess}). Reads are answered under the leader's lease. A
 * member that does not lead answers NOT_LEADER with the leader it knows of.
 *
 * <p>Statuses: an entry whose fate is unknown (leadership lost after it was appended) is RETRY,
 * which is safe because the re-sent write carries the same ids; a refusal before anything was
 * appended is RETRY too; NOT_LEADER carries the leader to try.
 */
final class ReplicaAccess implements MemberAccess {
    /** The member; a supplier because the listener may be built before the member starts. */
    private final Supplier<Replica> member;
    private final LongSupplier clock;

    ReplicaAccess(Replica replica, LongSupplier clock) {
        this(() -> replica, clock);
    }

    ReplicaAccess(Supplier<Replica> member, LongSupplier clock) {
        this.member = member;
        this.clock = clock;
    }

    @Override
    public void handle(Responses out, long callId, UUID clientId, byte type, byte[] payload) {
        Replica replica = member.get();
        if (replica == null) {
            out.respond(callId, DataPlane.RETRY, 0, ByteBuffer.wrap(DataPlane.utf8("starting")));
            return;
        }
        ReplicaStatus status = replica.status();
        if (!status.leads()) {
            notLeader(out, callId, status.leaderId());
            return;
        }
        if (type == DataPlane.MEMBERSHIP) {
            membership(out, callId, replica, payload);
            return;
        }
        CompletableFuture<byte[]> reply;
        try {
            // A malformed entry is refused here, before the log: every replica would fail to apply it.
            if (type == DataPlane.WRITE) StorageRequest.checkEntry(ByteBuffer.wrap(payload));
            reply = type == DataPlane.WRITE
                    ? replica.propose(StorageRequest.stamp(StorageRequest.once(clientId, callId, payload), clock.getAsLong()))
                    : replica.read(payload, ReadPolicy.LEADER_LEASE);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((body, error) -> respond(out, callId, replica, body, error));
    }

    /**
     * A {@link MemberChange} on the leader: the membership as it is (GET) or after the change. A
     * refused change (the membership moved on since the index it names, a member the engine cannot
     * add) is FAILED with the reason: the caller reads the membership again and decides.
     */
    private static void membership(Responses out, long callId, Replica replica, byte[] payload) {
        MemberChange change;
        try {
            change = MemberChange.decode(payload);
        } catch (IllegalArgumentException e) {
            out.respond(callId, DataPlane.FAILED, 0, ByteBuffer.wrap(DataPlane.utf8(e.getMessage())));
            return;
        }
        CompletableFuture<Membership> after = switch (change.op()) {
            case GET -> CompletableFuture.completedFuture(replica.membership());
            case SNAPSHOT -> replica.takeSnapshot().thenApply(index -> replica.membership());
            case LEAD -> replica.transferLeadership(change.member()).thenApply(v -> replica.membership());
            case ADD_LEARNER -> replica.changeMembership(change.member(), change.address(), MembershipChange.ADD_LEARNER, change.expectedIndex());
            case PROMOTE -> replica.changeMembership(change.member(), change.address(), MembershipChange.PROMOTE_TO_VOTER, change.expectedIndex());
            case REMOVE -> replica.changeMembership(change.member(), change.address(), MembershipChange.REMOVE, change.expectedIndex());
        };
        after.whenComplete((m, error) -> {
            if (!out.isOpen()) return;
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (cause == null) {
                Map<String, String> learners = new HashMap<>();
                for (String id : m.learners()) learners.put(id, m.addresses().getOrDefault(id, ""));
                out.respond(callId, DataPlane.OK, 0, ByteBuffer.wrap(MemberChange.encode(new MemberChange.View(m.index(), m.committed(), m.voters(), learners))));
            } else if (cause instanceof ReplicationException.NotLeader notLeader) {
                notLeader(out, callId, notLeader.leaderId());
            } else if (cause instanceof ReplicationException.Refused || cause instanceof IllegalArgumentException) {
                out.respond(callId, DataPlane.FAILED, 0, ByteBuffer.wrap(DataPlane.utf8(cause.getMessage())));
            } else {
                out.respond(callId, DataPlane.RETRY, 0, ByteBuffer.wrap(DataPlane.utf8(String.valueOf(cause.getMessage()))));
            }
        });
    }

    /**
     * A follower read on the port. The leader answers under its lease (the bound a leader has: it
     * heard from a majority within the lease). Another member answers under
     * {@link ReadPolicy#BOUNDED_STALE} (it heard from its leader within the leader timeout and applied
     * what that leader had committed then), and only once it applied {@code minIndex}, the router's
     * own last write: the port has no wait for an index, so a member behind it refuses at once and the
     * leader answers. Every refusal is STALE.
     */
    @Override
    public void staleRead(Responses out, long callId, UUID clientId, long minIndex, byte[] read) {
        Replica replica = member.get();
        if (replica == null) {
            stale(out, callId, "starting");
            return;
        }
        ReplicaStatus status = replica.status();
        if (status.rejoining()) {
            stale(out, callId, "rejoining on a new or damaged folder: not caught up with its leader yet");
            return;
        }
        if (!status.leads() && status.appliedIndex() < minIndex) {
            stale(out, callId, "applied up to " + status.appliedIndex() + ", the read needs " + minIndex);
            return;
        }
        CompletableFuture<byte[]> reply;
        try {
            reply = replica.read(read, status.leads() ? ReadPolicy.LEADER_LEASE : ReadPolicy.BOUNDED_STALE);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((body, error) -> {
            if (!out.isOpen()) return;
            if (error == null) out.respond(callId, DataPlane.OK, 0, ByteBuffer.wrap(body));
            else stale(out, callId, String.valueOf((error instanceof CompletionException && error.getCause() != null ? error.getCause() : error).getMessage()));
        });
    }

    private static void stale(Responses out, long callId, String reason) {
        if (out.isOpen()) out.respond(callId, DataPlane.STALE, 0, ByteBuffer.wrap(DataPlane.utf8(reason)));
    }

    private static void respond(Responses out, long callId, Replica replica, byte[] body, Throwable error) {
        if (!out.isOpen()) return;
        if (error == null) {
            out.respond(callId, DataPlane.OK, replica.status().commitIndex(), ByteBuffer.wrap(body));
            return;
        }
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof ReplicationException.NotLeader notLeader) {
            notLeader(out, callId, notLeader.leaderId());
        } else if (cause instanceof IllegalArgumentException) {
            // not a log entry, or not a query: sending it again cannot help
            out.respond(callId, DataPlane.FAILED, 0, ByteBuffer.wrap(DataPlane.utf8(String.valueOf(cause.getMessage()))));
        } else {
            out.respond(callId, DataPlane.RETRY, 0, ByteBuffer.wrap(DataPlane.utf8(String.valueOf(cause.getMessage()))));
        }
    }

    /** The hint names the leader's node (callers find it in the topology), not its member id on a new disk. */
    private static void notLeader(Responses out, long callId, String leaderId) {
        String node = leaderId == null ? "" : MemberIds.nodeOf(leaderId);
        out.respond(callId, DataPlane.NOT_LEADER, 0, ByteBuffer.wrap(DataPlane.utf8(node)));
    }
}
