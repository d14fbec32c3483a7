package io.cairn.server.process;

import com.sun.net.httpserver.HttpExchange;
import io.cairn.archive.StoreThrottle;
import io.cairn.archive.ThrottledObjectStore;
import io.cairn.coordinator.CoordinatorClient;
import io.cairn.coordinator.CoordinatorServer;
import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.CairnException;
import io.cairn.core.move.Mover;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.rebalancer.ArchiveMoveIo;
import io.cairn.rebalancer.MoverService;
import io.cairn.server.admin.AdminAccess;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.admin.AlertMetrics;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.control.DoubledAdmin;
import io.cairn.server.control.LiveSettingsFollower;
import io.cairn.server.control.MemberReconciler;
import io.cairn.storage.StorageAdmin;
import io.micrometer.core.instrument.Gauge;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * A coordinator node with its admin endpoint. The coordinator leader also runs the cluster's
 * rebalancer ({@link MoverService}) and makes each replicaset's Raft members follow the topology
 * ({@link MemberReconciler}); {@code POST /moves/<bucket>?to=<replicaset>} queues a manual move.
 */
public final class CoordinatorProcess implements AutoCloseable {
    private final NodeAddress self;
    private final CoordinatorServer server;
    private final CoordinatorClient topologyWatch;
    private final MoverService mover;
    private final DoubledAdmin doubledAdmin;
    private final MemberReconciler members;
    private final LiveSettingsFollower settings;
    private AdminServer admin;
    private final AdminAccess adminAccess;

    public CoordinatorProcess(ClusterConfig config, String nodeId) throws IOException {
        this.adminAccess = config.security().adminAccess();
        this.self = Nodes.coordinator(config, nodeId);
        this.server = new CoordinatorServer(nodeId, config.topology().coordinators(), config.nodeDir(nodeId),
                CoordinatorProcess::removalFindings);
        this.topologyWatch = new CoordinatorClient(config.topology().coordinators());
        this.mover = new MoverService(server::isLeader, config.rebalancer().moverSettings());
        StoreThrottle archiveThrottle = null;
        if (config.archive().enabled()) {
            ArchiveMoveIo io = archiveMoveIo(config, nodeId);
            archiveThrottle = io.throttle();
            mover.withArchiveIo(io);
        }
        this.doubledAdmin = new DoubledAdmin(mover);
        this.members = new MemberReconciler(server::isLeader, topologyWatch);
        this.settings = new LiveSettingsFollower(nodeId, config, topologyWatch, mover, archiveThrottle);
    }

    /**
     * The coordinator's handle on the archive tier's store: moves of archived buckets copy objects
     * between replicaset prefixes (server-side) and check them (HEAD); no bucket data comes here.
     */
    private static ArchiveMoveIo archiveMoveIo(ClusterConfig config, String nodeId) {
        var archive = config.archive();
        var store = new ThrottledObjectStore(archive.open(config.dataDir()), StoreThrottle.system(archive.rates()));
        return new ArchiveMoveIo(store, config.nodeDir(nodeId).resolve("archive-staging"), archive::replicasetPrefix, 2);
    }

    /** Asks the replicaset's leader what it still holds; the coordinator refuses its removal unless nothing. */
    static List<String> removalFindings(ReplicasetSpec rs) {
        try (StorageAdmin admin = new StorageAdmin(rs, Duration.ofSeconds(5))) {
            int held = admin.stats().heldBuckets();
            return held == 0 ? List.of() : List.of("replicaset '" + rs.id() + "' still holds " + held
                    + " buckets (data or moves in flight); wait until the drain is done (cairn status)");
        } catch (CairnException e) {
            return List.of("could not confirm that replicaset '" + rs.id() + "' holds no buckets: " + e.getMessage());
        }
    }

    public CoordinatorProcess start() throws IOException {
        server.start();
        admin = new AdminServer(self.host(), self.adminPort(), this::info, () -> true, adminAccess).start();
        Gauge.builder("cairn_coordinator_leader", server, s -> s.isLeader() ? 1 : 0)
                .description("1 when this coordinator node is the Raft leader").register(admin.registry());
        RebalancerMetrics.register(admin.registry(), mover);
        AlertMetrics.register(admin.registry(), mover::alerts, "DOUBLED_BUCKETS", "MISSING_BUCKETS",
                Mover.STALLED_MOVE, AlertMetrics.REPLICASET_UNREACHABLE);
        admin.route("/moves/", this::moveRequest);
        admin.route("/buckets/", this::bucketRequest);
        admin.route("/doubled", doubledAdmin::list);
        admin.route("/rebalancer", ex -> AdminServer.sendJson(ex, 200, mover.progress()));
        admin.route("/settings", settings::request);
        topologyWatch.watch(state -> {
            if (state.topology() == null) return;
            mover.setTopology(state.topology());
            mover.setBootstrapComplete(state.topology().replicasets().stream()
                    .allMatch(rs -> state.bootstrappedReplicasets().contains(rs.id())));
        });
        admin.route("/alerts", ex -> AdminServer.sendJson(ex, 200, mover.alerts()));
        mover.start();
        members.start();
        settings.start();
        return this;
    }

