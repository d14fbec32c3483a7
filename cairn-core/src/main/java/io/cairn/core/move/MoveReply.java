package io.cairn.core.move;

import io.cairn.core.BucketRecord;

/**
 * A replicaset's answer to a {@link MoveCommand}. {@code record} is the bucket's record after
 * the command (null when there is none); {@code expectedSeq} is set on {@link Outcome#GAP};
 * {@code changes} is the first page of changed keys in SendCopied's answer (else null), which
 * saves the hand-over a query while writes are held.
 */
public record MoveReply(Outcome outcome, BucketRecord record, int expectedSeq, String message, MoveQuery.ChangesPage changes) {
    public MoveReply(Outcome outcome, BucketRecord record, int expectedSeq, String message) {
        this(outcome, record, expectedSeq, message, null);
    }

    public enum Outcome {
        /** Applied (or already applied: every command is idempotent). */
        OK(0),
        /** Not applicable in the bucket's current state; {@code message} says why. Nothing changed. */
        REFUSED(1),
        /** A chunk arrived out of order; the destination expects {@code expectedSeq}. */
        GAP(2),
        /** FinishReceive: the destination holds the whole bucket, verified; it may be activated. */
        COMPLETE(3),
        /** FinishReceive: the destination's copy is fenced (GARBAGE); the source may roll back. */
        ABORTED(4),
        /** The replicaset could not be reached or did not answer in time; the command may or may not have applied. */
        UNAVAILABLE(5);

        private static final Outcome[] BY_CODE = io.cairn.core.WireCodes.index(values(), Outcome::code);
        private final byte code;

        Outcome(int code) {
            this.code = (byte) code;
        }

        /** Kept in stored replies and sent on the wire: never reuse or renumber one. */
        public byte code() {
            return code;
        }

        public static Outcome ofCode(byte code) {
            return io.cairn.core.WireCodes.lookup(BY_CODE, code, "move outcome");
        }
    }

    public static MoveReply ok(BucketRecord record) {
        return new MoveReply(Outcome.OK, record, 0, "");
    }

    public static MoveReply refused(BucketRecord record, String message) {
        return new MoveReply(Outcome.REFUSED, record, 0, message);
    }

    public static MoveReply unavailable(String message) {
        return new MoveReply(Outcome.UNAVAILABLE, null, 0, message);
    }

    public boolean isOk() {
        return outcome == Outcome.OK;
    }
}
