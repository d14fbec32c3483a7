package io.cairn.client;

/**
 * A call to a replicaset got no answer within its deadline (no member reachable, no leader, or the
 * members kept refusing it). For a write the outcome is unknown: it may have been applied.
 */
public final class ReplicasetUnavailable extends RuntimeException {
    public ReplicasetUnavailable(String message) {
        super(message, null, false, false);
    }
}
