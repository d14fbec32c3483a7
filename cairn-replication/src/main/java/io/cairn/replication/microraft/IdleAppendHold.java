package io.cairn.replication.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.executor.RaftNodeExecutor;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.RaftMessage;
import io.microraft.transport.Transport;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Holds the leader's idle appends for a moment, so that the next append to the same follower replaces them.
 *
 * <p>Once an entry commits, MicroRaft sends every follower an append with no entries that only carries the
 * new commit index (and a heartbeat is the same message). Under load the next entry's append follows within
 * a fraction of a millisecond and carries that commit index too, so the idle one cost a round of messages
 * (two sends, two answers, four thread hand-offs each) for nothing. An idle append is one without entries and
 * without a flow-control number: the leader waits for no answer to it (its back-off is not set), and
 * {@link LeaderLease} does not count its answer, so dropping it changes nothing but when a follower learns the
 * commit index: at most {@code holdMicros} later. Any other message to the follower sends what was held
 * first, so the order of what the follower receives stays the one MicroRaft sent.
 */
final class IdleAppendHold implements Transport {
    /**
     * Long enough for the next entry of a busy group (the router sends its next batch as the previous one is
     * answered), short against anything that waits for a follower to apply. Measured: 0.89-0.97x the CPU per SET of
     * sending every idle append (docs/benchmarks.md, "Idle appends held").
     */
    static final long HOLD_MICROS = 1_000;
    private final Transport transport;
    private final RaftNodeExecutor executor;
    private final long holdMicros;
    private final Map<RaftEndpoint, RaftMessage> held = new HashMap<>();

    /** @param holdMicros 0 sends every message at once */
    IdleAppendHold(Transport transport, RaftNodeExecutor executor, long holdMicros) {
        this.transport = transport;
        this.executor = executor;
        this.holdMicros = holdMicros;
    }

    @Override
    public void send(RaftEndpoint target, RaftMessage message) {
        RaftMessage before;
        synchronized (this) {
            if (holdMicros > 0 && isIdleAppend(message)) {
                if (held.put(target, message) == null) executor.schedule(() -> release(target), holdMicros, TimeUnit.MICROSECONDS);
                return;
            }
            before = held.remove(target);
        }
        // a newer append carries the held one's commit index (or a newer term's); anything else goes after it
        if (before != null && !(message instanceof AppendEntriesRequest)) transport.send(target, before);
        transport.send(target, message);
    }

    private static boolean isIdleAppend(RaftMessage message) {
        return message instanceof AppendEntriesRequest append && append.getLogEntries().isEmpty()
                && append.getFlowControlSequenceNumber() <= 0;
    }

    private void release(RaftEndpoint target) {
        RaftMessage message;
        synchronized (this) {
            message = held.remove(target);
        }
        if (message != null) transport.send(target, message);
    }

    @Override
    public boolean isReachable(RaftEndpoint endpoint) {
        return transport.isReachable(endpoint);
    }
}
