package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.WireCodes;

/**
 * A replicaset's answer to a {@link MoveCommand}. {@code record} is the bucket's record after
 * the command (null when there is none); {@code expectedSeq} is set on {@link Outcome#GAP};
 * {@code changes} is the first page of changed keys in SendCopied's answer (else null), which
 * saves the hand-over a query while writes are held. {@code refusal} says why a
 * {@link Outcome#REFUSED} answer refused, as a type drivers decide on; {@code message} says it
 * in words for people, and is never compared.
 */
public record MoveReply(Outcome outcome, BucketRecord record, int expectedSeq, String message, MoveQuery.ChangesPage changes,
                        Refusal refusal) {
    /** {@code refusal} is {@link Refusal#NONE} unless refused, and a refusal without a reason is {@link Refusal#STATE}. */
    public MoveReply {
        if (outcome != Outcome.REFUSED) refusal = Refusal.NONE;
        else if (refusal == null || refusal == Refusal.NONE) refusal = Refusal.STATE;
    }

    public MoveReply(Outcome outcome, BucketRecord record, int expectedSeq, String message, MoveQuery.ChangesPage changes) {
        this(outcome, record, expectedSeq, message, changes, Refusal.NONE);
    }

    public MoveReply(Outcome outcome, BucketRecord record, int expectedSeq, String message) {
        this(outcome, record, expectedSeq, message, null);
    }

    public enum Outcome {
        /** Applied (or already applied: every command is idempotent). */
        OK(0),
        /** Not applicable in the bucket's current state; {@code refusal} and {@code message} say why. Nothing changed. */
        REFUSED(1),
        /** A chunk arrived out of order; the destination expects {@code expectedSeq}. */
        GAP(2),
        /** FinishReceive: the destination holds the whole bucket, verified; it may be activated. */
        COMPLETE(3),
        /** FinishReceive: the destination's copy is fenced (GARBAGE); the source may roll back. */
        ABORTED(4),
        /** The replicaset could not be reached or did not answer in time; the command may or may not have applied. */
        UNAVAILABLE(5);

        private static final Outcome[] BY_CODE = WireCodes.index(values(), Outcome::code);
        private final byte code;

        Outcome(int code) {
            this.code = (byte) code;
        }

        /** Kept in stored replies and sent on the wire: never reuse or renumber one. */
        public byte code() {
            return code;
        }

        public static Outcome ofCode(byte code) {
            return WireCodes.lookup(BY_CODE, code, "move outcome");
        }
    }

    /** Why a command was refused: what the driver does next depends on it, not on the message's words. */
    public enum Refusal {
        /** Not refused. */
        NONE(0),
        /** The bucket's record does not allow the command (state, generation, peer): the move ends or rolls back. */
        STATE(1),
        /** Storage refs of a map-reduce call are held: nothing is wrong with the bucket, the same command may succeed later. */
        REFS_HELD(2),
        /** The bucket is archived or being archived: it moves by server-side copy after a plain StartSend, or once archiving ends. */
        ARCHIVED(3);

        private static final Refusal[] BY_CODE = WireCodes.index(values(), Refusal::code);
        private final byte code;

        Refusal(int code) {
            this.code = (byte) code;
        }

        /** Sent on the wire: never reuse or renumber one. */
        public byte code() {
            return code;
        }

        public static Refusal ofCode(byte code) {
            return WireCodes.lookup(BY_CODE, code, "move refusal");
        }
    }

    public static MoveReply ok(BucketRecord record) {
        return new MoveReply(Outcome.OK, record, 0, "");
    }

    /** Refused by the bucket's state ({@link Refusal#STATE}). */
    public static MoveReply refused(BucketRecord record, String message) {
        return refused(record, Refusal.STATE, message);
    }

    public static MoveReply refused(BucketRecord record, Refusal why, String message) {
        return new MoveReply(Outcome.REFUSED, record, 0, message, null, why);
    }

    public static MoveReply unavailable(String message) {
        return new MoveReply(Outcome.UNAVAILABLE, null, 0, message);
    }

    public boolean isOk() {
        return outcome == Outcome.OK;
    }

    /** Refused because map-reduce refs are held: the bucket is fine, the command may be sent again later. */
    public boolean refusedByRefs() {
        return refusal == Refusal.REFS_HELD;
    }
}
