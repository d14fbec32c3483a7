package io.cairn.client;

/**
 * A call to a replicaset got no answer within its deadline (no member reachable, no leader, or the
 * members kept refusing it), or was refused. {@link #mayHaveApplied()} tells the two kinds of failed
 * write apart (issue 22): false when no attempt reached a member that could have appended it (every
 * one was refused before it was submitted, or never sent), so the write was not applied; true when
 * some attempt was handed to a member and its outcome is unknown.
 */
public final class ReplicasetUnavailable extends RuntimeException {
    private final boolean mayHaveApplied;

    public ReplicasetUnavailable(String message) {
        this(message, false);
    }

    public ReplicasetUnavailable(String message, boolean mayHaveApplied) {
        super(message, null, false, false);
        this.mayHaveApplied = mayHaveApplied;
    }

    /** Whether the write may have been applied (an attempt was sent and its outcome is unknown). */
    public boolean mayHaveApplied() {
        return mayHaveApplied;
    }
}
