package io.cairn.core;

/**
 * What a refusal tells its caller besides its {@link ErrorCode}, so a router can fix its routes from
 * the answer alone (vshard's {@code WRONG_BUCKET.destination}) instead of from its text. Travels
 * with the error on the data plane ({@code OpCodec}, {@code KeyPage}); absent (null) when the
 * refusing replicaset knows nothing more.
 *
 * @param movedTo    the replicaset the bucket was handed to (a SENT record's peer); never empty
 * @param generation the generation of that hand-over: the new owner took the bucket at it, so a route
 *                   already at a higher generation is newer than this hint
 */
public record ErrorPayload(String movedTo, long generation) {
    public ErrorPayload {
        if (movedTo == null || movedTo.isEmpty()) throw new IllegalArgumentException("movedTo is required");
    }

    /**
     * The payload of a refusal for a bucket whose record here is {@code r} (null: none): where it went
     * when this replicaset sent it away, else null. One rule for storage and the simulator.
     */
    public static ErrorPayload of(BucketRecord r) {
        return r != null && r.state() == BucketState.SENT && !r.peer().isEmpty() ? new ErrorPayload(r.peer(), r.generation()) : null;
    }
}
