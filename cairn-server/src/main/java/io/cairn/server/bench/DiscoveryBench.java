package io.cairn.server.bench;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.router.DiscoveryStats;
import io.cairn.router.Router;
import io.cairn.router.RouterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.Ports;
import io.cairn.server.process.StorageProcess;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * {@code cairn bench discovery}: what discovery costs a router (design 001, incremental
 * discovery). For each bucket count it starts a cluster in this JVM, then fresh embedded
 * {@link Router}s (built as {@code RouterProcess} builds them) and measures
 * <ol>
 *   <li>the first full discovery: time until every bucket has a known owner, requests, bytes;</li>
 *   <li>the idle cost: requests and bytes per minute while nothing changes, and requests per
 *       replicaset per discovery interval (the aim is one, whatever the bucket count);</li>
 *   <li>the cost while a share of the buckets moves (a weight change drives the rebalancer), per
 *       minute and per moved bucket.</li>
 * </ol>
 * Figures come from the router's own discovery counters ({@link Router#discoveryCounters()}), so
 * the cluster's own router and the rebalancer's traffic are not counted.
 */
public final class DiscoveryBench {
    /**
     * @param discoveryRuns fresh routers timed per bucket count: the first is reported as cold (JIT not
     *                      warmed for pages of this size), the median of the others as warm; the last
     *                      router stays for the idle and moving phases
     * @param timeout       bound on the waits for the cluster's bootstrap and for the moves (a first
     *                      discovery has its own bound, {@link #DISCOVERY_TIMEOUT})
     */
    public record Options(List<Integer> bucketCounts, int replicasets, int replicas, Duration idle, double movePercent,
                          int discoveryRuns, Duration timeout) {
        public Options {
            bucketCounts = List.copyOf(bucketCounts);
            if (bucketCounts.isEmpty()) throw new IllegalArgumentException("give at least one bucket count");
            if (replicasets < 2 || replicasets * replicas > 40) throw new IllegalArgumentException("replicasets must be 2.. (at most 40 nodes in all)");
            if (movePercent <= 0 || movePercent > 50) throw new IllegalArgumentException("move-percent must be in (0, 50]");
            if (discoveryRuns < 1 || idle.isNegative() || idle.isZero()) throw new IllegalArgumentException("discovery runs and idle time must be positive");
        }
    }

    /** One bucket count's figures; {@code firstCost}, {@code idle} and {@code moving} are counter differences. */
    record Row(int buckets, double coldMillis, double warmMillis, DiscoveryCounters firstCost, DiscoveryCounters idle,
               double requestsPerReplicasetPerInterval, int moved, double moveSeconds, DiscoveryCounters moving, boolean viewMatches,
               double loadAverage) {}

    /** Moves run with these concurrency limits (the faster setting of the moves bench). */
    private static final Map<String, Object> REBALANCER = Map.of("thresholdPercent", 0.0, "maxSendingPerReplicaset", 16,
            "maxReceivingPerReplicaset", 32, "maxMovesPerRound", 128);
    private static final long PROGRESS_POLL_MS = 50;
    /** A first discovery slower than this counts as stalled (even 300,000 buckets take seconds). */
    private static final Duration DISCOVERY_TIMEOUT = Duration.ofSeconds(60);
    private static final int MAX_STALLS = 3;

    private DiscoveryBench() {}

    /** Runs every bucket count under {@code dir} (a temporary folder, deleted afterwards, when null). */
    public static void run(Options o, Path dir) throws Exception {
        Path root = dir != null ? dir : Files.createTempDirectory("cairn-bench-discovery");
        System.out.printf("discovery bench: %d replicasets x %d replica(s) each%s, one JVM on loopback; idle window %d s; %s%% of buckets move%n",
                o.replicasets(), o.replicas(), o.replicas() == 1 ? " (1 replica keeps a 2-core machine usable)" : "",
                o.idle().toSeconds(), o.movePercent());
        List<Row> rows = new ArrayList<>();
        try {
            for (int buckets : o.bucketCounts()) rows.add(measure(o, buckets, root.resolve("buckets-" + buckets)));
        } finally {
            if (!rows.isEmpty()) report(rows);
            if (dir == null) deleteTree(root);
        }
    }

