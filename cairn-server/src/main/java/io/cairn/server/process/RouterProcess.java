package io.cairn.server.process;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.topology.RouterSpec;
import io.cairn.core.topology.Topology;
import io.cairn.router.DiscoveryStats;
import io.cairn.router.Router;
import io.cairn.router.resp.ClientLimit;
import io.cairn.router.resp.ClientMetrics;
import io.cairn.router.resp.RespAuth;
import io.cairn.router.resp.RespConfig;
import io.cairn.router.resp.RespServer;
import io.cairn.router.resp.RespTls;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.admin.AlertMetrics;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.console.ConsoleRoutes;
import io.cairn.server.control.LiveSettings;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.EventLoopGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;

/** A router: the embeddable {@link Router}, its RESP listener, admin endpoint and coordinator watch. */
public final class RouterProcess implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RouterProcess.class);
    private final RouterSpec self;
    private final ClusterConfig config;
    private final CoordinatorClient coordinator;
    private final LocalTopologies topologies;
    private volatile Router router;
    private final EventLoopGroup ioLoops;
    private final boolean ownsLoops;
    private volatile RespServer resp;
    private volatile AdminServer admin;
    private volatile ConsoleRoutes console;
    private volatile AclFollower acl;

    public RouterProcess(ClusterConfig config, String routerId) {
        this(config, routerId, null);
    }

    /** @param ioLoops event loops shared with the rest of this JVM (a local cluster); null: the process makes its own */
    RouterProcess(ClusterConfig config, String routerId, EventLoopGroup ioLoops) {
        this.ownsLoops = ioLoops == null;
        this.ioLoops = ownsLoops ? IoLoops.create(RespConfig.DEFAULT_EVENT_LOOP_THREADS) : ioLoops;
        this.self = Nodes.router(config, routerId);
        this.config = config;
        this.coordinator = new CoordinatorClient(config.topology().coordinators());
        this.topologies = new LocalTopologies(config.nodeDir(routerId));
    }

    /**
     * Starts the router. Its admin port answers at once; the rest waits for a coordinator (in any
     * start order: {@code /health} says "waiting for a coordinator" meanwhile, and one line is logged
     * when the wait begins and one when it ends).
     */
    public RouterProcess start() throws IOException {
        admin = new AdminServer(self.host(), self.adminPort(), this::info, () -> router != null && router.unknownBuckets() == 0, config.security().adminAccess()).start();
        admin.waitingFor(() -> router == null ? "a coordinator (" + config.topology().coordinators().size() + " configured)" : null);
        Topology topology = awaitCoordinator();
        router = new Router(topology, config.router().routerConfig(), ioLoops);
        router.setDoubledVerification(config.router().verifyDoubled());
        router.start();
        router.refreshTopologyFrom(() -> coordinator.get().topology());
        coordinator.watch(s -> {
            if (s.topology() == null) return;
            topologies.record(s.topology());
            router.updateTopology(s.topology());
            if (admin != null) s.topology().replicasets().forEach(rs -> registerReplicasetMetrics(admin.registry(), rs.id()));
        });
        RespAuth auth = config.security().respAuth();
        Router started = router;
        acl = new AclFollower(self.id(), coordinator, auth, values -> followDiscoveryInterval(started, values)).start();
        RespTls tls = config.security().respTls(config.source().getParent());
        resp = new RespServer(router, config.router().respConfig(self.host(), self.respPort()), ioLoops, auth).tls(tls).start();
        if (tls != null) log.info("RESP port of router {} speaks TLS only (security.tlsCertFile)", self.id());
        if (resp.auth().required()) log.info("RESP clients of router {} must authenticate (security.requirepass is set)", self.id());
        admin.route("/alerts", ex -> AdminServer.sendJson(ex, 200, alerts()));
        console = ConsoleRoutes.install(admin, router, self.id(), this::alerts); // the web console (docs/console.md)
        registerMetrics(admin.registry());
        return this;
    }

    /**
     * The coordinator's topology once one answers (it stores the config's topology if it has none),
     * retried with backoff; or, when none answers at first, the newest topology this router kept
     * ({@link LocalTopologies}) so that a restart while the coordinators are down still serves (its
     * watch takes newer epochs once one answers).
     */
    private Topology awaitCoordinator() {
        // a short call deadline, so that the wait is logged at once rather than after the default one
        try (CoordinatorClient probe = new CoordinatorClient(config.topology().coordinators(), "router " + self.id(), Duration.ofSeconds(2))) {
            Topology t = CoordinatorWait.answer(log, "router " + self.id() + " waits for a coordinator (/health says so meanwhile)",
                    () -> probe.init(config.topology()).topology(), () -> {
                        Optional<Topology> kept = topologies.latest();
                        kept.ifPresent(k -> log.info("router {} starts with the last topology it knew (epoch {}): no coordinator answers yet",
                                self.id(), k.epoch()));
                        return kept;
                    });
            topologies.record(t);
            return t;
        }
    }

    private List<String> alerts() {
        List<String> alerts = new ArrayList<>();
        int unknown = router.unknownBuckets();
        if (unknown > 0) alerts.add("UNKNOWN_BUCKETS: " + unknown + " buckets have no known owner");
        var suspected = router.suspectedBuckets();
        if (!suspected.isEmpty()) {
            alerts.add("SUSPECTED_DOUBLED_BUCKETS: " + suspected.size() + " buckets claimed by two replicasets, first "
                    + suspected.stream().limit(20).toList());
        }
        String doubled = DoubledAlerts.router(router.doubledBuckets());
        if (doubled != null) alerts.add(doubled);
        return alerts;
    }

    public Router router() {
        return router;
    }

    /** The web console on the admin port (null before the router started). */
    public ConsoleRoutes console() {
        return console;
    }

    /** `cairn config set router.discoveryIntervalMs=...`: the stored value (or the file's once dropped), read with the ACL users. */
    private void followDiscoveryInterval(Router r, Map<String, String> settings) {
        try {
            r.discoveryInterval(Duration.ofMillis(LiveSettings.discoveryIntervalMs(config, settings)));
        } catch (IllegalArgumentException e) {
            log.warn("router {}: run-time discovery interval ignored: {}", self.id(), e.getMessage());
        }
    }

    public AdminServer admin() {
        return admin;
    }

    public int respPort() {
        return resp.port();
    }

    private void registerMetrics(MeterRegistry r) {
        AlertMetrics.register(r, this::alerts, "UNKNOWN_BUCKETS", "SUSPECTED_DOUBLED_BUCKETS", "DOUBLED_BUCKETS");
        FunctionCounter.builder("cairn_router_requests", router, Router::requests)
                .description("key-value requests received").register(r);
        FunctionCounter.builder("cairn_router_stale_epoch_bounces", router, Router::staleEpochBounces)
                .description("requests a storage node refused because this router's topology epoch was older (each refreshes the topology)")
                .register(r);
        FunctionCounter.builder("cairn_router_retries", router, Router::retries)
                .description("retries after wrong-owner, locked-bucket or unknown-owner answers").register(r);
        Gauge.builder("cairn_router_unknown_buckets", router, Router::unknownBuckets)
                .description("buckets with no known owner (UNKNOWN_BUCKETS alert while > 0)").register(r);
        Gauge.builder("cairn_router_epoch", router, x -> x.topology().epoch()).description("topology epoch this router routes by").register(r);
        Gauge.builder("cairn_router_suspected_buckets", router, x -> x.suspectedBuckets().size())
                .description("buckets two replicasets claim as writable (SUSPECTED_DOUBLED_BUCKETS alert while > 0)").register(r);
        Gauge.builder("cairn_router_doubled_buckets", router, x -> x.doubledBuckets().size())
                .description("buckets with a contained doubled copy (DOUBLED_BUCKETS alert while > 0)").register(r);
        FunctionCounter.builder("cairn_router_doubled_verify_requests", router, Router::doubledVerifyRequests)
                .description("Verify requests sent to replicaset leaders about suspected buckets").register(r);
        FunctionCounter.builder("cairn_router_queue_full_refusals", router, Router::queueFullRefusals)
                .description("commands' operations refused with QUEUE_FULL: a replicaset's group-commit queue was full").register(r);
        Gauge.builder("cairn_router_dataplane_unsent_bytes", router, Router::dataPlaneUnsentBytes)
                .description("requests written to storage members' connections and not yet taken (at most 4 MB and one request per connection)").register(r);
        FunctionCounter.builder("cairn_router_dataplane_deferred_attempts", router, Router::dataPlaneDeferredAttempts)
                .description("requests that waited because their connection to a storage member held 4 MB unsent (the member not reading)").register(r);
        registerClientMetrics(r, resp.clientMetrics(), resp.auth());
        for (var rs : router.topology().replicasets()) registerReplicasetMetrics(r, rs.id());
    }

    /** RESP clients: connections, their buffers, and the connections each limit closed or refused (issue 28). */
    private static void registerClientMetrics(MeterRegistry r, ClientMetrics clients, RespAuth auth) {
        Gauge.builder("cairn_router_connected_clients", clients, ClientMetrics::connectedClients)
                .description("open RESP connections").register(r);
        Gauge.builder("cairn_router_client_query_buffer_bytes", clients, ClientMetrics::queryBufferBytes)
                .description("unprocessed input held for all RESP clients (qbuf, summed)").register(r);
        Gauge.builder("cairn_router_client_output_buffer_bytes", clients, ClientMetrics::outputBufferBytes)
                .description("replies queued for all RESP clients' sockets (omem, summed)").register(r);
        FunctionCounter.builder("cairn_router_connections_refused", clients, ClientMetrics::refusedConnections)
                .description("RESP connections refused because maxClients were open").register(r);
        FunctionCounter.builder("cairn_router_auth_failures", clients, c -> auth.failures())
                .description("failed RESP AUTH attempts (wrong user or password)").register(r);
        FunctionCounter.builder("cairn_router_auth_rate_limited", clients, c -> auth.refusedByLimit())
                .description("RESP AUTH attempts refused unchecked: their client address failed security.authMaxFailures times in the window").register(r);
        FunctionCounter.builder("cairn_router_acl_denied", clients, c -> auth.deniedCommands()).tag("reason", "command")
                .description("RESP commands refused with NOPERM: the user's rules do not allow the command").register(r);
        FunctionCounter.builder("cairn_router_acl_denied", clients, c -> auth.deniedKeys()).tag("reason", "key")
                .description("RESP commands refused with NOPERM: a key outside the user's key patterns").register(r);
        for (ClientLimit limit : ClientLimit.values()) {
            FunctionCounter.builder("cairn_router_clients_disconnected", clients, c -> c.disconnected(limit))
                    .tag("limit", limit.tag()).description("RESP connections closed by a client limit").register(r);
        }
    }

    private final Set<String> metered = ConcurrentHashMap.newKeySet();

    /** Per-replicaset meters, registered once per replicaset (also for ones added by a later epoch). */
    private void registerReplicasetMetrics(MeterRegistry r, String rs) {
        if (!metered.add(rs)) return;
        Gauge.builder("cairn_router_buckets", router, x -> x.bucketsByReplicaset().getOrDefault(rs, 0))
                .tag("replicaset", rs).description("buckets routed to the replicaset").register(r);
        discoveryCounter(r, rs, "cairn_router_discovery_rounds", DiscoveryStats::rounds, "discovery rounds");
        discoveryCounter(r, rs, "cairn_router_discovery_records", DiscoveryStats::records, "bucket records received by discovery");
        discoveryCounter(r, rs, "cairn_router_discovery_resyncs", DiscoveryStats::resyncs,
                "full resyncs (new incarnation, cursor behind the horizon, or restored history)");
        discoveryCounter(r, rs, "cairn_router_discovery_requests", DiscoveryStats::requests, "discovery requests (pages)");
        discoveryCounter(r, rs, "cairn_router_discovery_bytes", DiscoveryStats::bytes, "bytes of discovery answers");
        Gauge.builder("cairn_router_discovery_cursor_bsn", router, x -> discoveryStat(x, rs, DiscoveryStats::cursor))
                .tag("replicaset", rs).description("last BSN this router has seen from the replicaset").register(r);
        Gauge.builder("cairn_router_discovery_cursor_lag", router, x -> discoveryStat(x, rs, DiscoveryStats::lag))
                .tag("replicaset", rs).description("BSNs the replicaset had handed out beyond this router's cursor at its last answer").register(r);
    }

    private void discoveryCounter(MeterRegistry r, String rs, String name, ToLongFunction<DiscoveryStats> field, String description) {
        FunctionCounter.builder(name, router, x -> discoveryStat(x, rs, field)).tag("replicaset", rs).description(description).register(r);
    }

    private static double discoveryStat(Router router, String rs, ToLongFunction<DiscoveryStats> field) {
        DiscoveryStats s = router.discoveryCounters().get(rs);
        return s == null ? 0 : field.applyAsLong(s);
    }

    private Map<String, Object> info() {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("role", "router");
        info.put("node", self.id());
        if (router == null || resp == null) {
            info.put("waitingFor", "a coordinator");
            return info;
        }
        info.put("resp", self.host() + ":" + resp.port());
        info.put("epoch", router.topology().epoch());
        info.put("bucketCount", router.bucketCount());
        info.put("unknownBuckets", router.unknownBuckets());
        info.put("bucketsByReplicaset", router.bucketsByReplicaset());
        info.put("leaders", router.leaderHints());
        info.put("requests", router.requests());
        info.put("retries", router.retries());
        info.put("alerts", alerts());
        return info;
    }

    @Override
    public void close() {
        if (resp != null) resp.close();
        if (console != null) console.close();
        if (acl != null) acl.close();
        if (admin != null) admin.close();
        coordinator.close();
        if (router != null) router.close();
        if (ownsLoops) IoLoops.shutdown(ioLoops);
    }
}
