package io.cairn.raftbench.jgroupsraft;

import io.cairn.raftbench.Member;
import io.cairn.raftbench.MemberSpec;
import org.jgroups.JChannel;
import org.jgroups.protocols.raft.Leader;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.raft.Options;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/** One jgroups-raft member: a connected {@link JChannel} whose RAFT protocol applies to an {@link ApplierStateMachine}. */
final class JGroupsRaftMember implements Member {
    /** The state machine returns nothing, so RAFT need not ask it for a serialized response. */
    private static final Options NO_RESPONSE = Options.create(true);

    private final String id;
    private final JChannel channel;
    private final RAFT raft;
    private final ApplierStateMachine stateMachine;
    private volatile boolean closed;

    JGroupsRaftMember(MemberSpec spec, String config) throws Exception {
        id = spec.id();
        stateMachine = new ApplierStateMachine(spec.applier());
        channel = new JChannel(new ByteArrayInputStream(config.getBytes(StandardCharsets.UTF_8))).name(id);
        try {
            raft = channel.getProtocolStack().findProtocol(RAFT.class);
            raft.stateMachine(stateMachine);
            stateMachine.starting(raft);
            // RAFT starts here: opens its log, replays it into the state machine (on this thread), then joins the view
            channel.connect(JGroupsRaftEngine.CLUSTER);
            stateMachine.started();
            if (!raft.logUseFsync()) throw new IllegalStateException("jgroups-raft: log fsync is off (" + raft.logDescription() + ")");
            if (!raft.logDescription().contains(SyncedVoteFileLog.class.getSimpleName())) {
                throw new IllegalStateException("jgroups-raft: unexpected log " + raft.logDescription());
            }
        } catch (Exception | Error e) {
            stateMachine.close();
            channel.close();
            throw e;
        }
    }

    /** The leader now, with its leader state in place (RAFT accepts a proposal only then). */
    @Override
    public boolean isLeader() {
        return !closed && channel.isConnected() && raft.isLeader() && raft.impl() instanceof Leader;
    }

    @Override
    public CompletableFuture<Void> propose(byte[] entry) {
        if (entry.length == 0) return CompletableFuture.failedFuture(new IllegalArgumentException("jgroups-raft: empty entry"));
        if (!isLeader()) {
            return CompletableFuture.failedFuture(new IllegalStateException("jgroups-raft: " + id + " is not the leader (leader " + raft.leader() + ")"));
        }
        try {
            // completes on RAFT's queue thread once a majority forced the entry and this member applied it
            return raft.setAsync(entry, 0, entry.length, NO_RESPONSE).thenApply(response -> null);
        } catch (Exception e) {
            // no longer the leader
            return CompletableFuture.failedFuture(e);
        }
    }

    /** RAFT of this member (for tests). */
    RAFT raft() {
        return raft;
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        try {
            // leaves the view, stops RAFT (its queue thread, then the log) and the transport's threads and sockets
            channel.close();
        } finally {
            stateMachine.close();
        }
    }
}
