package io.cairn.raftbench.microraft;

/**
 * The one chunk of a snapshot: only the log index the state machine had applied. The state itself
 * stays in the member's RocksDB; a snapshot cannot carry it to another member (see
 * {@link ApplierStateMachine#installSnapshot}).
 */
record SnapshotMarker(long appliedIndex) {
}
