package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * One coordinator node: a Ratis server (gRPC transport) of the coordinator group running the
 * coordinator state machine. Its Raft storage lives in {@code <dataDir>/ratis}; started again on
 * the same folder it comes back with its state (newest snapshot plus log replay).
 *
 * <pre>
 * var server = new CoordinatorServer("c1", coordinators, Path.of("/var/lib/cairn/c1"));
 * server.start();   // binds host:raftPort of node c1
 * ...
 * server.close();
 * </pre>
 *
 * Clients reach the group through {@link CoordinatorClient}; the server has no client API.
 */
public final class CoordinatorServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorServer.class);

    private final NodeAddress self;
    private final RaftGroup group;
    private final Path storageDir;
    private final RaftServer server;

    /**
     * @param nodeId       this node's id; must be one of {@code coordinators}
     * @param coordinators every coordinator node of the cluster (the same list on every node)
     * @param dataDir      this node's data folder
     */
    public CoordinatorServer(String nodeId, List<NodeAddress> coordinators, Path dataDir) throws IOException {
        this(nodeId, coordinators, dataDir, RemovalCheck.NONE);
    }

    /** @param removalCheck asked by the leader about each replicaset a proposal removes */
    public CoordinatorServer(String nodeId, List<NodeAddress> coordinators, Path dataDir, RemovalCheck removalCheck) throws IOException {
        this.group = CoordinatorGroup.of(coordinators);
        this.self = coordinators.stream().filter(n -> n.id().equals(nodeId)).findFirst()
                .orElseThrow(() -> new CairnException(ErrorCode.UNKNOWN_NODE,
                        "coordinator '" + nodeId + "' is not in the coordinator list"));
        this.storageDir = dataDir.resolve("ratis");
        this.server = RaftServer.newBuilder()
                .setServerId(CoordinatorGroup.peerId(nodeId))
                .setGroup(group)
                .setStateMachine(new CoordinatorStateMachine(nodeId, removalCheck))
                .setProperties(properties(self, storageDir))
                .setParameters(CoordinatorTls.parameters())
                .setOption(RaftStorage.StartupOption.RECOVER)
                .build();
    }

    /** Binds the node's Raft port and joins the group; throws when the port is taken. */
    public void start() throws IOException {
        server.start();
        LOG.info("coordinator {} started on {} ({} node group, storage {})",
                self.id(), self.raftAddress(), group.getPeers().size(), storageDir);
    }

    public String nodeId() {
        return self.id();
    }

    /** Whether this node is the group's leader right now (false while starting or closed). */
    public boolean isLeader() {
        try {
            return server.getDivision(CoordinatorGroup.GROUP_ID).getInfo().isLeader();
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public void close() {
        try {
            server.close();
            LOG.info("coordinator {} stopped", self.id());
        } catch (IOException e) {
            LOG.warn("coordinator {} did not close cleanly: {}", self.id(), e.toString());
        }
    }

    private static RaftProperties properties(NodeAddress self, Path storageDir) {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        GrpcConfigKeys.Server.setHost(p, self.host());
        GrpcConfigKeys.Server.setPort(p, self.raftPort());
        RaftServerConfigKeys.setStorageDir(p, List.of(storageDir.toFile()));
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, CoordinatorGroup.ratis(CoordinatorLimits.ELECTION_TIMEOUT_MIN));
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, CoordinatorGroup.ratis(CoordinatorLimits.ELECTION_TIMEOUT_MAX));
        RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
        RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(p, CoordinatorLimits.SNAPSHOT_EVERY_ENTRIES);
        RaftServerConfigKeys.Snapshot.setRetentionFileNum(p, CoordinatorLimits.SNAPSHOTS_KEPT);
        // A crash never snapshots at stop; not doing it on a clean stop either keeps one restart path.
        RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, false);
        RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
        return p;
    }
}
