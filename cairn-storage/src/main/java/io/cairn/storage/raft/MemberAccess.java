package io.cairn.storage.raft;



import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * What a data-plane request does on its member: the seam between the listener
 * ({@link io.cairn.storage.DataPlaneServer}) and the member's replication engine ({@link RatisAccess} on Ratis,
 * {@link ReplicaAccess} on the replication port). An implementation answers every request exactly
 * once through {@code out}, on any thread, and never blocks the calling event loop.
 */
public interface MemberAccess {
    /** Handles one request ({@code type} {@link io.cairn.core.wire.DataPlane#WRITE} or {@code READ}); answers through {@code out}. */
    void handle(Responses out, long callId, UUID clientId, byte type, byte[] payload);

    /**
     * A follower read ({@link io.cairn.core.wire.DataPlane#STALE_READ}) of the READ message {@code read}:
     * answered by this member, leader or not, from what it applied once it applied {@code minIndex}, while
     * it is within the engine's bounded lag; otherwise {@link io.cairn.core.wire.DataPlane#STALE}.
     */
    void staleRead(Responses out, long callId, UUID clientId, long minIndex, byte[] read);

    /** Where a request's response goes. */
    interface Responses {
        boolean isOpen();

        void respond(long callId, byte status, long logIndex, ByteBuffer body);
    }
}
