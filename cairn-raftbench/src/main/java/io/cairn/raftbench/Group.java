package io.cairn.raftbench;

import java.time.Duration;

/** A running three-member group, in this JVM or as three processes: what a measurement needs of it. */
interface Group extends AutoCloseable {
    /** Waits for a leader (bounded) and runs one cell of load on it. */
    Load.Result run(int writesPerEntry, int proposers, Duration duration) throws Exception;

    /** CPU time used so far by every member (and the load generator, which runs beside the leader). */
    Duration cpu();

    /** Writes each member applied since it started, in member order. */
    long[] appliedWrites() throws Exception;

    @Override
    void close() throws Exception;
}
