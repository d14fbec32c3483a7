package io.cairn.storage.raft;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.replication.Replica;
import io.cairn.replication.ReplicaConfig;
import io.cairn.replication.ReplicaStatus;
import io.cairn.replication.SendBacklog;
import io.cairn.replication.microraft.MicroRaftReplicas;
import io.cairn.storage.ReplicationEngine;
import io.cairn.storage.StorageConfig;
import io.cairn.storage.state.ArchivedAccess;
import io.cairn.storage.state.ReplicasetState;
import io.netty.channel.EventLoopGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A storage member on the replication port with MicroRaft (docs/raft-engines.md): its log and
 * snapshots under {@code microraft/}, the database under {@code db/} ({@link ReplicasetStateMachine}),
 * data-plane requests through {@link ReplicaAccess}. Callers find its data-plane listener at the port
 * its topology entry names: there is no Ratis group to ask.
 *
 * <p>A member back on a new or damaged folder ({@link io.cairn.storage.DiskIdentity}) starts <em>rejoining</em>: it
 * neither votes nor serves reads until it has caught up with its leader. Replacing a member is a
 * membership change the port has and no command uses yet (issue 21).
 */
public final class MicroRaftEngine implements NodeEngine {
    private static final Logger log = LoggerFactory.getLogger(MicroRaftEngine.class);
    /** Longest a stopping leader waits for one voter to take over. */
    private static final long HAND_OVER_MS = 1_500;
    private final ReplicaConfig replicaConfig;
    private final ReplicasetStateMachine stateMachine;
    private final EventLoopGroup ioLoops;
    private volatile Replica replica;

    /** @param member the Raft member id the node runs as: its own id, or its id on a new disk ({@link io.cairn.core.topology.MemberIds}) */
    public MicroRaftEngine(NodeAddress self, String member, ReplicasetSpec replicaset, StorageConfig config, ReplicaConfig.Vote vote, EventLoopGroup ioLoops)
            throws IOException {
        for (NodeAddress n : replicaset.nodes()) {
            if (n.dataAddress() == null) {
                throw new CairnException(ErrorCode.INVALID_CONFIG, "storage node " + n.id() + " of replicaset " + replicaset.id()
                        + " names no dataPort: with the microraft engine every storage node needs one in the config");
            }
        }
        Map<String, String> voters = new LinkedHashMap<>();
        for (NodeAddress n : replicaset.nodes()) voters.put(n.id(), n.raftAddress());
        Map<String, String> learners = Map.of();
        if (!member.equals(self.id())) {
            // a new member (the node on a new disk): a learner until the coordinator promotes it; the voters are
            // the others (its group's log and snapshots tell it the membership as it is)
            voters.remove(self.id());
            learners = Map.of(member, self.raftAddress());
        }
        long electionMs = config.electionTimeoutMin().toMillis();
        // MicroRaft counts the leader timeout in whole seconds (at least 2); Ratis's members wait 1-2 election timeouts
        Duration leaderTimeout = Duration.ofSeconds(Math.max(2, (2 * electionMs + 999) / 1000));
        int maxEntryBytes = (int) Math.max(ReplicaConfig.DEFAULT_MAX_ENTRY_BYTES, 2L * config.maxValueBytes() + (1 << 20));
        this.replicaConfig = new ReplicaConfig(replicaset.id(), member, voters, learners, ReplicationEngine.MICRORAFT.folderIn(config.dataDir()),
                Duration.ofMillis(electionMs), leaderTimeout, (int) config.snapshotEveryEntries(), ReplicaConfig.DEFAULT_MAX_PENDING_ENTRIES,
                maxEntryBytes, vote);
        this.stateMachine = new ReplicasetStateMachine(config.dataDir().resolve("db"), config.maxValueBytes(), System::currentTimeMillis);
        this.ioLoops = ioLoops;
    }

    @Override
    public void start() throws IOException {
        replica = MicroRaftReplicas.start(replicaConfig, stateMachine, ioLoops);
    }

    @Override
    public MemberAccess access() {
        return new ReplicaAccess(() -> replica, System::currentTimeMillis);
    }

    @Override
    public ReplicasetState state() {
        return stateMachine.state();
    }

    private ReplicaStatus status() {
        Replica r = replica;
        return r == null ? null : r.status();
    }

    @Override
    public boolean isLeader() {
        ReplicaStatus s = status();
        return s != null && s.leads();
    }

    @Override
    public String role() {
        ReplicaStatus s = status();
        return s == null || s.role() == ReplicaStatus.Role.STOPPED ? "DOWN" : s.role().name();
    }

    @Override
    public boolean rejoining() {
        ReplicaStatus s = status();
        return s == null ? replicaConfig.vote() != ReplicaConfig.Vote.AT_ONCE : s.rejoining();
    }

    @Override
    public SendBacklog sendBacklog() {
        Replica r = replica;
        return r == null ? SendBacklog.NONE : r.sendBacklog();
    }

    @Override
    public CompletableFuture<Boolean> confirmAcknowledged(long acknowledgedIndex) {
        Replica r = replica;
        return r == null ? notStarted() : r.confirmAcknowledged(acknowledgedIndex);
    }

    @Override
    public void withholdVote() {
        Replica r = replica;
        if (r != null) r.withholdVote();
    }

    @Override
    public CompletableFuture<Map<String, Long>> acknowledged() {
        Replica r = replica;
        return r == null ? notStarted() : r.acknowledged();
    }

    @Override
    public long term() {
        ReplicaStatus s = status();
        return s == null ? -1 : s.term();
    }

    @Override
    public CompletableFuture<Void> transferLeadership(String memberId) {
        Replica r = replica;
        return r == null ? notStarted() : r.transferLeadership(memberId);
    }

    @Override
    public CompletableFuture<Long> takeSnapshot() {
        Replica r = replica;
        return r == null ? notStarted() : r.takeSnapshot();
    }

    private static <T> CompletableFuture<T> notStarted() {
        return CompletableFuture.failedFuture(new IllegalStateException("the member has not started"));
    }

    @Override
    public long snapshotInstalls() {
        return stateMachine.snapshotInstalls();
    }

    @Override
    public void onArchivedAccess(ArchivedAccess hook) {
        stateMachine.onArchivedAccess(hook);
    }

    @Override
    public void onVerifyRequest(Consumer<List<Integer>> hook) {
        stateMachine.onVerifyRequest(hook);
    }

    @Override
    public String handOverLeadership() {
        Replica r = replica;
        if (r == null || !r.status().leads()) return null;
        for (String voter : r.membership().voters().keySet()) {
            if (voter.equals(replicaConfig.selfId())) continue;
            try {
                // MicroRaft hands over once the voter has the whole log; one that lags or is down times out
                r.transferLeadership(voter).get(HAND_OVER_MS, TimeUnit.MILLISECONDS);
                log.info("{} handed the leadership of replicaset {} to {} before stopping", replicaConfig.selfId(), replicaConfig.groupId(), voter);
                return voter;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            } catch (ExecutionException | TimeoutException e) {
                log.debug("{} could not hand leadership to {}: {}", replicaConfig.selfId(), voter, e.toString());
            }
        }
        return null;
    }

    @Override
    public void close() {
        Replica r = replica;
        if (r != null) r.close();
        stateMachine.close();
    }
}
