package io.cairn.server.process;

import com.sun.net.httpserver.HttpExchange;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.netty.channel.EventLoopGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.stream.Stream;

/**
 * {@code cairn up}: a whole cluster (coordinator, replicasets, router) in this JVM, with its
 * config file and data under one folder. The folder's {@code cluster.yaml} is written on the
 * first start and reused afterwards, so a restart on the same folder keeps ports and data.
 * The router's admin endpoint also serves {@code /local/nodes/ID/stop|start} so an operator can
 * stop a storage node and watch failover ({@code cairn node stop ID}).
 */
public final class LocalCluster implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LocalCluster.class);
    public static final String CONFIG_FILE = "cluster.yaml";

    /** Shape of a new local cluster; ignored when the folder already has a config. */
    public record Shape(int replicasets, int replicas, int bucketCount, int respPort, int basePort) {
        public Shape {
            if (replicasets < 1 || replicasets > 50) throw new IllegalArgumentException("replicasets must be 1..50");
            if (replicas != 1 && replicas != 3 && replicas != 5) throw new IllegalArgumentException("replicas must be 1, 3 or 5");
            if (basePort < 1024 || basePort + 10 + 3 * replicasets * replicas > 65535) throw new IllegalArgumentException("basePort out of range");
        }
    }

    /** The config as last read from the folder; {@code cairn topology add-replicaset} appends to the file. */
    private volatile ClusterConfig config;
    private final List<CoordinatorProcess> coordinators = new ArrayList<>();
    private final Map<String, StorageProcess> storages = new LinkedHashMap<>();
    private RouterProcess router;
    /** One event loop for the router's and the storage nodes' sockets ({@link IoLoops}). */
    private final EventLoopGroup ioLoops = IoLoops.create(1);

    public LocalCluster(ClusterConfig config) {
        this.config = config;
    }

    /** Loads {@code dir/cluster.yaml}, writing it first from {@code shape} when absent. */
    public static ClusterConfig prepare(Path dir, Shape shape) throws IOException {
        return prepare(dir, shape, false);
    }

    /** The file {@code cairn up --admin-token} writes the generated admin token to (in the data folder). */
    public static final String ADMIN_TOKEN_FILE = "admin-token";

    /**
     * As above; with {@code adminToken}, a new cluster's admin ports need a token generated into
     * {@value #ADMIN_TOKEN_FILE} (readable by its owner only), which the config names so that the
     * {@code cairn} command finds it. An existing config is left as it is.
     */
    public static ClusterConfig prepare(Path dir, Shape shape, boolean adminToken) throws IOException {
        return prepare(dir, shape, adminToken, false);
    }

    /** The folder {@code cairn up --tls} writes the local CA and certificates to (in the data folder). */
    public static final String TLS_DIR = "tls";

    /**
     * As above; with {@code tls}, a new cluster gets a local CA and a certificate in {@value #TLS_DIR}
     * ({@link LocalTls}) and speaks TLS on every port: RESP, admin, Raft, data plane, coordinator.
     */
    public static ClusterConfig prepare(Path dir, Shape shape, boolean adminToken, boolean tls) throws IOException {
        Path file = dir.resolve(CONFIG_FILE);
        if (!Files.exists(file)) {
            Map<String, Object> tree = configTree(shape);
            Map<String, Object> security = new LinkedHashMap<>();
            if (adminToken) {
                writeToken(dir.resolve(ADMIN_TOKEN_FILE));
                security.put("adminTokenFile", ADMIN_TOKEN_FILE);
            }
            if (tls) security.putAll(LocalTls.generate(dir, TLS_DIR));
            if (!security.isEmpty()) tree.put("security", security);
            ConfigLoader.write(file, tree);
        } else if (tls && !ConfigLoader.load(file).security().internalTls().enabled()) {
            log.warn("{} exists without security.internalTls: --tls applies to a new cluster only; the cluster starts as configured", file);
        }
        return ConfigLoader.load(file);
    }

    /** 32 random bytes, base64url: as hard to guess as an AES-256 key. */
    private static void writeToken(Path file) throws IOException {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, Base64.getUrlEncoder().withoutPadding().encodeToString(random) + "\n");
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            log.warn("cannot restrict {} to its owner on this file system; protect it by other means", file);
        }
    }

    /** The config tree of a new local cluster of this shape (written to cluster.yaml). */
    public static Map<String, Object> configTree(Shape s) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("bucketCount", s.bucketCount());
        root.put("dataDir", ".");
        root.put("coordinators", List.of(node("c1", s.basePort(), s.basePort() + 1)));
        List<Object> sets = new ArrayList<>();
        int port = s.basePort() + 10;
        for (int r = 1; r <= s.replicasets(); r++) {
            List<Object> nodes = new ArrayList<>();
            for (int n = 1; n <= s.replicas(); n++, port += 3) nodes.add(storageNode("s" + r + "-" + n, port));
            sets.add(Map.of("id", "rs" + r, "weight", 1, "nodes", nodes));
        }
        root.put("replicasets", sets);
        root.put("routers", List.of(Map.of("id", "r1", "host", "127.0.0.1", "respPort", s.respPort(), "adminPort", s.basePort() + 2)));
        return root;
    }

    private static Map<String, Object> node(String id, int raftPort, int adminPort) {
        return Map.of("id", id, "host", "127.0.0.1", "raftPort", raftPort, "adminPort", adminPort);
    }

    /** A storage node on three ports from {@code port}: Raft, admin, data plane. */
    private static Map<String, Object> storageNode(String id, int port) {
        return Map.of("id", id, "host", "127.0.0.1", "raftPort", port, "adminPort", port + 1, "dataPort", port + 2);
    }

    public LocalCluster start() throws IOException {
        requireFreePorts();
        for (NodeAddress c : config.topology().coordinators()) coordinators.add(new CoordinatorProcess(config, c.id()).start());
        for (ReplicasetSpec rs : config.topology().replicasets()) {
            for (NodeAddress n : rs.nodes()) startNode(n.id());
        }
        router = new RouterProcess(config, config.topology().routers().get(0).id(), ioLoops).start();
        router.admin().route("/local/nodes/", this::control);
        router.admin().route("/local/replicasets/", this::replicasetControl);
        return this;
    }

    /**
     * Every port of this cluster must be free before anything starts: Ratis ends the JVM with a
     * stack trace when its port is taken, which names neither the node nor a way out.
     *
     * @throws CairnException PORT_IN_USE naming the first taken port and what it was for
     */
    private void requireFreePorts() {
        Map<String, InetSocketAddress> ports = new LinkedHashMap<>();
        BiConsumer<String, NodeAddress> raftAndAdmin = (what, n) -> {
            ports.put(what + " " + n.id() + " Raft", new InetSocketAddress(n.host(), n.raftPort()));
            ports.put(what + " " + n.id() + " admin", new InetSocketAddress(n.host(), n.adminPort()));
            if (n.dataPort() != 0) ports.put(what + " " + n.id() + " data plane", new InetSocketAddress(n.host(), n.dataPort()));
        };
        for (NodeAddress c : config.topology().coordinators()) raftAndAdmin.accept("coordinator", c);
        for (ReplicasetSpec rs : config.topology().replicasets()) for (NodeAddress n : rs.nodes()) raftAndAdmin.accept("storage node", n);
        var r = config.topology().routers().get(0);
        ports.put("router " + r.id() + " RESP", new InetSocketAddress(r.host(), r.respPort()));
        ports.put("router " + r.id() + " admin", new InetSocketAddress(r.host(), r.adminPort()));
        for (var e : ports.entrySet()) {
            if (Ports.isFree(e.getValue())) continue;
            throw new CairnException(ErrorCode.PORT_IN_USE, "port " + e.getValue().getPort() + " (" + e.getKey() + ") on "
                    + e.getValue().getHostString() + " is in use: stop the process holding it (an earlier cairn up?), or start with other --port / --base-port values");
        }
    }

    /** Starts the nodes of a replicaset just added to the config file (by {@code cairn topology add-replicaset}). */
    public synchronized void startReplicaset(String id) throws IOException {
        ClusterConfig fresh = ConfigLoader.load(config.source());
        ReplicasetSpec rs = fresh.topology().replicaset(id)
                .orElseThrow(() -> new IllegalArgumentException("replicaset '" + id + "' is not in " + config.source()));
        config = fresh;
        for (NodeAddress n : rs.nodes()) startNode(n.id());
        log.info("started replicaset {} ({} nodes)", id, rs.nodes().size());
    }

    /**
     * Stops a removed replicaset's nodes and deletes their data (it was drained before removal);
     * {@code keepData} leaves the folders (a forced removal: whatever it still held stays there).
     */
    public synchronized void removeReplicaset(String id, boolean keepData) throws IOException {
        ReplicasetSpec rs = config.topology().replicaset(id)
                .orElseThrow(() -> new IllegalArgumentException("replicaset '" + id + "' is not part of this local cluster"));
        for (NodeAddress n : rs.nodes()) {
            stopNode(n.id());
            if (!keepData) deleteTree(config.nodeDir(n.id()));
        }
        config = ConfigLoader.load(config.source());
        log.info("removed replicaset {}{}", id, keepData ? "; its data folders are kept" : " and deleted its data");
    }

    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    private void replicasetControl(HttpExchange ex) throws IOException {
        String[] parts = ex.getRequestURI().getPath().split("/");
        // /local/replicasets/{id}/{start|remove[?keepData=true]}
        if (parts.length != 5 || !"POST".equals(ex.getRequestMethod()) || !(parts[4].equals("start") || parts[4].equals("remove"))) {
            AdminServer.send(ex, 400, "text/plain", "use POST /local/replicasets/<id>/start or /remove\n");
            return;
        }
        try {
            if (parts[4].equals("start")) startReplicaset(parts[3]);
            else removeReplicaset(parts[3], "keepData=true".equals(ex.getRequestURI().getQuery()));
        } catch (IllegalArgumentException e) {
            AdminServer.send(ex, 404, "text/plain", e.getMessage() + "\n");
            return;
        }
        AdminServer.send(ex, 200, "text/plain", "replicaset " + parts[3] + (parts[4].equals("start") ? " started" : " removed") + "\n");
    }

    /** Waits until the router knows an owner for every bucket and the rebalancer knows the topology. */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        return router.router().awaitRoutes(timeout)
                && coordinator().mover().awaitTopology(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }

    public RouterProcess router() {
        return router;
    }

    public CoordinatorProcess coordinator() {
        return coordinators.get(0);
    }

    /** The running coordinator node that is the Raft leader (it runs the rebalancer), or null. */
    public synchronized CoordinatorProcess coordinatorLeader() {
        return coordinators.stream().filter(CoordinatorProcess::isLeader).findFirst().orElse(null);
    }

    /** Stops one coordinator node (its Raft group elects another leader, whose rebalancer takes over). */
    public synchronized void stopCoordinator(CoordinatorProcess c) {
        if (coordinators.remove(c)) c.close();
    }

    public ClusterConfig config() {
        return config;
    }

    public synchronized void startNode(String nodeId) throws IOException {
        if (storages.containsKey(nodeId)) return;
        storages.put(nodeId, new StorageProcess(config, nodeId, ioLoops).start());
    }

    /** Stops a storage node as a crash would: no hand-over of its leadership (what fault tests need). */
    public synchronized void stopNode(String nodeId) throws IOException {
        stopNode(nodeId, false);
    }

    /**
     * @param handOver stop as planned: a leader hands leadership over first ({@code cairn node stop});
     *                 false stops it as a crash would (fault tests)
     */
    public synchronized void stopNode(String nodeId, boolean handOver) throws IOException {
        StorageProcess p = storages.remove(nodeId);
        if (p != null) {
            if (handOver) p.stop();
            else p.close();
            log.info("stopped storage node {} (start it again with: cairn node start {})", nodeId, nodeId);
        }
    }

    /** Whether storage node {@code id} is in the config, read again from its file for a node just added (cairn node add). */
    private synchronized boolean knows(String id) {
        if (config.topology().storageNode(id).isPresent()) return true;
        ClusterConfig fresh = ConfigLoader.load(config.source());
        if (fresh.topology().storageNode(id).isEmpty()) return false;
        config = fresh;
        return true;
    }

    /** Stops a node removed from its replicaset's Raft group (cairn node remove) and deletes its data folder. */
    public synchronized void removeNode(String nodeId) throws IOException {
        stopNode(nodeId, false);
        deleteTree(config.nodeDir(nodeId));
        log.info("removed storage node {} and deleted its data folder", nodeId);
    }

    public synchronized Map<String, Boolean> nodes() {
        Map<String, Boolean> out = new LinkedHashMap<>();
        for (ReplicasetSpec rs : config.topology().replicasets()) for (NodeAddress n : rs.nodes()) out.put(n.id(), storages.containsKey(n.id()));
        return out;
    }

    public synchronized StorageProcess storage(String nodeId) {
        return storages.get(nodeId);
    }

    private void control(HttpExchange ex) throws IOException {
        String[] parts = ex.getRequestURI().getPath().split("/");
        // /local/nodes/{id}/{action}
        if (parts.length != 5 || !"POST".equals(ex.getRequestMethod())) {
            AdminServer.send(ex, 400, "text/plain", "use POST /local/nodes/<node-id>/stop or /start\n");
            return;
        }
        String id = parts[3];
        if (!knows(id)) {
            AdminServer.send(ex, 404, "text/plain", "unknown storage node '" + id + "'; nodes: " + nodes().keySet() + "\n");
            return;
        }
        switch (parts[4]) {
            case "stop" -> stopNode(id, true);
            case "start" -> startNode(id);
            case "remove" -> removeNode(id);
            default -> {
                AdminServer.send(ex, 400, "text/plain", "unknown action '" + parts[4] + "' (stop, start, remove)\n");
                return;
            }
        }
        AdminServer.send(ex, 200, "text/plain", id + " " + switch (parts[4]) {
            case "stop" -> "stopped";
            case "start" -> "started";
            default -> "stopped and its data folder deleted";
        } + "\n");
    }

    @Override
    public synchronized void close() {
        if (router != null) router.close();
        // In parallel: each Ratis server waits up to ~2 s for its threads, so one after another took 15-18 s for 6 nodes.
        List<Thread> closing = new ArrayList<>();
        for (StorageProcess p : storages.values()) {
            Thread t = new Thread(() -> {
                try {
                    p.close();
                } catch (IOException e) {
                    log.warn("stopping {} failed: {}", p.node().id(), e.toString());
                }
            }, "cairn-close-" + p.node().id());
            t.start();
            closing.add(t);
        }
        for (Thread t : closing) joinUninterruptibly(t);
        storages.clear();
        coordinators.forEach(CoordinatorProcess::close);
        coordinators.clear();
        IoLoops.shutdown(ioLoops);
    }

    private static void joinUninterruptibly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
