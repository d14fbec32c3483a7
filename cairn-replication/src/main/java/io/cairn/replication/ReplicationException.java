package io.cairn.replication;

/** Why a replication call failed; an expected condition, so no stack trace is captured. */
public class ReplicationException extends RuntimeException {
    public ReplicationException(String message) {
        super(message, null, false, false);
    }

    /** This member does not lead; {@link #leaderId()} is the member to try next, or null when unknown. */
    public static final class NotLeader extends ReplicationException {
        private final String leaderId;

        public NotLeader(String memberId, String leaderId) {
            super(memberId + " is not the leader" + (leaderId == null ? "" : "; try " + leaderId));
            this.leaderId = leaderId;
        }

        public String leaderId() {
            return leaderId;
        }
    }

    /** The outcome is unknown: the entry may still commit (leadership lost, or the member stopped, after it was appended). */
    public static final class Indeterminate extends ReplicationException {
        public Indeterminate(String message) {
            super(message);
        }
    }

    /** Refused before anything was appended: too many entries pending, a stale membership index, a stopped member. */
    public static final class Refused extends ReplicationException {
        public Refused(String message) {
            super(message);
        }
    }
}
