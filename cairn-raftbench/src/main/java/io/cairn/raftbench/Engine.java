package io.cairn.raftbench;

/**
 * A Raft engine under comparison. Each implementation starts one member of a three-member group
 * with the harness's {@link RocksApplier} as its state machine and the same durability as every
 * other: an entry is acknowledged only after a majority has forced it to disk.
 */
public interface Engine {
    /** Short name used on the command line and in the report, e.g. {@code ratis}. */
    String name();

    /** Starts one member; returns once it listens (a leader may not be elected yet). */
    Member start(MemberSpec spec) throws Exception;
}
