package io.cairn.server;

import com.sun.net.httpserver.HttpExchange;
import io.cairn.coordinator.CoordinatorClient;
import io.cairn.coordinator.CoordinatorServer;
import io.cairn.server.move.MoverService;
import io.cairn.core.topology.NodeAddress;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.config.ClusterConfig;
import io.micrometer.core.instrument.Gauge;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A coordinator node with its admin endpoint. The coordinator leader also runs the cluster's
 * rebalancer ({@link MoverService}); {@code POST /moves/<bucket>?to=<replicaset>} queues a manual move.
 */
public final class CoordinatorProcess implements AutoCloseable {
    private final NodeAddress self;
    private final CoordinatorServer server;
    private final CoordinatorClient topologyWatch;
    private final MoverService mover;
    private AdminServer admin;

    public CoordinatorProcess(ClusterConfig config, String nodeId) throws IOException {
        this.self = Nodes.coordinator(config, nodeId);
        this.server = new CoordinatorServer(nodeId, config.topology().coordinators(), config.nodeDir(nodeId));
        this.topologyWatch = new CoordinatorClient(config.topology().coordinators());
        this.mover = new MoverService(server::isLeader, config.rebalancer().moverSettings());
    }

    public CoordinatorProcess start() throws IOException {
        server.start();
        admin = new AdminServer(self.host(), self.adminPort(), this::info, () -> true).start();
        Gauge.builder("cairn_coordinator_leader", server, s -> s.isLeader() ? 1 : 0)
                .description("1 when this coordinator node is the Raft leader").register(admin.registry());
        registerRebalancerMetrics();
        admin.route("/moves/", this::moveRequest);
        admin.route("/rebalancer", ex -> AdminServer.sendJson(ex, 200, mover.progress()));
        topologyWatch.watch(state -> {
            if (state.topology() != null) mover.setTopology(state.topology());
        });
        mover.start();
        return this;
    }

    public MoverService mover() {
        return mover;
    }

    private void registerRebalancerMetrics() {
        for (String key : new String[] {"bucketsToMove", "inFlight", "moved", "rolledBack", "keysMoved"}) {
            Gauge.builder("cairn_rebalancer_" + key.replaceAll("([A-Z])", "_$1").toLowerCase(), mover,
                    m -> m.progress().get(key) instanceof Number n ? n.doubleValue() : 0).register(admin.registry());
        }
        Gauge.builder("cairn_rebalancer_problems", mover,
                m -> m.progress().get("problems") instanceof java.util.List<?> l ? l.size() : 0)
                .description("problems the rebalancer reports (DOUBLED_BUCKETS, unreachable replicasets)").register(admin.registry());
    }

    /** POST /moves/{bucket}?to={replicaset} */
    private void moveRequest(HttpExchange ex) throws IOException {
        String[] parts = ex.getRequestURI().getPath().split("/");
        String query = ex.getRequestURI().getQuery() == null ? "" : ex.getRequestURI().getQuery();
        String to = query.startsWith("to=") ? query.substring(3) : "";
        int bucket;
        try {
            bucket = parts.length == 3 ? Integer.parseInt(parts[2]) : -1;
        } catch (NumberFormatException e) {
            bucket = -1;
        }
        if (!"POST".equals(ex.getRequestMethod()) || bucket < 1 || to.isEmpty()) {
            AdminServer.send(ex, 400, "text/plain", "use POST /moves/<bucket>?to=<replicaset>\n");
            return;
        }
        boolean queued;
        try {
            queued = mover.requestMove(bucket, to);
        } catch (IllegalArgumentException e) {
            AdminServer.send(ex, 404, "text/plain", e.getMessage() + "\n");
            return;
        }
        if (!queued) {
            AdminServer.send(ex, 409, "text/plain", "this coordinator is not the leader; ask the leader\n");
            return;
        }
        AdminServer.send(ex, 202, "text/plain", "bucket " + bucket + " queued to move to " + to + "\n");
    }

    private Map<String, Object> info() {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("role", "coordinator");
        info.put("node", self.id());
        info.put("leader", server.isLeader());
        info.put("rebalancer", mover.progress());
        return info;
    }

    @Override
    public void close() {
        mover.close();
        topologyWatch.close();
        if (admin != null) admin.close();
        server.close();
    }
}
