package io.cairn.raftbench.microraft;

import io.cairn.raftbench.RocksApplier;
import io.microraft.statemachine.StateMachine;

import java.util.List;
import java.util.function.Consumer;

/**
 * The harness's {@link RocksApplier} as MicroRaft's state machine: every committed entry is applied
 * in log order on the Raft node's thread. A snapshot is only a {@link SnapshotMarker}; the data stays
 * in RocksDB, so a snapshot can restore a member's own state after a restart but cannot bring a
 * lagging member up to date (that fails loudly). Snapshots are taken only every
 * {@link MicroRaftMember#COMMIT_COUNT_TO_TAKE_SNAPSHOT} entries.
 */
final class ApplierStateMachine implements StateMachine {
    /** The first entry of each new leader's term: empty, so it applies no write. */
    private static final byte[] NEW_TERM = new byte[0];

    private final RocksApplier applier;

    ApplierStateMachine(RocksApplier applier) {
        this.applier = applier;
    }

    @Override
    public Object runOperation(long commitIndex, Object operation) {
        if (!(operation instanceof byte[] entry)) {
            throw new IllegalArgumentException("not a raftbench entry at " + commitIndex + ": " + operation);
        }
        applier.apply(commitIndex, entry);
        return null;
    }

    @Override
    public void takeSnapshot(long commitIndex, Consumer<Object> chunks) {
        chunks.accept(new SnapshotMarker(commitIndex));
    }

    @Override
    public void installSnapshot(long commitIndex, List<Object> chunks) {
        if (applier.appliedIndex() < commitIndex) {
            throw new IllegalStateException("cannot install the snapshot at " + commitIndex + ": this member applied only up to "
                    + applier.appliedIndex() + " and raftbench snapshots carry no state");
        }
    }

    @Override
    public Object getNewTermOperation() {
        return NEW_TERM;
    }
}
