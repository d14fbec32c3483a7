package io.cairn.raftbench.microraft;

import io.cairn.raftbench.Member;
import io.cairn.raftbench.MemberSpec;
import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.RaftNodeStatus;
import io.microraft.exception.NotLeaderException;
import io.microraft.executor.impl.DefaultRaftNodeExecutor;
import io.microraft.persistence.RestoredRaftState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** One MicroRaft member: a {@link RaftNode} with a {@link NettyTransport}, a {@link FileRaftStore} and an {@link ApplierStateMachine}. */
final class MicroRaftMember implements Member {
    private static final Logger LOG = LoggerFactory.getLogger(MicroRaftMember.class);

    /** Snapshots only ever this many entries apart: in practice none in a benchmark, as they carry no state. */
    static final int COMMIT_COUNT_TO_TAKE_SNAPSHOT = 1_000_000;

    /**
     * MicroRaft's defaults except: an election timeout of 1 s (the default too, stated here as the other
     * engines use ~1 s), heartbeats every 1 s (default 2) and a leader declared dead after 5 s
     * without them (default 10), and snapshots {@link #COMMIT_COUNT_TO_TAKE_SNAPSHOT} apart (default
     * 50,000). Batching stays at its defaults: up to 1,000 entries per append request, up to 5,000
     * entries appended but not yet committed.
     */
    static final RaftConfig CONFIG = RaftConfig.newBuilder()
            .setLeaderElectionTimeoutMillis(1000)
            .setLeaderHeartbeatPeriodSecs(1)
            .setLeaderHeartbeatTimeoutSecs(5)
            .setCommitCountToTakeSnapshot(COMMIT_COUNT_TO_TAKE_SNAPSHOT)
            .build();

    private final MicroEndpoint self;
    private final FileRaftStore store;
    private final NettyTransport transport;
    private final DefaultRaftNodeExecutor executor;
    private final RaftNode node;

    MicroRaftMember(MemberSpec spec) throws Exception {
        List<RaftEndpoint> members = new ArrayList<>();
        Map<MicroEndpoint, InetSocketAddress> others = new LinkedHashMap<>();
        for (int i = 0; i < spec.peers().size(); i++) {
            MicroEndpoint e = MicroEndpoint.of("m" + i);
            members.add(e);
            if (i != spec.index()) others.put(e, spec.peers().get(i));
        }
        self = MicroEndpoint.of(spec.id());
        store = new FileRaftStore(spec.dir());
        transport = new NettyTransport(self, spec.self(), others);
        executor = new DefaultRaftNodeExecutor();
        try {
            RaftNode.RaftNodeBuilder builder = RaftNode.newBuilder().setGroupId(MessageCodec.GROUP_ID).setConfig(CONFIG)
                    .setExecutor(executor).setTransport(transport).setStateMachine(new ApplierStateMachine(spec.applier()))
                    .setStore(store).setModelFactory(MessageCodec.MODEL);
            RestoredRaftState restored = store.restoredState();
            if (restored != null) {
                RaftEndpoint was = restored.getLocalEndpointPersistentState().getLocalEndpoint();
                if (!self.equals(was)) throw new IllegalStateException(spec.dir() + " holds the log of " + was + ", not of " + self);
                builder.setRestoredState(restored);
            } else {
                builder.setLocalEndpoint(self).setInitialGroupMembers(members);
            }
            node = builder.build();
            transport.listen(node::handle);
            node.start().get(30, TimeUnit.SECONDS);
        } catch (Exception | Error e) {
            transport.close();
            executor.getExecutor().shutdownNow();
            store.close();
            throw e;
        }
    }

    @Override
    public boolean isLeader() {
        return !RaftNodeStatus.isTerminal(node.getStatus()) && self.equals(node.getTerm().getLeaderEndpoint());
    }

    @Override
    public CompletableFuture<Void> propose(byte[] entry) {
        if (!isLeader()) return CompletableFuture.failedFuture(new NotLeaderException(self, node.getTerm().getLeaderEndpoint()));
        return node.replicate(entry).thenApply(ordered -> {
            if (ordered.getResult() instanceof Throwable t) throw new IllegalStateException("entry " + ordered.getCommitIndex() + " failed to apply", t);
            return null;
        });
    }

    /** How often this member forced its log to disk so far. */
    long forces() {
        return store.forces();
    }

    /** Log entries this member wrote to its log file so far. */
    long entriesPersisted() {
        return store.entriesPersisted();
    }

    @Override
    public void close() throws Exception {
        try {
            node.terminate().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("{}: terminate failed: {}", self, e.toString());
        } finally {
            transport.close();
            executor.getExecutor().shutdownNow();
            if (!executor.getExecutor().awaitTermination(10, TimeUnit.SECONDS)) LOG.warn("{}: Raft thread still running", self);
            LOG.info("{}: forced its log {} times for {} entries ({} MB written)", self, store.forces(), store.entriesPersisted(),
                    store.bytesWritten() >> 20);
            store.close();
        }
    }
}
