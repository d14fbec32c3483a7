package io.cairn.replication.microraft;

/**
 * The entry a new leader appends at the start of its term (MicroRaft's "new term operation"): it
 * commits the leader's term so that reads and membership changes may proceed. It reaches the state
 * machine adapter, which only notes that the term is established; the Cairn state machine never sees it.
 */
enum NewTermEntry {
    INSTANCE
}
