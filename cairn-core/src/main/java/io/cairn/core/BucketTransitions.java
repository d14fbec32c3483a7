package io.cairn.core;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import static io.cairn.core.BucketState.*;

/**
 * The one table of allowed bucket state changes. Every change of a bucket record goes
 * through {@link #check}; a change not in the table is a bug, never silently applied.
 *
 * <p>Creation (no previous record) may only produce ACTIVE (bootstrap), RECEIVING (a move) or
 * GARBAGE (a fence against a move that never arrived).
 */
public final class BucketTransitions {
    private static final Map<BucketState, Set<BucketState>> ALLOWED = new EnumMap<>(BucketState.class);

    static {
        ALLOWED.put(ACTIVE, EnumSet.of(PINNED, SENDING, READONLY));
        ALLOWED.put(PINNED, EnumSet.of(ACTIVE, READONLY));
        ALLOWED.put(SENDING, EnumSet.of(ACTIVE, SENT));
        ALLOWED.put(RECEIVING, EnumSet.of(ACTIVE, GARBAGE));
        ALLOWED.put(SENT, EnumSet.of(GARBAGE, RECEIVING));
        ALLOWED.put(GARBAGE, EnumSet.of(RECEIVING));
        ALLOWED.put(READONLY, EnumSet.of(ACTIVE, GARBAGE));
    }

    private static final Set<BucketState> CREATABLE = EnumSet.of(ACTIVE, RECEIVING, GARBAGE);

    private BucketTransitions() {}

    public static boolean isAllowed(BucketState from, BucketState to) {
        if (from == null) return CREATABLE.contains(to);
        return ALLOWED.get(from).contains(to);
    }

    /** Throws {@link CairnException} with {@link ErrorCode#ILLEGAL_TRANSITION} when not allowed. */
    public static void check(int bucketId, BucketState from, BucketState to) {
        if (!isAllowed(from, to)) {
            throw new CairnException(ErrorCode.ILLEGAL_TRANSITION,
                    "bucket " + bucketId + ": " + from + " -> " + to + " is not an allowed transition");
        }
    }
}
