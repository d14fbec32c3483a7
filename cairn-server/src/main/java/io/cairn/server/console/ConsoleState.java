package io.cairn.server.console;

import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.RouterSpec;
import io.cairn.core.topology.Topology;
import io.cairn.router.Router;
import io.cairn.server.admin.AdminHttps;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * What the web console shows, gathered by the router in one place so the page needs one call a
 * second ({@code /console/api/state}) and the router's work does not grow with the number of open
 * consoles: one refresher thread, once a second, and only while some console asked within the
 * last {@link #WATCHED_MS} (an unwatched router probes nobody). A refresh asks every storage node,
 * coordinator and router for its {@code /info} in the background ({@link ProcessWatch}: at most one
 * probe per process in flight), reads the router's routes into the {@link BucketMap} (O(bucket
 * count)) and samples its traffic counters. Pages get the last refresh; neither they nor the
 * refresh ever wait for a slow or dead node.
 */
final class ConsoleState implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConsoleState.class);
    static final long REFRESH_MS = 1_000;
    /** Refreshes stop this long after the last request (the page polls every second). */
    static final long WATCHED_MS = 15_000;
    /** The first request waits this long for the first refresh; later ones never wait. */
    private static final long FIRST_REFRESH_WAIT_MS = 5_000;
    /** The first refresh waits this long for the processes' first answers; later ones use what has arrived. */
    private static final long FIRST_PROBES_WAIT_MS = 3_000;

    private final Router router;
    private final String routerId;
    private final Supplier<List<String>> routerAlerts;
    private final ClusterProbe probe = new ClusterProbe();
    private final ProcessWatch watch = new ProcessWatch(probe);
    private final TrafficHistory traffic = new TrafficHistory();
    private final ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "cairn-console-refresh");
        t.setDaemon(true);
        return t;
    });
    private final CompletableFuture<Void> firstRefresh = new CompletableFuture<>();
    private volatile long lastRequestMs;
    private volatile boolean started;
    private volatile Map<String, Object> state = Map.of();
    private volatile BucketMap bucketMap;
    /** The coordinator leader's admin URL at the last refresh (null: none answered), for one bucket's records. */
    private volatile String coordinatorLeader;
    private volatile List<Map<String, Object>> moves = List.of();
    private final AtomicLong refreshes = new AtomicLong();

    ConsoleState(Router router, String routerId, Supplier<List<String>> routerAlerts) {
        this.router = router;
        this.routerId = routerId;
        this.routerAlerts = routerAlerts;
    }

    /** The last refresh; marks the console as watched (starting the refresher on first use). */
    Map<String, Object> state() {
        watched();
        return state;
    }

    BucketMap bucketMap() {
        watched();
        return bucketMap;
    }

    String coordinatorLeader() {
        return coordinatorLeader;
    }

    List<Map<String, Object>> moves() {
        return moves;
    }

    /** Refreshes done so far: about one a second while watched, however many consoles are open. */
    long refreshes() {
        return refreshes.get();
    }

    Router router() {
        return router;
    }

    ClusterProbe probe() {
        return probe;
    }

    private void watched() {
        lastRequestMs = System.currentTimeMillis();
        if (!started) startRefresher();
        try {
            firstRefresh.get(FIRST_REFRESH_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (Exception notYet) {
            // answer with what there is: an empty state says so ("refreshing")
        }
    }

    private synchronized void startRefresher() {
        if (started) return;
        started = true;
        refresher.scheduleWithFixedDelay(() -> {
            if (System.currentTimeMillis() - lastRequestMs > WATCHED_MS) return;
            try {
                refresh();
            } catch (RuntimeException e) {
                log.warn("console refresh failed: {}", e.toString());
            } finally {
                firstRefresh.complete(null);
            }
        }, 0, REFRESH_MS, TimeUnit.MILLISECONDS);
    }

    /** Refresher thread: one round of probes, the bucket map and a traffic sample. */
    private void refresh() {
        long startNs = System.nanoTime();
        Topology topology = router.topology();
        Map<String, Map<String, Object>> infos = probeProcesses(topology);
        Map<String, Object> rebalancer = readRebalancer(topology, infos);
        long mapStartNs = System.nanoTime();
        BucketMap map = readMap(topology);
        long mapMs = (System.nanoTime() - mapStartNs) / 1_000_000;
        long now = System.currentTimeMillis();
        traffic.sample(router.traffic(), now);

        Map<String, Object> s = new LinkedHashMap<>();
        s.put("at", now);
        s.put("router", routerId);
        s.put("epoch", topology.epoch());
        s.put("bucketCount", topology.bucketCount());
        s.put("unknownBuckets", map.unknown());
        s.put("mapVersion", Long.toString(map.version()));
        s.put("owners", map.owners());
        s.put("replicasets", ConsoleTopology.replicasets(topology, infos, rebalancer, map.counts()));
        s.put("coordinators", ConsoleTopology.processes(topology.coordinators().stream().map(NodeAddress::id).toList(), infos, routerId));
        s.put("routers", ConsoleTopology.processes(topology.routers().stream().map(RouterSpec::id).toList(), infos, routerId));
        s.put("rebalancer", rebalancer);
        s.put("alerts", ConsoleAlerts.gather(topology, infos, rebalancer, routerId, routerAlerts.get()));
        s.put("traffic", traffic.columns());
        s.put("refreshMs", (System.nanoTime() - startNs) / 1_000_000);
        s.put("mapMs", mapMs);
        bucketMap = map;
        state = s;
        refreshes.incrementAndGet();
    }

    private record AdminAddress(String host, int port) {}

    /**
     * Every other process's last {@code /info} while it counts as up (null: down). Probes run in the
     * background ({@link ProcessWatch}): this reads what they have answered so far and never waits for
     * one, except on the first refresh.
     */
    private Map<String, Map<String, Object>> probeProcesses(Topology topology) {
        Map<String, AdminAddress> processes = new LinkedHashMap<>();
        for (ReplicasetSpec rs : topology.replicasets()) for (NodeAddress n : rs.nodes()) processes.put(n.id(), new AdminAddress(n.host(), n.adminPort()));
        for (NodeAddress c : topology.coordinators()) processes.put(c.id(), new AdminAddress(c.host(), c.adminPort()));
        for (RouterSpec r : topology.routers()) if (!r.id().equals(routerId)) processes.put(r.id(), new AdminAddress(r.host(), r.adminPort()));
        watch.retain(processes.keySet());
        List<CompletableFuture<?>> probes = new ArrayList<>();
        processes.forEach((id, where) -> probes.add(watch.probe(id, where.host(), where.port())));
        if (refreshes.get() == 0) awaitFirstAnswers(probes); // else a console opened now would show every process down for a second
        long now = System.currentTimeMillis();
        Map<String, Map<String, Object>> infos = new LinkedHashMap<>();
        processes.keySet().forEach(id -> infos.put(id, watch.upInfo(id, now)));
        return infos;
    }

    /** The coordinator leader's rebalancer progress ({"running": false} when none answers as leader); remembers the leader and its moves. */
    private Map<String, Object> readRebalancer(Topology topology, Map<String, Map<String, Object>> infos) {
        Map<String, Object> rebalancer = Map.of("running", false);
        String leaderUrl = null;
        for (NodeAddress c : topology.coordinators()) {
            Map<String, Object> i = infos.get(c.id());
            if (i != null && Boolean.TRUE.equals(i.get("leader")) && i.get("rebalancer") instanceof Map<?, ?> r) {
                @SuppressWarnings("unchecked") Map<String, Object> progress = (Map<String, Object>) r;
                rebalancer = progress;
                leaderUrl = AdminHttps.base(c.host(), c.adminPort());
            }
        }
        coordinatorLeader = leaderUrl;
        moves = listedMoves(rebalancer);
        return rebalancer;
    }

    /** The router's routes with the marks of the moves in flight and of suspected or contained doubled buckets. */
    private BucketMap readMap(Topology topology) {
        BitSet moving = new BitSet();
        moves.forEach(m -> moving.set(((Number) m.get("bucket")).intValue()));
        BitSet doubled = new BitSet();
        router.suspectedBuckets().forEach(doubled::set);
        router.doubledBuckets().keySet().forEach(doubled::set);
        return BucketMap.of(router, topology.replicasets().stream().map(ReplicasetSpec::id).toList(), moving, doubled);
    }

    private static void awaitFirstAnswers(List<CompletableFuture<?>> probes) {
        try {
            CompletableFuture.allOf(probes.toArray(CompletableFuture[]::new)).get(FIRST_PROBES_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (Exception slow) {
            // a process that has not answered by now is shown as down until it does
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> listedMoves(Map<String, Object> rebalancer) {
        if (!(rebalancer.get("moves") instanceof List<?> l)) return List.of();
        List<Map<String, Object>> out = new ArrayList<>();
        for (Object o : l) if (o instanceof Map<?, ?> m && m.get("bucket") instanceof Number) out.add((Map<String, Object>) m);
        return out;
    }

    @Override
    public void close() {
        refresher.shutdownNow();
    }
}
