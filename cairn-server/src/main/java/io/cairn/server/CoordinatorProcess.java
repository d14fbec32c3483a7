package io.cairn.server;

import io.cairn.coordinator.CoordinatorServer;
import io.cairn.core.topology.NodeAddress;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.config.ClusterConfig;
import io.micrometer.core.instrument.Gauge;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** A coordinator node with its admin endpoint. */
public final class CoordinatorProcess implements AutoCloseable {
    private final NodeAddress self;
    private final CoordinatorServer server;
    private AdminServer admin;

    public CoordinatorProcess(ClusterConfig config, String nodeId) throws IOException {
        this.self = Nodes.coordinator(config, nodeId);
        this.server = new CoordinatorServer(nodeId, config.topology().coordinators(), config.nodeDir(nodeId));
    }

    public CoordinatorProcess start() throws IOException {
        server.start();
        admin = new AdminServer(self.host(), self.adminPort(), this::info, () -> true).start();
        Gauge.builder("cairn_coordinator_leader", server, s -> s.isLeader() ? 1 : 0)
                .description("1 when this coordinator node is the Raft leader").register(admin.registry());
        return this;
    }

    private Map<String, Object> info() {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("role", "coordinator");
        info.put("node", self.id());
        info.put("leader", server.isLeader());
        return info;
    }

    @Override
    public void close() {
        if (admin != null) admin.close();
        server.close();
    }
}
