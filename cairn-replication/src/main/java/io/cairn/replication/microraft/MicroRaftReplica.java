package io.cairn.replication.microraft;

import io.cairn.replication.Membership;
import io.cairn.replication.MembershipChange;
import io.cairn.replication.ReadPolicy;
import io.cairn.replication.Replica;
import io.cairn.replication.ReplicaConfig;
import io.cairn.replication.ReplicaStateMachine;
import io.cairn.replication.ReplicaStatus;
import io.cairn.replication.ReplicationException;
import io.cairn.replication.SendBacklog;
import io.microraft.MembershipChangeMode;
import io.microraft.Ordered;
import io.microraft.QueryPolicy;
import io.microraft.RaftConfig;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.RaftNodeStatus;
import io.microraft.RaftRole;
import io.microraft.model.message.RaftMessage;
import io.microraft.persistence.RestoredRaftState;
import io.microraft.report.RaftNodeReport;
import io.microraft.report.RaftTerm;
import io.netty.channel.EventLoopGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One member of a replicated group on MicroRaft: a {@link RaftNode} with Cairn's TCP transport
 * ({@link NettyTransport}), log store ({@link FileRaftStore}) and state machine adapter
 * ({@link StateMachineAdapter}).
 *
 * <h2>Durability</h2>
 * An entry is acknowledged to its proposer only once a majority has it on disk: the store forces
 * its log before a follower answers an append and before the leader counts its own copy, and the
 * term and vote are forced before any message that depends on them goes out. The state machine
 * writes what it applies without forcing and says how far it got ({@link ReplicaStateMachine#appliedIndex()});
 * after a crash the log is replayed from there on, and entries it already holds are not applied
 * again. A torn record at the end of the log (a crash mid-write) was never acknowledged and is cut
 * off. A snapshot's files are forced and sealed before the store records the snapshot, and log
 * segments are deleted only once a snapshot covering them is recorded.
 *
 * <h2>Threading</h2>
 * MicroRaft runs each member on one thread ({@link RaftThread}): every append, commit, apply,
 * snapshot and store call happens there, in order, so none of them needs a lock. Sockets run on
 * Netty event loops, shared when the caller injects them; they decode messages and hand them to
 * that thread, and encode what it sends (reading snapshot pieces from disk as they go out). Futures
 * returned here complete on the Raft thread. {@link #status()} and {@link #membership()} never wait
 * for it: they read what MicroRaft last reported and what the transport and adapter last noted.
 */
final class MicroRaftReplica implements Replica {
    private static final Logger LOG = LoggerFactory.getLogger(MicroRaftReplica.class);
    /**
     * MicroRaft's clock for its timeouts (leader stickiness above all, which {@link LeaderLease} relies on):
     * wall time at start, then advancing with {@link System#nanoTime}, so that a wall-clock step neither
     * ends a follower's window early nor stretches it.
     */
    private static final Clock MONOTONIC = new Clock() {
        private final long startMillis = System.currentTimeMillis();
        private final long startNanos = System.nanoTime();

        @Override
        public long millis() {
            return startMillis + (System.nanoTime() - startNanos) / 1_000_000;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("a monotonic clock has no zone to change");
        }
    };
    /** Room in a frame beyond the largest entry: headers, and a whole snapshot piece. */
    private static final int FRAME_OVERHEAD = 2 * SnapshotFiles.PIECE_BYTES;

    private final ReplicaConfig config;
    private final String selfId;
    private final FileRaftStore store;
    private final NettyTransport transport;
    private final RaftThread raftThread;
    private final StateMachineAdapter adapter;
    private final ReportTracker reports;
    private final LeaderContact leaderContact = new LeaderContact();
    private final LostLogWatch lostLogWatch;
    private final VoteGuard voteGuard;
    private final LeaderLease lease;
    private final ReplicaStateMachine stateMachine;
    private final RaftNode node;
    private final AtomicBoolean closed = new AtomicBoolean();

    static MicroRaftReplica start(ReplicaConfig config, ReplicaStateMachine stateMachine, EventLoopGroup loops) throws IOException {
        return new MicroRaftReplica(config, stateMachine, loops);
    }

    private MicroRaftReplica(ReplicaConfig config, ReplicaStateMachine stateMachine, EventLoopGroup loops) throws IOException {
        this.config = config;
        this.selfId = config.selfId();
        this.stateMachine = stateMachine;
        SnapshotFiles snapshots = new SnapshotFiles(config.dataDir().resolve("snapshots"), selfId);
        snapshots.dropStaging();
        store = new FileRaftStore(config.dataDir().resolve("raft"), snapshots);
        adapter = new StateMachineAdapter(selfId, stateMachine, snapshots, store.terms());
        Map<String, String> peers = new HashMap<>(config.initialVoters());
        peers.putAll(config.initialLearners());
        WireCodec codec = new WireCodec(config.groupId(), config.maxEntryBytes() + FRAME_OVERHEAD, snapshots);
        long followerWindowMillis = TimeUnit.SECONDS.toMillis(config.leaderTimeout().toSeconds());
        // a leader sends at least every half leader timeout (its heartbeat), and every message is answered
        transport = new NettyTransport(selfId, config.selfAddress(), peers, codec, loops, Duration.ofMillis(followerWindowMillis + 1_000));
        raftThread = new RaftThread(config.groupId(), selfId);
        IdleAppendHold hold = new IdleAppendHold(transport, raftThread, IdleAppendHold.HOLD_MICROS);
        lease = new LeaderLease(hold, selfId, config.initialVoters().keySet(), followerWindowMillis, System::nanoTime);
        reports = new ReportTracker(transport::learnAddress, lease::votersChanged);
        // a member back from a restart forgot when it last heard from its leader: it stays out of elections for one
        // follower window, as it would have had it not restarted, so that no leader's lease is cut short (LeaderLease)
        long quietMillis = store.restoredState() != null ? followerWindowMillis : 0;
        voteGuard = new VoteGuard(lease, reports, selfId, config.vote(), quietMillis, System::nanoTime);
        try {
            node = build(raftConfigOf(config), store.restoredState());
            lostLogWatch = new LostLogWatch(selfId, reports::last, () -> node.getReport().thenApply(Ordered::getResult),
                    target -> node.transferLeadership(target), () -> System.nanoTime() / 1_000_000);
            transport.listen(this::received);
            node.start().get(30, TimeUnit.SECONDS);
        } catch (Exception | Error e) {
            closeQuietly();
            throw e instanceof IOException io ? io : new IOException(selfId + " could not start: " + e, e);
        }
        LOG.info("{}: replica of group {} listening on {}{}", selfId, config.groupId(), transport.boundAddress(),
                store.restoredState() == null ? " (new)" : " (restored)");
    }

    private RaftConfig raftConfigOf(ReplicaConfig c) {
        long leaderTimeoutSecs = c.leaderTimeout().toSeconds();
        return RaftConfig.newBuilder().setLeaderElectionTimeoutMillis(c.electionTimeout().toMillis())
                .setLeaderHeartbeatTimeoutSecs(leaderTimeoutSecs).setLeaderHeartbeatPeriodSecs(Math.max(1, leaderTimeoutSecs / 2))
                .setCommitCountToTakeSnapshot(c.snapshotEveryEntries()).setMaxPendingLogEntryCount(c.maxPendingEntries())
                // members checkpoint their own state, so only the leader's snapshot may be sent, never a mix of pieces
                .setTransferSnapshotsFromFollowersEnabled(false)
                .setRaftNodeReportPublishPeriodSecs(5).build();
    }

    private RaftNode build(RaftConfig raftConfig, RestoredRaftState restored) {
        RaftNode.RaftNodeBuilder builder = RaftNode.newBuilder().setGroupId(config.groupId()).setConfig(raftConfig)
                .setExecutor(raftThread).setTransport(voteGuard).setStateMachine(adapter).setStore(store).setClock(MONOTONIC)
                .setModelFactory(ModelCodec.MODEL).setRaftNodeReportListener(reports);
        if (restored != null) {
            String was = Endpoint.idOf(restored.getLocalEndpointPersistentState().getLocalEndpoint());
            if (!selfId.equals(was)) throw new IllegalStateException(config.dataDir() + " holds the log of " + was + ", not of " + selfId);
            return builder.setRestoredState(restored).build();
        }
        List<RaftEndpoint> members = new ArrayList<>();
        List<RaftEndpoint> voters = new ArrayList<>();
        config.initialVoters().forEach((id, address) -> voters.add(new Endpoint(id, address)));
        members.addAll(voters);
        config.initialLearners().forEach((id, address) -> members.add(new Endpoint(id, address)));
        return builder.setLocalEndpoint(new Endpoint(selfId, config.selfAddress())).setInitialGroupMembers(members, voters).build();
    }

    private void received(RaftMessage message) {
        if (!voteGuard.admits(message)) return;
        leaderContact.received(message);
        lease.received(message);
        lostLogWatch.received(message);
        node.handle(message);
    }

    @Override
    public CompletableFuture<byte[]> propose(byte[] command) {
        if (closed.get()) return CompletableFuture.failedFuture(new ReplicationException.Refused(selfId + " is stopped"));
        if (command.length > config.maxEntryBytes()) {
            return CompletableFuture.failedFuture(new ReplicationException.Refused(
                    "an entry of " + command.length + " bytes; at most " + config.maxEntryBytes() + " are taken"));
        }
        return mapped(() -> node.replicate(command), this::reply);
    }

    private byte[] reply(Ordered<Object> applied) {
        if (applied.getResult() instanceof Throwable t) {
            throw new IllegalStateException(selfId + ": the state machine failed to apply entry " + applied.getCommitIndex(), t);
        }
        return (byte[]) applied.getResult();
    }

    @Override
    public CompletableFuture<byte[]> read(byte[] query, ReadPolicy policy) {
        if (closed.get()) return CompletableFuture.failedFuture(new ReplicationException.Refused(selfId + " is stopped"));
        QueryOperation q = new QueryOperation(query);
        return switch (policy) {
            case LINEARIZABLE -> query(q, QueryPolicy.LINEARIZABLE, Optional.empty(), Optional.empty());
            case LEADER_LEASE -> leaseRead(q);
            case BOUNDED_STALE -> boundedStale(q);
        };
    }

    /**
     * On a leader whose lease holds ({@link LeaderLease}), what it applied, read on the caller's thread:
     * every write acknowledged before is applied here (a leader applies the first entry of its term
     * before it counts as leading, and acknowledges a write once applied). Without the lease, a
     * linearizable read (a round of heartbeats on the Raft thread), which also renews the lease.
     */
    private CompletableFuture<byte[]> leaseRead(QueryOperation q) {
        if (reports.role() == RaftRole.LEADER && lease.holds(adapter.establishedTerm())) {
            try {
                return CompletableFuture.completedFuture(stateMachine.query(ByteBuffer.wrap(q.query()).asReadOnlyBuffer()));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        return query(q, QueryPolicy.LINEARIZABLE, Optional.empty(), Optional.empty());
    }

    /**
     * On the leader, what it applied. On another member, what it applied once it caught up with the
     * commit index its leader sent last, and only if that was within the leader timeout; otherwise
     * the caller is sent to the leader.
     */
    private CompletableFuture<byte[]> boundedStale(QueryOperation q) {
        if (reports.role() == RaftRole.LEADER) return query(q, QueryPolicy.EVENTUAL_CONSISTENCY, Optional.empty(), Optional.empty());
        String leader = Endpoint.idOf(node.getTerm().getLeaderEndpoint());
        long commitIndex = leaderContact.commitIndexOf(leader);
        if (leaderContact.msSince(leader) > config.leaderTimeout().toMillis() || commitIndex < 0) {
            return CompletableFuture.failedFuture(new ReplicationException.NotLeader(selfId, leader));
        }
        return query(q, QueryPolicy.EVENTUAL_CONSISTENCY, Optional.of(commitIndex), Optional.of(config.electionTimeout()));
    }

    private CompletableFuture<byte[]> query(QueryOperation q, QueryPolicy policy, Optional<Long> minCommitIndex, Optional<Duration> wait) {
        return mapped(() -> node.<byte[]>query(q, policy, minCommitIndex, wait), Ordered::getResult);
    }

    @Override
    public ReplicaStatus status() {
        RaftTerm term = node.getTerm();
        if (closed.get() || RaftNodeStatus.isTerminal(node.getStatus())) {
            return new ReplicaStatus(ReplicaStatus.Role.STOPPED, term.getTerm(), null, reports.commitIndex(), adapter.appliedIndex(), Long.MAX_VALUE, voteGuard.rejoining());
        }
        String leader = Endpoint.idOf(term.getLeaderEndpoint());
        ReplicaStatus.Role role = switch (reports.role()) {
            // a leader takes proposals once the first entry of its term is applied (reads and membership changes need it)
            case LEADER -> selfId.equals(leader) && adapter.establishedTerm() == term.getTerm() ? ReplicaStatus.Role.LEADER : ReplicaStatus.Role.CANDIDATE;
            case FOLLOWER -> ReplicaStatus.Role.FOLLOWER;
            case LEARNER -> ReplicaStatus.Role.LEARNER;
            case CANDIDATE -> ReplicaStatus.Role.CANDIDATE;
        };
        long applied = adapter.appliedIndex();
        long sinceLeader = reports.role() == RaftRole.LEADER ? 0 : leaderContact.msSince(leader);
        return new ReplicaStatus(role, term.getTerm(), leader, Math.max(applied, reports.commitIndex()), applied, sinceLeader,
                voteGuard.rejoining());
    }

    @Override
    public CompletableFuture<Void> transferLeadership(String memberId) {
        if (closed.get()) return CompletableFuture.failedFuture(new ReplicationException.Refused(selfId + " is stopped"));
        CompletableFuture<Void> leads = reports.whenLeaderIs(memberId);
        Duration patience = config.leaderTimeout().plus(config.electionTimeout().multipliedBy(2));
        return mapped(() -> node.transferLeadership(new Endpoint(memberId, null)), o -> (Void) null)
                .whenComplete((v, e) -> {
                    if (e != null) leads.cancel(false);
                })
                .thenCompose(v -> leads.orTimeout(patience.toMillis(), TimeUnit.MILLISECONDS))
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(e instanceof TimeoutException || e.getCause() instanceof TimeoutException
                        ? new ReplicationException.Indeterminate(memberId + " did not report as leader within " + patience)
                        : Failures.of(e, selfId)));
    }

    @Override
    public CompletableFuture<Membership> changeMembership(String memberId, String address, MembershipChange change, long expectedMembershipIndex) {
        if (closed.get()) return CompletableFuture.failedFuture(new ReplicationException.Refused(selfId + " is stopped"));
        Membership current = membership();
        if (current.index() != expectedMembershipIndex) { // refused here: MicroRaft would log an expected refusal as an ERROR
            return CompletableFuture.failedFuture(new ReplicationException.Refused(
                    "the membership changed since index " + expectedMembershipIndex + ": it is now at index " + current.index()));
        }
        String known = current.addresses().get(memberId);
        String at = address != null && !address.isEmpty() ? address : known;
        if (at == null && change != MembershipChange.REMOVE) {
            return CompletableFuture.failedFuture(new ReplicationException.Refused("no address for " + memberId));
        }
        if (at != null) transport.learnAddress(memberId, at);
        MembershipChangeMode mode = switch (change) {
            case ADD_LEARNER -> MembershipChangeMode.ADD_LEARNER;
            case PROMOTE_TO_VOTER -> MembershipChangeMode.ADD_OR_PROMOTE_TO_FOLLOWER;
            case REMOVE -> MembershipChangeMode.REMOVE_MEMBER;
        };
        return mapped(() -> node.changeMembership(new Endpoint(memberId, at), mode, expectedMembershipIndex), o -> {
            Membership now = reports.membership();
            return now != null && now.index() >= o.getCommitIndex() ? now : membershipAt(o.getCommitIndex(), o.getResult().getMembers(),
                    o.getResult().getVotingMembers());
        });
    }

    @Override
    public CompletableFuture<Long> takeSnapshot() {
        if (closed.get()) return CompletableFuture.failedFuture(new ReplicationException.Refused(selfId + " is stopped"));
        return mapped(node::takeSnapshot, report -> report.getResult().getLog().getLastSnapshotIndex());
    }

    @Override
    public void withholdVote() {
        voteGuard.withhold();
    }

    @Override
    public CompletableFuture<Boolean> confirmAcknowledged(long acknowledgedIndex) {
        if (!voteGuard.rejoining()) return CompletableFuture.completedFuture(true);
        return mapped(node::getReport, report -> voteGuard.confirm(acknowledgedIndex, report.getResult().getLog().getLastLogOrSnapshotIndex()));
    }

    @Override
    public CompletableFuture<Map<String, Long>> acknowledged() {
        if (closed.get()) return CompletableFuture.failedFuture(new ReplicationException.Refused(selfId + " is stopped"));
        return mapped(node::getReport, o -> {
            RaftNodeReport report = o.getResult();
            if (report.getRole() != RaftRole.LEADER) {
                throw new ReplicationException.NotLeader(selfId + " does not lead", Endpoint.idOf(report.getTerm().getLeaderEndpoint()));
            }
            Map<String, Long> held = new HashMap<>();
            held.put(selfId, report.getLog().getLastLogOrSnapshotIndex());
            report.getLog().getFollowerMatchIndices().forEach((member, index) -> held.put(Endpoint.idOf(member), index));
            return held;
        });
    }

    @Override
    public Membership membership() {
        Membership m = reports.membership();
        return m != null ? m : membershipAt(0, List.copyOf(initialMembers()), List.copyOf(initialVoters()));
    }

    private List<RaftEndpoint> initialVoters() {
        List<RaftEndpoint> voters = new ArrayList<>();
        config.initialVoters().forEach((id, a) -> voters.add(new Endpoint(id, a)));
        return voters;
    }

    private List<RaftEndpoint> initialMembers() {
        List<RaftEndpoint> members = initialVoters();
        config.initialLearners().forEach((id, a) -> members.add(new Endpoint(id, a)));
        return members;
    }

    private static Membership membershipAt(long index, Collection<RaftEndpoint> members, Collection<RaftEndpoint> voting) {
        Map<String, String> voters = new HashMap<>();
        Map<String, String> addresses = new HashMap<>();
        for (RaftEndpoint e : members) {
            String address = e instanceof Endpoint ep && ep.address() != null ? ep.address() : "";
            addresses.put(Endpoint.idOf(e), address);
            if (voting.contains(e)) voters.put(Endpoint.idOf(e), address);
        }
        Set<String> learners = new HashSet<>(addresses.keySet());
        learners.removeAll(voters.keySet());
        return new Membership(index, voters, learners, addresses, true);
    }

    /** Messages the transport dropped so far (a full queue, an unreachable peer). */
    long droppedMessages() {
        return transport.dropped();
    }

    @Override
    public SendBacklog sendBacklog() {
        return new SendBacklog(transport.unsentBytes(), transport.peakUnsentBytes(), transport.droppedBackedUp());
    }

    /** Messages dropped because their peer's connection held its high-water mark unsent (a peer not reading). */
    long droppedBackedUp() {
        return transport.droppedBackedUp();
    }

    /** Bytes waiting in this member's outgoing connections for their peers' sockets, now. */
    long unsentBytes() {
        return transport.unsentBytes();
    }

    /** The most bytes one outgoing connection held unsent so far. */
    long peakUnsentBytes() {
        return transport.peakUnsentBytes();
    }

    /** Incoming connections closed for a bad hello, an oversized or a malformed frame. */
    long refusedConnections() {
        return transport.refusedConnections();
    }

    int logSegments() {
        return store.segmentCount();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) return;
        try {
            node.terminate().get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("{}: Raft node did not terminate cleanly: {}", selfId, e.toString());
        }
        closeQuietly();
        LOG.info("{}: replica of group {} stopped", selfId, config.groupId());
    }

    private void closeQuietly() {
        transport.close();
        try {
            if (!raftThread.stop(10, TimeUnit.SECONDS)) LOG.warn("{}: Raft thread still running after 10 s", selfId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            store.close();
        } catch (IOException e) {
            LOG.warn("{}: closing the log store failed: {}", selfId, e.toString());
        }
    }

    /** The result of the call through {@code fn}; a failure as the port's exception. */
    private <T, R> CompletableFuture<R> mapped(Supplier<CompletableFuture<Ordered<T>>> call, Function<Ordered<T>, R> fn) {
        CompletableFuture<Ordered<T>> f;
        try {
            f = call.get();
        } catch (RejectedExecutionException e) { // the Raft thread stopped under a call racing close()
            return CompletableFuture.failedFuture(new ReplicationException.Refused(selfId + " is stopped"));
        }
        CompletableFuture<R> out = new CompletableFuture<>();
        f.whenComplete((ordered, failure) -> {
            if (failure != null) {
                out.completeExceptionally(Failures.of(failure, selfId));
                return;
            }
            try {
                out.complete(fn.apply(ordered));
            } catch (RuntimeException e) {
                out.completeExceptionally(e);
            }
        });
        return out;
    }
}
