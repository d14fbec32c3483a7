package io.cairn.storage;

import io.cairn.core.GroupIds;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.StorageStats;
import io.netty.channel.EventLoopGroup;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One storage node: a member of its replicaset's Raft group with a RocksDB state machine.
 * Routers send reads and writes to its data-plane listener ({@link DataPlaneServer}), which
 * submits them to the Raft server in process; discovery and admin requests use Ratis clients.
 */
public final class StorageNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StorageNode.class);

    private final NodeAddress self;
    private final ReplicasetSpec replicaset;
    private final StorageStateMachine stateMachine;
    private final RaftServer server;
    private final RaftGroupId groupId;
    private final WipedNodeRejoin rejoin;
    private final ExpiryScanner expiryScanner = new ExpiryScanner();
    private final DataPlaneServer dataPlane;

    public StorageNode(NodeAddress self, ReplicasetSpec replicaset, StorageConfig config) throws IOException {
        this(self, replicaset, config, null);
    }

    /** @param ioLoops event loops for the data-plane listener, shared with the process's other sockets; null for a default */
    public StorageNode(NodeAddress self, ReplicasetSpec replicaset, StorageConfig config, EventLoopGroup ioLoops) throws IOException {
        this.self = self;
        this.replicaset = replicaset;
        this.groupId = RaftGroupId.valueOf(GroupIds.replicaset(replicaset.id()));
        Path ratisDir = config.dataDir().resolve("ratis");
        boolean fresh = !Files.isDirectory(ratisDir.resolve(groupId.getUuid().toString()));
        Files.createDirectories(ratisDir);
        this.stateMachine = new StorageStateMachine(config.dataDir().resolve("db"), config.maxValueBytes(), System::currentTimeMillis,
                // a follower that has not heard from its leader for this long would start an election
                config.electionTimeoutMin().toMillis());
        RaftGroup group = RaftGroup.valueOf(groupId, peers(replicaset.nodes()));
        RaftPeer selfPeer = group.getPeer(RaftPeerId.valueOf(self.id()));
        this.rejoin = new WipedNodeRejoin(selfPeer, group, fresh, this::raftAppliedIndex, this::lastLogIndex, this::isLeader);
        this.server = RaftServer.newBuilder()
                .setServerId(RaftPeerId.valueOf(self.id()))
                .setGroup(group)
                .setStateMachine(stateMachine)
                .setProperties(properties(self, ratisDir, config))
                .setOption(fresh ? RaftStorage.StartupOption.FORMAT : RaftStorage.StartupOption.RECOVER)
                .build();
        this.dataPlane = new DataPlaneServer(new RatisAccess(server, groupId, RaftPeerId.valueOf(self.id())), self.host(), ioLoops);
        stateMachine.setDataPlaneEndpoint(dataPlane::endpoint);
    }

    public static List<RaftPeer> peers(List<NodeAddress> nodes) {
        return nodes.stream().map(n -> RaftPeer.newBuilder().setId(n.id()).setAddress(n.raftAddress()).build()).toList();
    }

    private static RaftProperties properties(NodeAddress self, Path ratisDir, StorageConfig config) {
        RaftProperties p = new RaftProperties();
        RaftServerConfigKeys.setStorageDir(p, List.of(ratisDir.toFile()));
        GrpcConfigKeys.Server.setHost(p, self.host());
        GrpcConfigKeys.Server.setPort(p, self.raftPort());
        long min = config.electionTimeoutMin().toMillis();
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, TimeDuration.valueOf(min, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, TimeDuration.valueOf(2 * min, TimeUnit.MILLISECONDS));
        RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
        RaftServerConfigKeys.Read.setLeaderLeaseEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, config.snapshotEveryEntries());
        // No snapshot at stop: a stopped node restarts exactly as a crashed one (its database ahead of
        // the latest snapshot, see StorageStateMachine.open), so every stop in a test exercises that path.
        RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        RaftServerConfigKeys.Log.setSegmentSizeMax(p, SizeInBytes.valueOf(config.logSegmentBytes()));
        // Purge at every snapshot: a follower behind the snapshot catches up by installing it.
        RaftServerConfigKeys.Log.setPurgeGap(p, 1);
        SizeInBytes appenderBuffer = SizeInBytes.valueOf(Math.max(8 << 20, 2L * config.maxValueBytes() + (1 << 20)));
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, appenderBuffer);
        RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(appenderBuffer.getSize() + (1 << 20)));
        GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(appenderBuffer.getSize() + (1 << 20)));
        RaftServerConfigKeys.Write.setByteLimit(p, SizeInBytes.valueOf("256MB"));
        return p;
    }

    public void start() throws IOException {
        server.start();
        dataPlane.start();
        rejoin.start();
        log.info("storage node {} of replicaset {} listening on {} (data plane {})", self.id(), replicaset.id(), self.raftAddress(),
                dataPlane.endpoint());
    }

    public String id() {
        return self.id();
    }

    /** "host:port" of this member's data-plane listener (routers' reads and writes), empty while closed. */
    public String dataPlaneEndpoint() {
        return dataPlane.endpoint();
    }

    /** Routers of this JVM connected to this member without a socket ({@link io.cairn.core.wire.InProcessDataPlane}). */
    public int inProcessSessions() {
        return dataPlane.inProcessSessions();
    }

    public ReplicasetSpec replicaset() {
        return replicaset;
    }

    public boolean isLeader() {
        try {
            return server.getDivision(groupId).getInfo().isLeader();
        } catch (IOException e) {
            return false;
        }
    }

    /** Raft role as text (LEADER, FOLLOWER, CANDIDATE, ...) for status pages. */
    public String role() {
        try {
            return server.getDivision(groupId).getInfo().getCurrentRole().name();
        } catch (IOException e) {
            return "DOWN";
        }
    }

    public long term() {
        try {
            return server.getDivision(groupId).getInfo().getCurrentTerm();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Last log index this member applied (Ratis's view, includes configuration entries); -1 when unknown. */
    long raftAppliedIndex() {
        try {
            return server.getDivision(groupId).getInfo().getLastAppliedIndex();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Index of this member's last log entry (of its snapshot when the log is empty); -1 when unknown. */
    long lastLogIndex() {
        try {
            var last = server.getDivision(groupId).getRaftLog().getLastEntryTermIndex();
            return last == null ? 0 : last.getIndex();
        } catch (IOException | IllegalStateException closed) {
            return -1;
        }
    }

    /**
     * Expired keys found in the next slice of this member's data (at most {@code scanLimit}
     * keys examined), as conditional deletes to propose through the log. Leader only.
     */
    public synchronized List<io.cairn.core.kv.KvOp> expiredKeys(int scanLimit) {
        ReplicasetState s = stateMachine.state();
        return s == null ? List.of() : expiryScanner.next(s.store(), scanLimit, System.currentTimeMillis());
    }

    /**
     * Tombstones whose change is older than {@code retentionMs} by this member's clock, oldest first,
     * at most {@code limit}, to propose for collection through the log. Leader only.
     */
    public List<io.cairn.core.BucketRecord> expiredTombstones(long retentionMs, int limit) {
        ReplicasetState s = stateMachine.state();
        return s == null ? List.of() : s.expiredTombstones(System.currentTimeMillis() - retentionMs, limit);
    }

    /** Tombstones with a BSN up to this one are collected; a router cursor below it resyncs. */
    public long horizonBsn() {
        ReplicasetState s = stateMachine.state();
        return s == null ? 0 : s.horizonBsn();
    }

    /** This member's bucket records (its own view; the leader's is authoritative). */
    public java.util.Collection<io.cairn.core.BucketRecord> bucketRecords() {
        ReplicasetState s = stateMachine.state();
        return s == null ? List.of() : List.copyOf(s.records());
    }

    /** When {@code bucket}'s copy was quarantined on this replicaset, or -1. */
    public long quarantinedAtMs(int bucket) {
        ReplicasetState s = stateMachine.state();
        return s == null ? -1 : s.quarantinedAtMs(bucket);
    }

    /** Calls {@code hook} with the buckets of every Verify query this member answers (see {@link DoubledVerifier}). */
    public void onVerifyRequest(java.util.function.Consumer<List<Integer>> hook) {
        stateMachine.onVerifyRequest(hook);
    }

    /** Snapshots this member received from a leader and installed since it started. */
    public long snapshotInstalls() {
        return stateMachine.snapshotInstalls();
    }

    /** Discovery answers this member served since it started: {requests, records, resync answers, bytes}. */
    public long[] discoveryServed() {
        ReplicasetState s = stateMachine.state();
        return s == null ? new long[4] : s.discoveryServed();
    }

    /** This member's own view (may lag the leader's). */
    public StorageStats localStats() {
        ReplicasetState s = stateMachine.state();
        return s == null ? new StorageStats(0, 0, 0, 0, 0, false, 0) : s.stats();
    }

    @Override
    public void close() throws IOException {
        rejoin.stop();
        dataPlane.close();
        server.close();
        log.info("storage node {} stopped", self.id());
    }
}
