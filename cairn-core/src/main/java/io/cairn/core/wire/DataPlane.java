package io.cairn.core.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The router -> storage data plane: length-prefixed binary frames over one TCP connection per
 * (router, member), multiplexed by call id. It is the router's only way to a replicaset (reads,
 * writes, queries, map-reduce calls, follower reads); the member hands each request to its
 * replication engine in process, so writes still go through the Raft log and reads are still
 * linearizable (follower reads excepted, by design).
 *
 * <p>A request carries the Ratis client id and call id the storage node uses for its
 * {@code RaftClientRequest}. A router re-sends a write whose outcome it does not know (lost
 * connection, timeout, leader change) with the <em>same</em> ids, so Ratis's retry cache
 * answers it from the first attempt instead of applying it twice.
 *
 * <pre>
 * request   [length:4][callId:8][clientIdMsb:8][clientIdLsb:8][type:1]([epoch:8])[StorageRequest message]
 * STALE_READ[length:4][callId:8][clientIdMsb:8][clientIdLsb:8][type:1]([epoch:8])[minIndex:8][READ message]
 * response  [length:4][callId:8][status:1][logIndex:8][body]
 * </pre>
 * {@code epoch} is there when the type carries {@link #EPOCH_FLAG}: the sender's topology epoch. A
 * member that knows a newer one answers {@link #STALE_EPOCH} at once, without a Raft round.
 * {@code length} counts the bytes after itself. Bodies: OK -> the state machine's reply;
 * NOT_LEADER -> the suggested leader's id in UTF-8 (empty when unknown); RETRY, FAILED and STALE
 * -> a reason in UTF-8.
 */
public final class DataPlane {
    /** Request types. */
    public static final byte WRITE = 1;
    public static final byte READ = 2;
    /**
     * A follower read, for the member it is sent to only (never redirected): answered from what that
     * member applied once it applied {@code minIndex} (the router's own last write), and only while
     * it is within its engine's bounded lag of its leader; otherwise answered {@link #STALE}.
     */
    public static final byte STALE_READ = 3;
    /**
     * Reads or changes the replicaset's Raft members on its leader ({@link MemberChange}); FAILED when
     * the change is refused (the membership changed since the index it names, or the engine has no
     * membership changes).
     */
    public static final byte MEMBERSHIP = 4;

    /** Set on a request type when the sender's topology epoch follows the type. */
    public static final byte EPOCH_FLAG = 0x40;

    /** Response statuses. */
    public static final byte OK = 0;
    /** This member is not the leader; nothing was submitted. The body names the leader if known. */
    public static final byte NOT_LEADER = 1;
    /** Transient refusal (leader not ready, stepping down, busy, closing): send again. */
    public static final byte RETRY = 2;
    /** The state machine refused the request; sending it again cannot help. */
    public static final byte FAILED = 3;
    /**
     * This member refuses a {@link #STALE_READ} ({@link io.cairn.core.ErrorCode#STALE_READ}): it has not
     * applied the index asked for, or it is cut off from its leader (or, leading, from its majority)
     * for longer than the bound. Nothing was read; the router asks the leader.
     */
    public static final byte STALE = 4;
    /**
     * The member knows a newer topology epoch than the request carried ({@link io.cairn.core.ErrorCode#STALE_EPOCH}):
     * nothing was submitted. The body is that epoch in UTF-8; the sender refreshes its topology and sends again.
     */
    public static final byte STALE_EPOCH = 5;

    public static final int REQUEST_HEADER_BYTES = 8 + 16 + 1;
    /** Bytes of a {@link #STALE_READ}'s minimum index, between the header and the READ message. */
    public static final int MIN_INDEX_BYTES = 8;
    /** Bytes of a request's epoch, after the type, when the type carries {@link #EPOCH_FLAG}. */
    public static final int EPOCH_BYTES = 8;
    public static final int RESPONSE_HEADER_BYTES = 8 + 1 + 8;
    /** Largest frame accepted (bounds a peer's memory use per frame). */
    public static final int MAX_FRAME_BYTES = 512 << 20;

    /**
     * First byte of the Ratis query that asks one member for its data-plane address ("host:port"
     * in UTF-8, empty while not listening). Outside the range of {@link StorageRequest.Kind}.
     */
    public static final byte ENDPOINT_QUERY = 0x7E;

    private DataPlane() {}

    public static byte[] endpointQuery() {
        return new byte[] {ENDPOINT_QUERY};
    }

    public static boolean isEndpointQuery(ByteBuffer message) {
        return message.remaining() == 1 && message.get(message.position()) == ENDPOINT_QUERY;
    }

    /** A decoded response header; {@code body} is positioned at the body. */
    public record Response(long callId, byte status, long logIndex, ByteBuffer body) {
        public String text() {
            ByteBuffer b = body.duplicate();
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /** Decodes a response frame without its length prefix. */
    public static Response decodeResponse(ByteBuffer frame) {
        long callId = frame.getLong();
        byte status = frame.get();
        long logIndex = frame.getLong();
        return new Response(callId, status, logIndex, frame.slice());
    }

    /**
     * A decoded request header; {@code payload} is the StorageRequest message; {@code minIndex} is a
     * {@link #STALE_READ}'s (0 for the other types); {@code epoch} the sender's topology epoch (0: none sent).
     */
    public record Request(long callId, UUID clientId, byte type, long epoch, long minIndex, ByteBuffer payload) {}

    /** Whether {@code type} is a request type this version knows. */
    public static boolean isRequestType(byte type) {
        return type == WRITE || type == READ || type == STALE_READ || type == MEMBERSHIP;
    }

    /** Decodes a request frame without its length prefix. */
    public static Request decodeRequest(ByteBuffer frame) {
        long callId = frame.getLong();
        UUID clientId = new UUID(frame.getLong(), frame.getLong());
        byte flagged = frame.get();
        byte type = (byte) (flagged & ~EPOCH_FLAG);
        if (!isRequestType(type)) throw new IllegalArgumentException("unknown data-plane request type " + flagged);
        long epoch = (flagged & EPOCH_FLAG) != 0 ? frame.getLong() : 0;
        long minIndex = type == STALE_READ ? frame.getLong() : 0;
        return new Request(callId, clientId, type, epoch, minIndex, frame.slice());
    }

    public static byte[] utf8(String s) {
        return s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
    }
}
