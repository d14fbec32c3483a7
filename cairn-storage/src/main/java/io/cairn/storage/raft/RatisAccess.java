package io.cairn.storage.raft;

import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.StorageRequest;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Data-plane requests on a Ratis member: each becomes a {@link RaftClientRequest} submitted to
 * this member's Raft server in process. Writes go through the log (answered after commit on a
 * majority and apply, exactly like a Ratis client request); reads are linearizable read-only
 * requests (ReadIndex with leader lease). A member that is not the leader answers NOT_LEADER with
 * the leader it knows of (reads included, so they stay on the leader's lease), and the router
 * redirects. No Ratis client RPC (gRPC stream, ordered sliding window) is involved.
 *
 * <p>The request carries the router's client id and call id, so a write the router re-sends
 * after losing track of it is de-duplicated by Ratis's retry cache. Replies are written from the
 * thread that completes the Ratis future: the event loop for a read under the leader's lease, the
 * state machine updater for a write.
 */
final class RatisAccess implements MemberAccess {
    private final RaftServer server;
    private final RaftGroupId groupId;
    private final RaftPeerId selfId;

    RatisAccess(RaftServer server, RaftGroupId groupId, RaftPeerId selfId) {
        this.server = server;
        this.groupId = groupId;
        this.selfId = selfId;
    }

    /** One request, from a socket or an in-process session; its response goes to {@code out}. */
    @Override
    public void handle(Responses out, long callId, UUID clientId, byte type, byte[] payload) {
        if (type == DataPlane.MEMBERSHIP) {
            out.respond(callId, DataPlane.FAILED, 0, ByteBuffer.wrap(DataPlane.utf8(
                    "membership changes need storage.engine: microraft; this replicaset runs on ratis")));
            return;
        }
        RaftServer.Division division = division();
        if (type == DataPlane.READ && (division == null || !division.getInfo().isLeader())) {
            // A follower could answer through ReadIndex, at the cost of a round trip to the
            // leader; sending the router to the leader keeps reads on its lease.
            respondNotLeader(out, callId, division);
            return;
        }
        RaftClientRequest raftRequest = request(clientId, callId, payload,
                type == DataPlane.WRITE ? RaftClientRequest.writeRequestType() : RaftClientRequest.readRequestType());
        try {
            submit(raftRequest, payload.length > 0 && runsInline(payload[0]) ? division : null)
                    .whenComplete((reply, error) -> respond(out, callId, type == DataPlane.READ ? division : null, reply, error));
        } catch (IOException | RuntimeException e) {
            respond(out, callId, null, null, e);
        }
    }

    /**
     * A follower read through Ratis's stale read, exactly what a Ratis client's {@code sendStaleRead}
     * got: Ratis refuses while this member's commit index is below {@code minIndex};
     * {@link StorageStateMachine#queryStale} refuses while this member is cut off from its leader (or,
     * leading, from a majority) for longer than the bound, and otherwise answers once it applied
     * {@code minIndex}. Any failure is STALE: the router asks the leader, so nothing needs telling apart.
     */
    @Override
    public void staleRead(Responses out, long callId, UUID clientId, long minIndex, byte[] read) {
        RaftServer.Division division = division();
        if (division == null) {
            stale(out, callId, selfId + " has no Raft division (starting or stopping)");
            return;
        }
        RaftClientRequest raftRequest = request(clientId, callId, read, RaftClientRequest.staleReadRequestType(minIndex));
        try {
            submit(raftRequest, read.length > 0 && runsInline(read[0]) ? division : null).whenComplete((reply, error) -> {
                if (!out.isOpen()) return;
                if (error == null && reply.isSuccess()) {
                    out.respond(callId, DataPlane.OK, reply.getLogIndex(), reply.getMessage().getContent().asReadOnlyByteBuffer());
                } else {
                    stale(out, callId, String.valueOf(error != null ? error.getMessage() : reply.getException()));
                }
            });
        } catch (IOException | RuntimeException e) {
            stale(out, callId, String.valueOf(e.getMessage()));
        }
    }

    /** The request a Ratis client would have sent, with the router's client and call ids (its retry cache key). */
    private RaftClientRequest request(UUID clientId, long callId, byte[] payload, RaftClientRequest.Type type) {
        return RaftClientRequest.newBuilder()
                .setClientId(ClientId.valueOf(clientId))
                .setServerId(selfId)
                .setGroupId(groupId)
                .setCallId(callId)
                .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(payload)))
                .setType(type)
                .build();
    }

    private static void stale(Responses out, long callId, String reason) {
        if (out.isOpen()) out.respond(callId, DataPlane.STALE, 0, ByteBuffer.wrap(DataPlane.utf8(reason)));
    }

    /**
     * Submits to this member's division. Ratis's server-level entry point hands every request to
     * the division's client executor and blocks until that thread has submitted it: two thread
     * switches per request, most of the cost of a small read. Key reads and writes are submitted
     * here instead (a read served under the leader's lease then completes on this thread, so its
     * reply needs no hand-off either); scans and move queries keep the executor, so a KEYS cannot
     * hold up every replicaset behind this event loop.
     *
     * @param inline the division to submit to on this thread, or null for Ratis's executor
     */
    private CompletableFuture<RaftClientReply> submit(RaftClientRequest request, RaftServer.Division inline) throws IOException {
        if (inline instanceof RaftClientAsynchronousProtocol division) return division.submitClientRequestAsync(request);
        return server.submitClientRequestAsync(request);
    }

    private static boolean runsInline(byte kind) {
        return kind == StorageRequest.Kind.WRITE.code() || kind == StorageRequest.Kind.READ.code()
                || kind == StorageRequest.Kind.DISCOVER.code();
    }

    /** This member's Raft division, or null while it has none (starting, closing). */
    private RaftServer.Division division() {
        try {
            return server.getDivision(groupId);
        } catch (IOException e) {
            return null;
        }
    }

    private void respondNotLeader(Responses out, long callId, RaftServer.Division division) {
        RaftPeerId leader = division == null ? null : division.getInfo().getLeaderId();
        byte[] body = DataPlane.utf8(leader == null || leader.equals(selfId) ? "" : leader.toString());
        out.respond(callId, DataPlane.NOT_LEADER, 0, ByteBuffer.wrap(body));
    }

    /**
     * @param readOn the division that answered a read (no log entry, so no outcome to be unsure of;
     *               its answer carries the leader's commit index, which the router's follower reads
     *               then wait for), null for a write
     */
    private static void respond(Responses out, long callId, RaftServer.Division readOn, RaftClientReply reply, Throwable error) {
        if (!out.isOpen()) return;
        boolean query = readOn != null;
        byte status;
        long logIndex = 0;
        ByteBuffer body;
        if (error != null) {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            // Ratis fails the future itself, not the reply, when the state machine throws on a query
            // (malformed, unknown kind): that fails again every time, so it is not sent again.
            // Ratis's own failures are IOExceptions (closing, not ready): transient.
            status = query && !(cause instanceof IOException) ? DataPlane.FAILED : DataPlane.RETRY;
            body = ByteBuffer.wrap(DataPlane.utf8(String.valueOf(error.getMessage())));
        } else if (reply.isSuccess()) {
            status = DataPlane.OK;
            logIndex = query ? Math.max(reply.getLogIndex(), readOn.getRaftLog().getLastCommittedIndex()) : reply.getLogIndex();
            body = reply.getMessage().getContent().asReadOnlyByteBuffer();
        } else {
            RaftException e = reply.getException();
            NotLeaderException notLeader = reply.getNotLeaderException();
            if (notLeader != null) {
                status = DataPlane.NOT_LEADER;
                RaftPeer leader = notLeader.getSuggestedLeader();
                body = ByteBuffer.wrap(DataPlane.utf8(leader == null ? "" : leader.getId().toString()));
            } else if (e instanceof StateMachineException) {
                status = DataPlane.FAILED;
                body = ByteBuffer.wrap(DataPlane.utf8(e.getMessage()));
            } else {
                // Leader not ready, stepping down, read index failure, resource limits: transient.
                status = DataPlane.RETRY;
                body = ByteBuffer.wrap(DataPlane.utf8(e == null ? "request failed" : e.getMessage()));
            }
        }
        out.respond(callId, status, logIndex, body);
    }

}
