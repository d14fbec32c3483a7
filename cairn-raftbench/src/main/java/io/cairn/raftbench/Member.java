package io.cairn.raftbench;

import java.util.concurrent.CompletableFuture;

/** One running member of a three-member group. */
public interface Member extends AutoCloseable {
    /** Whether this member is the leader now (a proposal sent here would be accepted). */
    boolean isLeader();

    /**
     * Proposes one entry (see {@link Workload}). The future completes once the entry is committed
     * (forced to disk on a majority) and applied to this member's {@link RocksApplier}, and fails
     * when this member is not the leader or the entry could not be committed.
     */
    CompletableFuture<Void> propose(byte[] entry);

    @Override
    void close() throws Exception;
}
