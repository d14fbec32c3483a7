package io.cairn.router;

import io.cairn.core.topology.BootstrapPlanner;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.storage.ReplicationEngine;
import io.cairn.storage.StorageAdmin;
import io.cairn.storage.StorageConfig;
import io.cairn.storage.StorageNode;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Real storage nodes (Ratis + RocksDB on 127.0.0.1) and a router, in this JVM. */
final class TestCluster implements AutoCloseable {
    final Topology topology;
    final Path root;
    final ReplicationEngine engine;
    final Map<String, StorageNode> running = new LinkedHashMap<>();
    Router router;

    TestCluster(Path root, int replicasets, int nodesPerReplicaset, int bucketCount) throws IOException {
        this(root, replicasets, nodesPerReplicaset, bucketCount, ReplicationEngine.defaultEngine(), true);
    }

    /**
     * @param engine         the members' Raft engine (tests of one engine's own behaviour name it; the rest take the default)
     * @param namedDataPorts false for a topology from before storage nodes' data-plane ports were named (found through Ratis)
     */
    TestCluster(Path root, int replicasets, int nodesPerReplicaset, int bucketCount, ReplicationEngine engine, boolean namedDataPorts) throws IOException {
        this.root = root;
        this.engine = engine;
        List<ReplicasetSpec> sets = new ArrayList<>();
        for (int r = 1; r <= replicasets; r++) {
            List<NodeAddress> nodes = new ArrayList<>();
            for (int n = 1; n <= nodesPerReplicaset; n++) {
                nodes.add(new NodeAddress("rs" + r + "-n" + n, "127.0.0.1", freePort(), freePort(), namedDataPorts ? freePort() : 0));
            }
            sets.add(new ReplicasetSpec("rs" + r, 1, nodes));
        }
        NodeAddress coordinator = new NodeAddress("c1", "127.0.0.1", freePort(), freePort());
        topology = new Topology(1, bucketCount, List.of(coordinator), sets, List.of());
    }

    TestCluster start() throws IOException {
        for (ReplicasetSpec rs : topology.replicasets()) for (NodeAddress n : rs.nodes()) startNode(n.id());
        return this;
    }

    TestCluster bootstrap() throws Exception {
        Map<String, BootstrapPlanner.Range> plan = BootstrapPlanner.plan(topology.bucketCount(), topology.replicasets());
        for (ReplicasetSpec rs : topology.replicasets()) {
            try (StorageAdmin admin = new StorageAdmin(rs, Duration.ofSeconds(30))) {
                admin.bootstrap(plan.get(rs.id()).first(), plan.get(rs.id()).last());
            }
        }
        return this;
    }

    Router startRouter(RouterConfig config) throws InterruptedException {
        router = new Router(topology, config).start();
        if (!router.awaitRoutes(Duration.ofSeconds(30))) throw new IllegalStateException("routes not discovered");
        return router;
    }

    void startNode(String nodeId) throws IOException {
        NodeAddress n = topology.storageNode(nodeId).orElseThrow();
        ReplicasetSpec rs = topology.replicasetOfNode(nodeId).orElseThrow();
        StorageConfig config = new StorageConfig(root.resolve(nodeId), StorageConfig.DEFAULT_MAX_VALUE_BYTES,
                Duration.ofMillis(1000), 1_000, 64 << 10, engine);
        StorageNode node = new StorageNode(n, rs, config);
        node.start();
        running.put(nodeId, node);
    }

    void stopNode(String nodeId) throws IOException {
        StorageNode node = running.remove(nodeId);
        if (node != null) node.close();
    }

    void wipeNode(String nodeId) throws IOException {
        Path dir = root.resolve(nodeId);
        if (!Files.exists(dir)) return;
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    StorageNode leaderOf(String replicasetId) {
        return running.values().stream().filter(n -> n.replicaset().id().equals(replicasetId) && n.isLeader())
                .findFirst().orElse(null);
    }

    StorageNode node(String nodeId) {
        return running.get(nodeId);
    }

    @Override
    public void close() {
        if (router != null) router.close();
        for (String id : new ArrayList<>(running.keySet())) {
            try {
                stopNode(id);
            } catch (IOException ignored) {
                // best effort in teardown
            }
        }
    }

    /**
     * A free loopback port below the kernel's ephemeral range (from 32768 on Linux): a port from
     * that range could be taken by an outgoing connection before the node binds it, and Ratis
     * cannot retry a failed bind. Each port is handed out once per JVM.
     */
    static int freePort() throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = 10_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(22_000);
            if (!HANDED_OUT.add(port)) continue;
            try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException busy) {
                // taken: try another
            }
        }
        throw new IOException("no free loopback port found below 32000");
    }

    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        // A bind failure inside Ratis must fail the test, not end the shared test JVM.
        org.apache.ratis.util.ExitUtils.disableSystemExit();
    }
}