    private static Row measure(Options o, int buckets, Path dir) throws Exception {
        System.out.printf("%n== %,d buckets ==%n", buckets);
        ClusterConfig config = prepare(o, buckets, dir);
        RouterConfig routerConfig = config.router().routerConfig();
        Router router = null;
        long start = System.nanoTime();
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            // Readiness from the storages, not from the cluster's own router: that router starts
            // before the storages and its discovery can stall (see the stall count below).
            if (!awaitBootstrapped(cluster, buckets, o.timeout())) throw new IllegalStateException("cluster of " + buckets + " buckets not bootstrapped within " + o.timeout());
            System.out.printf("cluster bootstrapped in %.1f s%n", (System.nanoTime() - start) / 1e9);
            Topology topology = currentTopology(config);

            First first = firstDiscoveries(topology, routerConfig, buckets, o.discoveryRuns());
            router = first.router();
            System.out.printf("the cluster's own router (started with the storages) knows %,d of %,d buckets%n",
                    buckets - cluster.router().router().unknownBuckets(), buckets);

            DiscoveryCounters before = DiscoveryCounters.of(router);
            Thread.sleep(o.idle().toMillis()); // the measurement window itself
            DiscoveryCounters idle = DiscoveryCounters.of(router).since(before);
            double intervals = idle.seconds() / (routerConfig.discoveryInterval().toMillis() / 1000.0);
            double perReplicasetPerInterval = idle.requests() / (double) topology.replicasets().size() / intervals;
            System.out.printf("idle %.1f s: %,d requests, %,d bytes (%.1f bytes each) = %.1f requests/min, %,.0f bytes/min; "
                            + "%.2f requests per replicaset per %d ms interval%n",
                    idle.seconds(), idle.requests(), idle.bytes(), idle.requests() == 0 ? 0.0 : (double) idle.bytes() / idle.requests(),
                    idle.requestsPerMinute(), idle.bytesPerMinute(), perReplicasetPerInterval, routerConfig.discoveryInterval().toMillis());

            int toMove = (int) Math.max(1, Math.round(buckets * o.movePercent() / 100));
            Moved m = moveBuckets(cluster, config, router, toMove, routerConfig.discoveryInterval(), o.timeout());
            return new Row(buckets, first.coldMillis(), first.warmMillis(), first.cost(), idle, perReplicasetPerInterval, m.moved, m.seconds, m.cost,
                    m.viewMatches, loadAverage());
        } finally {
            if (router != null) router.close();
        }
    }

    /** The figures of the first discoveries, and the last router, kept running for the next phases. */
    private record First(double coldMillis, double warmMillis, DiscoveryCounters cost, Router router) {}

    /**
     * Starts {@code runs} new routers one after another, each timed from construction until it
     * knows every bucket. A router that stalls is closed, reported and replaced (a few times at most).
     */
    private static First firstDiscoveries(Topology topology, RouterConfig routerConfig, int buckets, int runs) throws InterruptedException {
        List<Double> millis = new ArrayList<>();
        DiscoveryCounters cost = null;
        Router router = null;
        int stalled = 0;
        try {
            while (millis.size() < runs) {
                if (router != null) router.close();
                long t0 = System.nanoTime();
                router = new Router(topology, routerConfig).start();
                if (!router.awaitRoutes(DISCOVERY_TIMEOUT)) {
                    stalled++;
                    System.out.printf("STALLED: a new router still has %,d unknown buckets after %d s; counters %s%n",
                            router.unknownBuckets(), DISCOVERY_TIMEOUT.toSeconds(), counters(router));
                    if (stalled > MAX_STALLS) throw new IllegalStateException("first discovery stalled " + stalled + " times");
                    continue;
                }
                millis.add((System.nanoTime() - t0) / 1e6);
                cost = DiscoveryCounters.of(router);
            }
        } catch (RuntimeException | InterruptedException e) {
            if (router != null) router.close();
            throw e;
        }
        double cold = millis.get(0);
        double warm = millis.size() == 1 ? cold : median(millis.subList(1, millis.size()));
        System.out.printf("first discovery of a new router: cold %.0f ms, warm %.0f ms (runs %s ms), %,d requests, %,d bytes (%.1f bytes per bucket), %,d records%s%n",
                cold, warm, rounded(millis), cost.requests(), cost.bytes(), (double) cost.bytes() / buckets, cost.records(),
                stalled == 0 ? "" : "; " + stalled + " more router(s) stalled and were replaced");
        return new First(cold, warm, cost, router);
    }

    private record Moved(int moved, double seconds, DiscoveryCounters cost, boolean viewMatches) {}

    /**
     * Moves {@code count} buckets from the fullest replicaset to the emptiest by giving every
     * replicaset a weight equal to its target bucket count (the rebalancer threshold is 0, so it
     * moves exactly that many). The window runs from the weight change until the rebalancer is
     * balanced again plus one discovery interval, so the router has had its chance to see the last
     * move. Moved buckets are counted from the router's map (owner before vs after).
     */
    private static Moved moveBuckets(LocalCluster cluster, ClusterConfig config, Router router, int count, Duration interval,
                                     Duration timeout) throws InterruptedException {
        Map<String, Integer> counts = new TreeMap<>(router.bucketsByReplicaset());
        String from = counts.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        String to = counts.entrySet().stream().filter(e -> !e.getKey().equals(from))
                .min(Map.Entry.comparingByValue()).orElseThrow().getKey();
        Map<String, Integer> targets = new TreeMap<>(counts);
        targets.merge(from, -count, Integer::sum);
        targets.merge(to, count, Integer::sum);
        String[] ownersBefore = owners(router);
        long counterBefore = number(cluster.coordinator().mover().progress().get("moved"));

        DiscoveryCounters before = DiscoveryCounters.of(router);
        long epoch = setWeights(config, targets);
        boolean balanced = awaitBalanced(cluster, epoch, timeout);
        double seconds = (System.nanoTime() - before.atNanos()) / 1e9;
        Thread.sleep(interval.toMillis()); // one more discovery interval belongs to the window
        DiscoveryCounters cost = DiscoveryCounters.of(router).since(before);
        boolean matches = awaitView(router, targets, interval.multipliedBy(10));
        int moved = changedOwners(ownersBefore, owners(router));
        long counted = number(cluster.coordinator().mover().progress().get("moved")) - counterBefore;
        System.out.printf("moving %,d buckets %s -> %s: %s in %.1f s, %,d buckets changed owner (%.1f/s; the rebalancer counted %,d moves)%n",
                count, from, to, balanced ? "balanced" : "NOT balanced before the timeout", seconds, moved, moved / seconds, counted);
        System.out.printf("  window %.1f s: %,d requests, %,d bytes, %,d records = %.1f requests/min, %,.0f bytes/min; "
                        + "per moved bucket %.2f requests, %,.0f bytes, %.1f records; router's map %s%n",
                cost.seconds(), cost.requests(), cost.bytes(), cost.records(), cost.requestsPerMinute(), cost.bytesPerMinute(),
                cost.requests() / (double) Math.max(1, moved), cost.bytes() / (double) Math.max(1, moved), cost.records() / (double) Math.max(1, moved),
                matches ? "matches the new layout" : "DOES NOT match the new layout: " + new TreeMap<>(router.bucketsByReplicaset()));
        return new Moved(moved, seconds, cost, matches);
    }

    /** The router's owner of every bucket (index = bucket id). */
    private static String[] owners(Router router) {
        String[] owners = new String[router.bucketCount() + 1];
        for (int b = 1; b < owners.length; b++) owners[b] = router.ownerOf(b);
        return owners;
    }

    private static int changedOwners(String[] before, String[] after) {
        int changed = 0;
        for (int b = 1; b < before.length; b++) if (!Objects.equals(before[b], after[b])) changed++;
        return changed;
    }

    private static long setWeights(ClusterConfig config, Map<String, Integer> weights) {
        try (CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
            Topology t = coordinator.get().topology();
            List<ReplicasetSpec> sets = new ArrayList<>();
            for (ReplicasetSpec rs : t.replicasets()) sets.add(new ReplicasetSpec(rs.id(), weights.getOrDefault(rs.id(), rs.weight()), rs.nodes()));
            Topology next = new Topology(t.epoch(), t.bucketCount(), t.coordinators(), sets, t.routers());
            return coordinator.propose(t.epoch(), next, false, "bench: move buckets for the discovery bench").topology().epoch();
        }
    }

    private static boolean awaitBalanced(LocalCluster cluster, long epoch, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long nextReport = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            Map<String, Object> p = cluster.coordinator().mover().progress();
            if (number(p.get("planEpoch")) >= epoch && Boolean.TRUE.equals(p.get("balanced"))) return true;
            if (System.nanoTime() >= nextReport) {
                System.out.printf("  %s to move, %s in flight, %s moved%n", p.get("bucketsToMove"), p.get("inFlight"), p.get("moved"));
                nextReport = System.nanoTime() + 10_000_000_000L;
            }
            Thread.sleep(PROGRESS_POLL_MS);
        }
        return false;
    }

    /** Waits (bounded) until the router routes exactly {@code targets} buckets to each replicaset. */
    private static boolean awaitView(Router router, Map<String, Integer> targets, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!targets.equals(new TreeMap<>(router.bucketsByReplicaset()))) {
            if (System.nanoTime() >= deadline) return false;
            Thread.sleep(PROGRESS_POLL_MS);
        }
        return true;
    }

    /** Waits (bounded) until the replicasets' leaders together own every bucket. */
    private static boolean awaitBootstrapped(LocalCluster cluster, int buckets, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            long owned = 0;
            for (ReplicasetSpec rs : cluster.config().topology().replicasets()) {
                int most = 0;
                for (NodeAddress n : rs.nodes()) {
                    StorageProcess p = cluster.storage(n.id());
                    if (p == null || !p.node().isLeader()) continue;
                    var stats = p.node().localStats();
                    if (stats.bootstrapped()) most = Math.max(most, stats.ownedBuckets());
                }
                owned += most;
            }
            if (owned == buckets) return true;
            Thread.sleep(PROGRESS_POLL_MS);
        }
        return false;
    }

    private static Map<String, DiscoveryStats> counters(Router router) {
        return new TreeMap<>(router.discoveryCounters());
    }

    private static Topology currentTopology(ClusterConfig config) {
        try (CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
            return coordinator.get().topology();
        }
    }

    private static ClusterConfig prepare(Options o, int buckets, Path dir) throws IOException {
        Files.createDirectories(dir);
        int ports = 12 + 3 * o.replicasets() * o.replicas();
        int base = Ports.freeRange(ports);
        Map<String, Object> tree = new LinkedHashMap<>(LocalCluster.configTree(
                new LocalCluster.Shape(o.replicasets(), o.replicas(), buckets, base + ports - 1, base)));
        tree.put("rebalancer", REBALANCER);
        Path file = dir.resolve(LocalCluster.CONFIG_FILE);
        ConfigLoader.write(file, tree);
        return ConfigLoader.load(file);
    }

    private static void report(List<Row> rows) {
        System.out.printf("%n| buckets | first discovery ms, cold / warm | first requests | first bytes | idle requests/min | idle bytes/min "
                + "| idle requests per replicaset per interval | moved | moving requests/min | moving bytes/min "
                + "| requests per moved bucket | bytes per moved bucket | load average |%n");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (Row r : rows) {
            System.out.printf("| %,d | %.0f / %.0f | %,d | %,d | %.1f | %,.0f | %.2f | %,d in %.0f s%s | %.1f | %,.0f | %.2f | %,.0f | %.1f |%n",
                    r.buckets(), r.coldMillis(), r.warmMillis(), r.firstCost().requests(), r.firstCost().bytes(), r.idle().requestsPerMinute(),
                    r.idle().bytesPerMinute(), r.requestsPerReplicasetPerInterval(), r.moved(), r.moveSeconds(), r.viewMatches() ? "" : " (router map wrong)",
                    r.moving().requestsPerMinute(), r.moving().bytesPerMinute(), r.moving().requests() / (double) Math.max(1, r.moved()),
                    r.moving().bytes() / (double) Math.max(1, r.moved()), r.loadAverage());
        }
        Row first = rows.get(0);
        for (Row r : rows.subList(1, rows.size())) {
            System.out.printf("idle cost %,d / %,d buckets: requests/min %s, bytes/min %s (first discovery: warm time %s, bytes %s)%n",
                    r.buckets(), first.buckets(), ratio(r.idle().requestsPerMinute(), first.idle().requestsPerMinute()),
                    ratio(r.idle().bytesPerMinute(), first.idle().bytesPerMinute()), ratio(r.warmMillis(), first.warmMillis()),
                    ratio(r.firstCost().bytes(), first.firstCost().bytes()));
        }
    }

    /** The machine's 1-minute load average: timings on a shared 2-core box mean little without it. */
    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static String ratio(double value, double base) {
        return base == 0 ? "n/a" : String.format("%.2fx", value / base);
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static List<Long> rounded(List<Double> values) {
        return values.stream().map(Math::round).toList();
    }

    private static long number(Object value) {
        return value instanceof Number n ? n.longValue() : 0;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (var walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
