package io.cairn.storage.raft;

import io.cairn.client.RatisTls;
import io.cairn.core.GroupIds;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.storage.ReplicationEngine;
import io.cairn.storage.StorageConfig;
import io.cairn.storage.state.ArchivedAccess;
import io.cairn.storage.state.ReplicasetState;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.protocol.TransferLeadershipRequest;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A storage member on Apache Ratis: a Raft server of the replicaset's group with
 * {@link StorageStateMachine}, its log and snapshots under {@code ratis/}, the database under
 * {@code db/}. A member restarted on an empty folder is watched by {@link WipedNodeRejoin}.
 */
public final class RatisEngine implements NodeEngine {
    private final StorageStateMachine stateMachine;
    private final RaftServer server;
    private final RaftGroupId groupId;
    private final RaftPeerId selfId;
    private final WipedNodeRejoin rejoin;

    public RatisEngine(NodeAddress self, ReplicasetSpec replicaset, StorageConfig config) throws IOException {
        this.groupId = RaftGroupId.valueOf(GroupIds.replicaset(replicaset.id()));
        this.selfId = RaftPeerId.valueOf(self.id());
        Path ratisDir = ReplicationEngine.RATIS.folderIn(config.dataDir());
        boolean fresh = !Files.isDirectory(ratisDir.resolve(groupId.getUuid().toString()));
        Files.createDirectories(ratisDir);
        this.stateMachine = new StorageStateMachine(config.dataDir().resolve("db"), config.maxValueBytes(), System::currentTimeMillis,
                // a follower that has not heard from its leader for this long would start an election
                config.electionTimeoutMin().toMillis());
        RaftGroup group = RaftGroup.valueOf(groupId, peers(replicaset.nodes()));
        RaftPeer selfPeer = group.getPeer(selfId);
        this.rejoin = new WipedNodeRejoin(selfPeer, group, fresh, this::raftAppliedIndex, this::lastLogIndex, this::isLeader);
        this.server = RaftServer.newBuilder()
                .setServerId(selfId)
                .setGroup(group)
                .setStateMachine(stateMachine)
                .setProperties(properties(self, ratisDir, config))
                .setParameters(RatisTls.parameters())
                .setOption(fresh ? RaftStorage.StartupOption.FORMAT : RaftStorage.StartupOption.RECOVER)
                .build();
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

    /** The data-plane endpoint this member answers Ratis's endpoint question with (topologies without a named data port). */
    public void publishDataPlane(Supplier<String> endpoint) {
        stateMachine.setDataPlaneEndpoint(endpoint);
    }

    @Override
    public void start() throws IOException {
        server.start();
        rejoin.start();
    }

    @Override
    public MemberAccess access() {
        return new RatisAccess(server, groupId, selfId);
    }

    @Override
    public ReplicasetState state() {
        return stateMachine.state();
    }

    private RaftServer.Division division() throws IOException {
        return server.getDivision(groupId);
    }

    @Override
    public boolean isLeader() {
        try {
            return division().getInfo().isLeader();
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public String role() {
        try {
            return division().getInfo().getCurrentRole().name();
        } catch (IOException e) {
            return "DOWN";
        }
    }

    @Override
    public long term() {
        try {
            return division().getInfo().getCurrentTerm();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Last log index this member applied (Ratis's view, includes configuration entries); -1 when unknown. */
    private long raftAppliedIndex() {
        try {
            return division().getInfo().getLastAppliedIndex();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Index of this member's last log entry (of its snapshot when the log is empty); -1 when unknown. */
    private long lastLogIndex() {
        try {
            var last = division().getRaftLog().getLastEntryTermIndex();
            return last == null ? 0 : last.getIndex();
        } catch (IOException | IllegalStateException closed) {
            return -1;
        }
    }

    @Override
    public CompletableFuture<Void> transferLeadership(String memberId) {
        try {
            var request = new TransferLeadershipRequest(ClientId.randomId(), selfId, groupId,
                    0, RaftPeerId.valueOf(memberId), 10_000);
            return server.transferLeadershipAsync(request).thenAccept(reply -> {
                if (!reply.isSuccess()) throw new IllegalStateException("leadership not transferred to " + memberId + ": " + reply.getException());
            });
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Long> takeSnapshot() {
        var request = SnapshotManagementRequest.newCreate(ClientId.randomId(), selfId, groupId,
                0, 30_000, 1);
        return server.snapshotManagementAsync(request).thenApply(reply -> {
            if (!reply.isSuccess()) throw new IllegalStateException("snapshot failed: " + reply.getException());
            return reply.getLogIndex();
        });
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
    public void close() throws IOException {
        rejoin.stop();
        server.close();
    }
}
