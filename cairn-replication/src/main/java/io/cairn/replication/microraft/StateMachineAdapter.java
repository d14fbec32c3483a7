package io.cairn.replication.microraft;

import io.cairn.replication.ReplicaStateMachine;
import io.microraft.statemachine.StateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;

/**
 * Cairn's {@link ReplicaStateMachine} as MicroRaft's state machine; every call runs on the Raft thread.
 * <ul>
 * <li>A committed command goes to {@link ReplicaStateMachine#apply} with its index and the term of
 * its entry (from the log store's {@link TermRuns}: MicroRaft passes only the index). Entries at or
 * below what the state machine had already written when this member started (or installed a
 * snapshot) are skipped: its files have them, and applying twice would not be idempotent.</li>
 * <li>Reads ({@link QueryOperation}) go to {@link ReplicaStateMachine#query}.</li>
 * <li>A snapshot is a checkpoint into {@code snapshots/<index>} cut into {@link SnapshotPiece}s; to
 * install one, the state machine restores from that folder, unless it already holds that index
 * (a restart whose own snapshot is older than what the state machine wrote).</li>
 * </ul>
 */
final class StateMachineAdapter implements StateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(StateMachineAdapter.class);

    private final String selfId;
    private final ReplicaStateMachine stateMachine;
    private final SnapshotFiles snapshots;
    private final TermRuns terms;
    /** Entries at or below this are already in the state machine's files. */
    private long alreadyApplied;
    private volatile long appliedIndex;
    private volatile long establishedTerm;

    StateMachineAdapter(String selfId, ReplicaStateMachine stateMachine, SnapshotFiles snapshots, TermRuns terms) {
        this.selfId = selfId;
        this.stateMachine = stateMachine;
        this.snapshots = snapshots;
        this.terms = terms;
        this.alreadyApplied = stateMachine.appliedIndex();
        this.appliedIndex = 0;
    }

    /** The highest log index applied here (or skipped as already applied). */
    long appliedIndex() {
        return appliedIndex;
    }

    /** The highest term whose leader's first entry was applied here: a leader of that term may serve reads. */
    long establishedTerm() {
        return establishedTerm;
    }

    @Override
    public Object runOperation(long commitIndex, Object operation) {
        if (operation instanceof QueryOperation q) return stateMachine.query(ByteBuffer.wrap(q.query()).asReadOnlyBuffer());
        if (operation instanceof byte[] command) {
            appliedIndex = commitIndex;
            if (commitIndex <= alreadyApplied) return null; // replayed after a restart; no one waits for its reply
            return stateMachine.apply(commitIndex, terms.termOf(commitIndex), ByteBuffer.wrap(command).asReadOnlyBuffer());
        }
        if (operation == NewTermEntry.INSTANCE) {
            appliedIndex = commitIndex;
            establishedTerm = Math.max(establishedTerm, terms.termOf(commitIndex));
            return null;
        }
        throw new IllegalArgumentException("not a Cairn operation at " + commitIndex + ": " + operation.getClass().getName());
    }

    @Override
    public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
        try {
            List<SnapshotPiece> pieces = snapshots.checkpoint(commitIndex, stateMachine);
            pieces.forEach(chunks);
            LOG.info("{}: took a snapshot at index {} ({} pieces)", selfId, commitIndex, pieces.size());
        } catch (IOException e) {
            throw new UncheckedIOException(selfId + ": checkpoint at " + commitIndex + " failed", e);
        }
    }

    @Override
    public void installSnapshot(long commitIndex, List<Object> chunks) {
        long written = stateMachine.appliedIndex();
        if (written >= commitIndex) {
            LOG.info("{}: the state machine already holds snapshot index {} (written up to {})", selfId, commitIndex, written);
            alreadyApplied = Math.max(alreadyApplied, written);
        } else {
            try {
                stateMachine.restore(snapshots.sealed(commitIndex), commitIndex);
            } catch (IOException e) {
                throw new UncheckedIOException(selfId + ": restore of the snapshot at " + commitIndex + " failed", e);
            }
            alreadyApplied = commitIndex;
            LOG.info("{}: restored the state machine from the snapshot at index {}", selfId, commitIndex);
        }
        appliedIndex = commitIndex;
    }

    @Override
    public Object getNewTermOperation() {
        return NewTermEntry.INSTANCE;
    }
}
