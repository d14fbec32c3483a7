package io.cairn.replication.microraft;

import io.cairn.replication.ReplicationException;
import io.microraft.exception.CannotReplicateException;
import io.microraft.exception.IndeterminateStateException;
import io.microraft.exception.LaggingCommitIndexException;
import io.microraft.exception.MismatchingRaftGroupMembersCommitIndexException;
import io.microraft.exception.NotLeaderException;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** MicroRaft's failures as the port's {@link ReplicationException}s. */
final class Failures {
    private Failures() {
    }

    static Throwable of(Throwable t, String selfId) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) c = c.getCause();
        if (c instanceof ReplicationException) return c;
        if (c instanceof NotLeaderException e) return new ReplicationException.NotLeader(selfId, Endpoint.idOf(e.getLeader()));
        if (c instanceof LaggingCommitIndexException e) return new ReplicationException.NotLeader(selfId, Endpoint.idOf(e.getLeader()));
        if (c instanceof IndeterminateStateException) {
            return new ReplicationException.Indeterminate(selfId + " lost its leadership after appending the entry; it may still commit");
        }
        if (c instanceof CannotReplicateException) {
            return new ReplicationException.Refused(selfId + " takes no new entry now: too many pending, or a leadership transfer or "
                    + "membership change under way, or a new leader that has not committed its first entry");
        }
        if (c instanceof MismatchingRaftGroupMembersCommitIndexException e) {
            return new ReplicationException.Refused("the membership changed since: it is now at index " + e.getCommitIndex());
        }
        if (c instanceof IllegalArgumentException || c instanceof IllegalStateException) {
            return new ReplicationException.Refused(selfId + ": " + c.getMessage());
        }
        return c;
    }
}
