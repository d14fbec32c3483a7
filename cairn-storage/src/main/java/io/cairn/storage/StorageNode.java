package io.cairn.storage;

import io.cairn.core.BucketRecord;
import io.cairn.core.kv.KvOp;
import io.cairn.replication.ReplicaConfig;

import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.StorageStats;
import io.cairn.replication.SendBacklog;
import io.cairn.replication.microraft.MicroRaftReplicas;
import io.cairn.storage.raft.MicroRaftEngine;
import io.cairn.storage.raft.NodeEngine;
import io.cairn.storage.raft.RatisEngine;
import io.cairn.storage.state.ArchivedAccess;
import io.cairn.storage.state.ExpiryScanner;
import io.cairn.storage.state.ReplicasetState;
import io.netty.channel.EventLoopGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One storage node: a member of its replicaset's Raft group (on the engine its config names,
 * {@link ReplicationEngine}) with a RocksDB state machine. Routers, movers and admin tools send
 * reads, writes and queries to its data-plane listener ({@link DataPlaneServer}), which hands them
 * to the engine in process.
 */
public final class StorageNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StorageNode.class);

    private final NodeAddress self;
    private final ReplicasetSpec replicaset;
    private final ReplicationEngine engineKind;
    private final NodeEngine engine;
    private final ExpiryScanner expiryScanner = new ExpiryScanner();
    private final DataPlaneServer dataPlane;
    private final DiskIdentity identity;
    /** On MicroRaft with peers, a node back on a new disk runs as a new member ({@link io.cairn.core.topology.MemberIds}). */
    private final boolean newMemberOnNewDisk;

    public StorageNode(NodeAddress self, ReplicasetSpec replicaset, StorageConfig config) throws IOException {
        this(self, replicaset, config, null);
    }

    /** @param ioLoops event loops for the data-plane listener (and MicroRaft's sockets), shared with the process's other sockets; null for a default */
    public StorageNode(NodeAddress self, ReplicasetSpec replicaset, StorageConfig config, EventLoopGroup ioLoops) throws IOException {
        this(self, replicaset, config, ioLoops, () -> false, false, () -> true, disk -> null);
    }

    /**
     * @param groupHoldsData asked when the node's folder is new: whether its replicaset already holds data, so
     *                       the node rejoins rather than votes at once ({@link DiskIdentity}); the coordinator knows
     * @param checkRestart   a restarted node votes only once {@link #confirmAcknowledged} found its log complete (or it
     *                       caught up with its leader): the caller asks its coordinator for the record and calls it
     */
    public StorageNode(NodeAddress self, ReplicasetSpec replicaset, StorageConfig config, EventLoopGroup ioLoops,
                       BooleanSupplier groupHoldsData, boolean checkRestart) throws IOException {
        this(self, replicaset, config, ioLoops, groupHoldsData, checkRestart, () -> true, disk -> null);
    }

    /**
     * @param groupHasThisNode asked when the node rejoins on a new or damaged folder: whether its group has a member of
     *                  this node (then it runs as a new member, {@link io.cairn.core.topology.MemberIds}); true when unknown
     * @param otherDisk asked before the member starts, of a folder that holds the node's data: why its disk is not the
     *                  one on record, or null ({@link DiskIdentity#open}); such a folder is set aside and the node
     *                  rejoins as a new member
     */
    public StorageNode(NodeAddress self, ReplicasetSpec replicaset, StorageConfig config, EventLoopGroup ioLoops,
                       BooleanSupplier groupHoldsData, boolean checkRestart, BooleanSupplier groupHasThisNode,
                       Function<String, String> otherDisk) throws IOException {
        this.self = self;
        this.replicaset = replicaset;
        this.engineKind = config.engine();
        engineKind.requireOwnFolder(config.dataDir());
        // on MicroRaft, a node back on a new disk is a new member that joins as a learner (MemberIds)
        this.newMemberOnNewDisk = engineKind == ReplicationEngine.MICRORAFT && replicaset.nodes().size() > 1;
        this.identity = DiskIdentity.open(config.dataDir(), self.id(), replicaset.id(), engineKind, groupHoldsData,
                () -> newMemberOnNewDisk && groupHasThisNode.getAsBoolean(), newMemberOnNewDisk ? otherDisk : disk -> null);
        if (identity.rejoining() && replicaset.nodes().size() < 2) {
            log.warn("storage node {} is the only member of replicaset {}: there is no copy to catch up from, it starts on what its folder holds",
                    self.id(), replicaset.id());
            identity.caughtUp();
        }
        if (engineKind == ReplicationEngine.MICRORAFT) {
            ReplicaConfig.Vote vote = identity.rejoining() ? ReplicaConfig.Vote.AFTER_CATCH_UP
                    : checkRestart && identity.restart() && replicaset.nodes().size() > 1 ? ReplicaConfig.Vote.AFTER_CHECK : ReplicaConfig.Vote.AT_ONCE;
            this.engine = new MicroRaftEngine(self, identity.member(), replicaset, config, vote, ioLoops);
            this.dataPlane = new DataPlaneServer(engine.access(), self.host(), self.dataPort(), ioLoops);
        } else {
            if (identity.rejoining()) {
                log.warn("storage node {}: the ratis engine cannot keep a rejoining member from voting (issue 21); it votes at once", self.id());
                identity.caughtUp();
            }
            RatisEngine ratis = new RatisEngine(self, replicaset, config);
            this.engine = ratis;
            this.dataPlane = new DataPlaneServer(engine.access(), self.host(), self.dataPort(), ioLoops);
            ratis.publishDataPlane(dataPlane::endpoint);
        }
    }

    /** The highest log index the member folder of {@code config} holds, read before the member starts (0 for none, and on Ratis). */
    public static long logEndBeforeStart(StorageConfig config) throws IOException {
        return config.engine() == ReplicationEngine.MICRORAFT
                ? MicroRaftReplicas.logEnd(ReplicationEngine.MICRORAFT.folderIn(config.dataDir())) : 0;
    }

    /** The Ratis peers of a replicaset's group (tests and tools that speak Ratis to a Ratis replicaset). */
    public static List<RaftPeer> peers(List<NodeAddress> nodes) {
        return RatisEngine.peers(nodes);
    }

    public void start() throws IOException {
        engine.start();
        dataPlane.start();
        log.info("storage node {} of replicaset {} listening on {} ({}; data plane {})", self.id(), replicaset.id(), self.raftAddress(),
                engineKind.configName(), dataPlane.endpoint());
    }

    public String id() {
        return self.id();
    }

    /** "host:port" of this member's data-plane listener (routers' reads and writes), empty while closed. */
    public String dataPlaneEndpoint() {
        return dataPlane.endpoint();
    }

    /** Routers of this JVM connected to this member without a socket ({@link io.cairn.client.InProcessDataPlane}). */
    public int inProcessSessions() {
        return dataPlane.inProcessSessions();
    }

    public ReplicasetSpec replicaset() {
        return replicaset;
    }

    public boolean isLeader() {
        return engine.isLeader();
    }

    /** Raft role as text (LEADER, FOLLOWER, CANDIDATE, ...; DOWN when stopped) for status pages. */
    public String role() {
        return engine.role();
    }

    /** The newest topology epoch this node knows: data-plane requests sent at an older one are refused (STALE_EPOCH). */
    public void knowEpoch(long epoch) {
        dataPlane.knowEpoch(epoch);
    }

    /** Data-plane requests refused so far because they were sent at an older epoch. */
    public long staleEpochRefusals() {
        return dataPlane.staleEpochRefusals();
    }

    /** Data-plane requests from sockets handed to the engine so far. */
    public long dataPlaneRequestsServed() {
        return dataPlane.requestsServed();
    }

    /** Times a data-plane connection was not read from because its answers passed the high-water mark (a slow router). */
    public long dataPlaneReadingPaused() {
        return dataPlane.readingPaused();
    }

    /** This node's folder: its disk id, and whether the node still rejoins (see {@link DiskIdentity}). */
    public DiskIdentity identity() {
        return identity;
    }

    /**
     * Whether this node may not vote or serve reads yet: it is back on a new, damaged or older folder
     * and has not caught up with its leader, or it restarted and is not yet checked
     * ({@link #confirmAcknowledged}). Once the member caught up, records it in the folder.
     */
    /** Runs once each time the node has caught up after rejoining (the caller records its disk with the coordinator). */
    public void onCaughtUp(Runnable listener) {
        this.onCaughtUp = listener;
    }

    private volatile Runnable onCaughtUp = () -> { };

    public boolean rejoining() {
        boolean out = engine.rejoining();
        if (!out && identity.rejoining()) {
            try {
                identity.caughtUp();
                onCaughtUp.run();
            } catch (IOException e) {
                log.warn("storage node {} caught up but could not record it in its folder ({}); it will rejoin again after a restart", self.id(), e.toString());
            }
        }
        return out;
    }

    /**
     * For a node started with {@code checkRestart}: {@code acknowledgedIndex} is the highest log index it is on
     * record (at its coordinator) as holding, {@code otherDisk} why its folder is not the disk on record
     * ({@link io.cairn.core.topology.DiskCheck}; null when no record names another). Completes with whether it
     * votes now; when its log ends below the record (its folder is an older copy) or its folder is another disk
     * than the record (an older disk put back), it rejoins, recorded in the folder, and votes once caught up.
     */
    public CompletableFuture<Boolean> confirmAcknowledged(long acknowledgedIndex, String otherDisk) {
        String reason = otherDisk != null ? otherDisk
                : "restarted on a log that ends below the index " + acknowledgedIndex + " it had acknowledged (its folder is an older copy?)";
        if (otherDisk != null && newMemberOnNewDisk) {
            // its member is no longer the node's member in the group: it must not vote, ever; restarted, it comes back as a new member
            engine.withholdVote();
            try {
                identity.setAsideAtNextStart(otherDisk);
            } catch (IOException e) {
                log.warn("storage node {} could not record in its folder that it is to be set aside ({})", self.id(), e.toString());
            }
            return CompletableFuture.completedFuture(false);
        }
        return engine.confirmAcknowledged(otherDisk != null ? Long.MAX_VALUE : acknowledgedIndex).thenApply(votes -> {
            if (!votes && !identity.rejoining()) {
                try {
                    identity.rejoin(reason);
                } catch (IOException e) {
                    log.warn("storage node {} could not record in its folder that it rejoins ({})", self.id(), e.toString());
                }
            }
            return votes;
        });
    }

    /** The disk this member's own copy of its replicaset's state records for {@code node} ({@link io.cairn.storage.state.DiskRecords}), or null. */
    public String recordedDisk(String node) {
        ReplicasetState s = engine.state();
        return s == null ? null : s.recordedDisk(node);
    }

    /** On the leader: the highest log index each member holds, for the coordinator's record ({@link #confirmAcknowledged}). */
    public CompletableFuture<Map<String, Long>> acknowledged() {
        return engine.acknowledged();
    }

    public long term() {
        return engine.term();
    }

    /** What this member's Raft transport holds for peers that do not read (issue 28). */
    public SendBacklog raftSendBacklog() {
        return engine.sendBacklog();
    }

    /**
     * Hands its replicaset's leadership to member {@code memberId} (called on the leader); completes
     * once that member leads, exceptionally when it was refused or did not happen in time.
     */
    public CompletableFuture<Void> transferLeadership(String memberId) {
        return engine.transferLeadership(memberId);
    }

    /** Takes a snapshot of this member's state now and drops its log up to it; completes with the snapshot's index. */
    public CompletableFuture<Long> takeSnapshot() {
        return engine.takeSnapshot();
    }

    /** The Raft engine this node runs on. */
    public ReplicationEngine engine() {
        return engineKind;
    }

    /**
     * Expired keys found in the next slice of this member's data (at most {@code scanLimit}
     * keys examined), as conditional deletes to propose through the log. Leader only.
     */
    public synchronized List<KvOp> expiredKeys(int scanLimit) {
        ReplicasetState s = engine.state();
        if (s == null) return List.of();
        List<KvOp> expired = expiryScanner.next(s.store(), scanLimit, System.currentTimeMillis());
        s.expiryTally(expiryScanner.tally());
        return expired;
    }

    /**
     * Tombstones whose change is older than {@code retentionMs} by this member's clock, oldest first,
     * at most {@code limit}, to propose for collection through the log. Leader only.
     */
    public List<BucketRecord> expiredTombstones(long retentionMs, int limit) {
        ReplicasetState s = engine.state();
        return s == null ? List.of() : s.expiredTombstones(System.currentTimeMillis() - retentionMs, limit);
    }

    /** Tombstones with a BSN up to this one are collected; a router cursor below it resyncs. */
    public long horizonBsn() {
        ReplicasetState s = engine.state();
        return s == null ? 0 : s.horizonBsn();
    }

    /** This member's bucket records (its own view; the leader's is authoritative). */
    public Collection<BucketRecord> bucketRecords() {
        ReplicasetState s = engine.state();
        return s == null ? List.of() : List.copyOf(s.records());
    }

    /** When {@code bucket}'s copy was quarantined on this replicaset, or -1. */
    public long quarantinedAtMs(int bucket) {
        ReplicasetState s = engine.state();
        return s == null ? -1 : s.quarantinedAtMs(bucket);
    }

    /** Calls {@code hook} with the buckets of every Verify query this member answers (see {@link DoubledVerifier}). */
    public void onVerifyRequest(Consumer<List<Integer>> hook) {
        engine.onVerifyRequest(hook);
    }

    /** Tells {@code hook} of every request refused here because its bucket is archived (the archive tier restores it). */
    public void onArchivedAccess(ArchivedAccess hook) {
        engine.onArchivedAccess(hook);
    }

    /** This member's replicated state (null while closed), for the archive tier on the leader. */
    ReplicasetState state() {
        return engine.state();
    }

    /** Snapshots this member received from a leader and installed since it started. */
    public long snapshotInstalls() {
        return engine.snapshotInstalls();
    }

    /** Discovery answers this member served since it started. */
    public DiscoveryServed discoveryServed() {
        ReplicasetState s = engine.state();
        return s == null ? DiscoveryServed.NONE : s.discoveryServed();
    }

    /** This member's own view (may lag the leader's). */
    public StorageStats localStats() {
        ReplicasetState s = engine.state();
        return s == null ? new StorageStats(0, 0, 0, 0, 0, false, 0) : s.stats();
    }

    /**
     * Before a planned stop (SIGTERM, {@code cairn node stop}): if this member leads, it hands
     * leadership to another voter first, so writes flow again at once rather than after the
     * followers' leader timeout. {@link #close()} alone stops it as a crash would (tests rely on it).
     *
     * @return the member that leads now, or null when this one did not lead or none took over in time
     */
    public String handOverLeadership() {
        return engine.handOverLeadership();
    }

    @Override
    public void close() throws IOException {
        dataPlane.close();
        engine.close();
        log.info("storage node {} stopped", self.id());
    }
}