    public boolean isLeader() {
        return server.isLeader();
    }

    /** Per replicaset, what its membership waits for or last did (empty when every group matches the topology). */
    public Map<String, String> membership() {
        return members.status();
    }

    public MoverService mover() {
        return mover;
    }

    /** GET /buckets/{id} (every replicaset's record), POST /buckets/{id}/pin or /unpin; resolve and export go to {@link DoubledAdmin}. */
    private void bucketRequest(HttpExchange ex) throws IOException {
        String[] parts = ex.getRequestURI().getPath().split("/");
        int bucket;
        try {
            bucket = parts.length >= 3 ? Integer.parseInt(parts[2]) : -1;
        } catch (NumberFormatException e) {
            bucket = -1;
        }
        if (bucket >= 1 && parts.length == 4 && parts[3].equals("resolve")) {
            doubledAdmin.resolve(ex, bucket);
            return;
        }
        if (bucket >= 1 && parts.length == 4 && parts[3].equals("export")) {
            doubledAdmin.export(ex, bucket);
            return;
        }
        boolean show = parts.length == 3 && "GET".equals(ex.getRequestMethod());
        boolean pin = parts.length == 4 && "POST".equals(ex.getRequestMethod()) && (parts[3].equals("pin") || parts[3].equals("unpin"));
        if (bucket < 1 || !(show || pin)) {
            AdminServer.send(ex, 400, "text/plain", "use GET /buckets/<id> or POST /buckets/<id>/pin|unpin\n");
            return;
        }
        try {
            Object answer = show ? describe(mover.locate(bucket).join()) : mover.pin(bucket, parts[3].equals("pin")).join();
            if (answer == null) AdminServer.send(ex, 409, "text/plain", "this coordinator is not the leader; ask the leader\n");
            else if (show) AdminServer.sendJson(ex, 200, answer);
            else AdminServer.send(ex, answer.toString().startsWith("refused") ? 409 : 200, "text/plain", answer + "\n");
        } catch (CompletionException e) {
            AdminServer.send(ex, 503, "text/plain", "no answer from the replicasets: " + e.getCause() + "\n");
        }
    }

    /** Records as one line of text per replicaset (what `cairn bucket show` prints); null stays null. */
    private static Map<String, String> describe(Map<String, BucketRecord> records) {
        if (records == null) return null;
        Map<String, String> out = new LinkedHashMap<>();
        records.forEach((rs, r) -> out.put(rs, r == null ? "NO ANSWER" : r.state() + " generation " + r.generation()
                + (r.isCopying() ? " (being copied ahead of its move)" : "") + (r.isArchived() ? " (archived)" : "")
                + (r.has(BucketRecord.FLAG_ARCHIVING) ? " (being archived)" : "") + (r.peer().isEmpty() ? "" : " peer " + r.peer())));
        return out;
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
        Map<String, BucketRecord> where;
        try {
            where = mover.locate(bucket).join();
        } catch (CompletionException e) {
            where = Map.of();
        }
        if (where != null) {
            BucketRecord atDestination = where.get(to);
            if (atDestination != null && atDestination.state().servesWrites()) {
                AdminServer.send(ex, 409, "text/plain", "bucket " + bucket + " is already on " + to + "\n");
                return;
            }
            for (var e : where.entrySet()) {
                if (e.getValue() != null && e.getValue().state() == BucketState.PINNED) {
                    AdminServer.send(ex, 409, "text/plain", "bucket " + bucket + " is PINNED on " + e.getKey()
                            + "; unpin it first (cairn bucket unpin " + bucket + ")\n");
                    return;
                }
            }
        }
        boolean queued;
        try {
            queued = mover.requestMove(bucket, to);
        } catch (IllegalArgumentException e) {
            AdminServer.send(ex, 404, "text/plain", e.getMessage() + "\n");
            return;
        } catch (IllegalStateException e) {
            AdminServer.send(ex, 503, "text/plain", e.getMessage() + "\n");
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
        info.put("membership", members.status());
        return info;
    }

    @Override
    public void close() {
        settings.close();
        members.close();
        mover.close();
        topologyWatch.close();
        if (admin != null) admin.close();
        server.close();
    }
}
