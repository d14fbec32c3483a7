package io.cairn.core.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The router -> storage data plane: length-prefixed binary frames over one TCP connection per
 * (router, member), multiplexed by call id. It replaces the Ratis client RPC (gRPC, ordered
 * sliding window) on the hot path; the storage leader submits each request into Ratis in
 * process, so writes still go through the Raft log and reads still use ReadIndex.
 *
 * <p>A request carries the Ratis client id and call id the storage node uses for its
 * {@code RaftClientRequest}. A router re-sends a write whose outcome it does not know (lost
 * connection, timeout, leader change) with the <em>same</em> ids, so Ratis's retry cache
 * answers it from the first attempt instead of applying it twice.
 *
 * <pre>
 * request   [length:4][callId:8][clientIdMsb:8][clientIdLsb:8][type:1][StorageRequest message]
 * response  [length:4][callId:8][status:1][logIndex:8][body]
 * </pre>
 * {@code length} counts the bytes after itself. Bodies: OK -> the state machine's reply;
 * NOT_LEADER -> the suggested leader's id in UTF-8 (empty when unknown); RETRY and FAILED -> a
 * reason in UTF-8.
 */
public final class DataPlane {
    /** Request types. */
    public static final byte WRITE = 1;
    public static final byte READ = 2;

    /** Response statuses. */
    public static final byte OK = 0;
    /** This member is not the leader; nothing was submitted. The body names the leader if known. */
    public static final byte NOT_LEADER = 1;
    /** Transient refusal (leader not ready, stepping down, busy, closing): send again. */
    public static final byte RETRY = 2;
    /** The state machine refused the request; sending it again cannot help. */
    public static final byte FAILED = 3;

    public static final int REQUEST_HEADER_BYTES = 8 + 16 + 1;
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

    /** A decoded request header; {@code payload} is the StorageRequest message. */
    public record Request(long callId, UUID clientId, byte type, ByteBuffer payload) {}

    /** Decodes a request frame without its length prefix. */
    public static Request decodeRequest(ByteBuffer frame) {
        long callId = frame.getLong();
        UUID clientId = new UUID(frame.getLong(), frame.getLong());
        byte type = frame.get();
        if (type != WRITE && type != READ) throw new IllegalArgumentException("unknown data-plane request type " + type);
        return new Request(callId, clientId, type, frame.slice());
    }

    public static byte[] utf8(String s) {
        return s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
    }
}
