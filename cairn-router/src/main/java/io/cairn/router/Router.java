package io.cairn.router;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.core.wire.StorageRequest;
import io.cairn.core.wire.StorageStats;
import io.netty.channel.EventLoopGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The embeddable router: sends each operation to the replicaset that owns its bucket, learns
 * owners by discovery, and hides moves and failovers from callers by retrying refusals that
 * guarantee nothing was applied (wrong owner, bucket locked, owner unknown) until the request
 * deadline. A failure whose outcome is unknown (a write that timed out inside Ratis) is
 * reported, never blindly retried, so a non-idempotent INCR is not applied twice.
 *
 * <p>Threads: one scheduler thread ({@link RouterClock}) for discovery rounds, their answers and
 * retry timers; replies to requests arrive on the data-plane event loops.
 */
public final class Router implements KvBackend, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Router.class);
    private static final long UNKNOWN_BUCKETS_ROUND_MS = 50;
    /** Delay of the round that confirms or clears a new doubled-bucket suspicion ({@link SuspectRounds}). */
    private static final long CONFIRMING_ROUND_MS = 10;
    private final RouterConfig config;
    /** The discovery round period in force: the config's, until {@link #discoveryInterval(Duration)} changes it at run time. */
    private volatile Duration discoveryInterval;
    private final EventLoopGroup ioLoops;
    private final RouteMap routes;
    private final Map<String, ReplicasetClient> clients = new ConcurrentHashMap<>();
    private final Map<String, Discovery> discoveries = new ConcurrentHashMap<>();
    /** Map-reduce calls (storage refs, key listings), over each replicaset client's data plane. */
    private final Map<String, MapReduceClient> mapReduceClients = new ConcurrentHashMap<>();
    private final ScheduledExecutorService scheduler;
    /** Time and the scheduler thread, as retries and discovery see them (a simulator's in tests). */
    private final RouterClock clock;
    private final Keyspace keyspace;
    private final AtomicLong requests = new AtomicLong();
    private volatile Topology topology;
    private volatile java.util.function.Supplier<Topology> topologySource;
    private final java.util.concurrent.atomic.AtomicBoolean refreshing = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.LongAdder staleEpochBounces = new java.util.concurrent.atomic.LongAdder();
    private volatile boolean closed;
    private final Dispatcher dispatcher;

    public Router(Topology topology, RouterConfig config) {
        this(topology, config, null);
    }

    /**
     * @param ioLoops event loops for the data-plane connections, to share with the RESP server
     *                (a request and its reply then cross no thread inside the router); null for
     *                a default loop
     */
    public Router(Topology topology, RouterConfig config, EventLoopGroup ioLoops) {
        warnOfRetiredSettings();
        this.config = config;
        this.discoveryInterval = config.discoveryInterval();
        this.ioLoops = ioLoops;
        this.routes = new RouteMap(topology.bucketCount());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cairn-router-scheduler");
            t.setDaemon(true);
            return t;
        });
        this.clock = RouterClock.of(scheduler);
        Dispatcher.Replicasets owners = (replicaset, unit, deadlineNs) -> {
            ReplicasetClient client = clients.get(replicaset);
            return client == null ? null : client.submit(unit, deadlineNs);
        };
        this.dispatcher = new Dispatcher(routes, owners, clock, config.requestTimeout(), this::triggerDiscovery, () -> closed);
        this.keyspace = new Keyspace(routes, mapReduceClients, clock, this::triggerDiscovery,
                () -> clock.nanoTime() + config.requestTimeout().toNanos());
        updateTopology(topology);
    }

    private static final java.util.concurrent.atomic.AtomicBoolean RETIRED_SETTINGS_WARNED = new java.util.concurrent.atomic.AtomicBoolean();

    /** Once per JVM: a setting that no longer does anything is named, so nobody relies on it unknowingly. */
    @SuppressWarnings("deprecation")
    private static void warnOfRetiredSettings() {
        String direct = System.getProperty(RouterConfig.DIRECT_DATA_PLANE_PROPERTY);
        if (direct != null && RETIRED_SETTINGS_WARNED.compareAndSet(false, true)) {
            log.warn("-D{}={} is ignored and will be removed: the router reaches replicasets only over the data plane (the Ratis client path is gone)",
                    RouterConfig.DIRECT_DATA_PLANE_PROPERTY, direct);
        }
    }

    /** Starts discovery; requests before the first round completes wait for it (within their deadline). */
    public Router start() {
        clock.execute(this::discoveryLoop);
        return this;
    }

    /**
     * Where a newer topology comes from (the coordinator): with one set, every data-plane request carries
     * this router's epoch, a member that knows a newer one refuses it (STALE_EPOCH), and the router
     * refreshes its topology (one refresh in flight however many requests bounced) and sends again
     * within the request's deadline. Without one (an embedded router) requests carry no epoch.
     */
    public void refreshTopologyFrom(java.util.function.Supplier<Topology> source) {
        this.topologySource = source;
    }

    /** Requests a member refused because this router's topology epoch was older than the member's. */
    public long staleEpochBounces() {
        return staleEpochBounces.sum();
    }

    private long sendEpoch() {
        Topology t = topology;
        return topologySource == null || t == null ? 0 : t.epoch();
    }

    private void onStaleEpoch(long newer) {
        staleEpochBounces.increment();
        java.util.function.Supplier<Topology> source = topologySource;
        Topology t = topology;
        if (source == null || (t != null && t.epoch() >= newer) || !refreshing.compareAndSet(false, true)) return;
        CompletableFuture.runAsync(() -> {
            try {
                Topology fresh = source.get();
                if (fresh != null) updateTopology(fresh);
                log.info("topology refreshed to epoch {}: a member knew epoch {}", fresh == null ? "?" : fresh.epoch(), newer);
            } catch (RuntimeException e) {
                log.info("topology refresh after a stale-epoch refusal failed: {}", e.getMessage());
            } finally {
                refreshing.set(false);
            }
        });
    }

    /** Adopts a newer topology (replicasets added, removed or with new members). */
    public synchronized void updateTopology(Topology next) {
        Topology current = topology;
        if (current != null && next.epoch() < current.epoch()) return;
        if (current != null && next.bucketCount() != current.bucketCount()) {
            log.error("ignoring topology epoch {}: bucketCount {} differs from {}", next.epoch(), next.bucketCount(), current.bucketCount());
            return;
        }
        for (ReplicasetSpec rs : next.replicasets()) {
            ReplicasetSpec old = current == null ? null : current.replicaset(rs.id()).orElse(null);
            if (old == null || !old.nodes().equals(rs.nodes())) {
                ReplicasetClient client = new ReplicasetClient(rs, config, ioLoops, this::sendEpoch, this::onStaleEpoch);
                ReplicasetClient replaced = clients.put(rs.id(), client);
                if (replaced != null) replaced.retire();
                mapReduceClients.put(rs.id(), client.mapReduce());
                Discovery.PageSource pages = (after, limit) -> client.query(StorageRequest.discover(after, limit));
                discoveries.put(rs.id(), new Discovery(rs.id(), pages, routes, config.discoveryPageLimit(),
                        config.requestTimeout().multipliedBy(2), clock));
            }
        }
        if (current != null) {
            for (ReplicasetSpec rs : current.replicasets()) {
                if (next.replicaset(rs.id()).isEmpty()) {
                    discoveries.remove(rs.id());
                    closeQuietly(clients.remove(rs.id()));
                    mapReduceClients.remove(rs.id());
                    routes.forget(rs.id());
                }
            }
        }
        topology = next;
    }

    public Topology topology() {
        return topology;
    }

    @Override
    public int bucketCount() {
        return routes.bucketCount();
    }

    @Override
    public CompletableFuture<List<OpResult>> execute(List<KvOp> ops) {
        requests.incrementAndGet();
        return dispatcher.execute(ops);
    }

    @Override
    public CompletableFuture<Long> dbSize() {
        List<CompletableFuture<StorageStats>> all = new ArrayList<>();
        for (ReplicasetClient c : clients.values()) {
            all.add(c.query(StorageRequest.stats()).thenApply(StorageStats::decode));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                .thenApply(v -> all.stream().mapToLong(f -> f.join().keyCount()).sum());
    }

    /** Sums over every replicaset leader's stats; the expiry figures come from each leader's expiry sweeper (StorageStats). */
    @Override
    public CompletableFuture<KeyspaceStats> keyspaceStats() {
        return replicasetStats().thenApply(all -> KeyspaceStats.sum(all.values()));
    }

    @Override
    public CompletableFuture<Long> exactKeyCount() {
        return keyspace.count();
    }

    @Override
    public CompletableFuture<List<byte[]>> keys(java.util.function.Predicate<byte[]> match, int maxKeys) {
        return keyspace.keys(match, maxKeys);
    }

    @Override
    public CompletableFuture<Long> flushAll() {
        return keyspace.flushAll();
    }

    @Override
    public CompletableFuture<ScanPage> scan(io.cairn.core.wire.KeyPage.Position from, int count) {
        return keyspace.scan(from, count);
    }

    /** Stats of every replicaset, answered by its leader. */
    public CompletableFuture<Map<String, StorageStats>> replicasetStats() {
        Map<String, CompletableFuture<StorageStats>> all = new LinkedHashMap<>();
        clients.forEach((id, c) -> all.put(id, c.query(StorageRequest.stats()).thenApply(StorageStats::decode)));
        return CompletableFuture.allOf(all.values().toArray(CompletableFuture[]::new)).handle((v, e) -> {
            Map<String, StorageStats> out = new LinkedHashMap<>();
            all.forEach((id, f) -> {
                if (!f.isCompletedExceptionally()) out.put(id, f.join());
            });
            return out;
        });
    }

    /** Routing table summary: buckets per replicaset as this router knows them. */
    public Map<String, Integer> bucketsByReplicaset() {
        return routes.countsByOwner();
    }

    /** The replicaset this router sends {@code bucket}'s requests to, or null while unknown. */
    public String ownerOf(int bucket) {
        return routes.owner(bucket);
    }

    /** One bucket's owner and the state of the owner's record as discovery last reported it (operators' views). */
    public BucketRoute route(int bucket) {
        RouteMap.OwnerRecord r = routes.ownerRecord(bucket);
        return new BucketRoute(bucket, r.owner(), r.state(), r.generation(), r.owner() == null ? 0 : r.flags());
    }

    /** Every bucket's route, in id order; O(bucket count), for the web console's map (at most once a second). */
    public void forEachRoute(BucketRoute.Visitor visitor) {
        routes.forEachOwner(visitor);
    }

    /** What this router sent each replicaset, and how long the answers took ({@link ReplicasetTraffic}). */
    public Map<String, ReplicasetTraffic> traffic() {
        Map<String, ReplicasetTraffic> out = new java.util.TreeMap<>();
        clients.forEach((id, c) -> out.put(id, c.traffic()));
        return out;
    }

    /** Buckets two replicasets claim as writable (suspected doubled). */
    public java.util.SortedSet<Integer> suspectedBuckets() {
        return routes.suspected();
    }

    public int unknownBuckets() {
        return routes.unknownCount();
    }

    /** Last leader each replicaset client talked to (null while unknown). */
    public Map<String, String> leaderHints() {
        Map<String, String> out = new LinkedHashMap<>();
        clients.forEach((id, c) -> out.put(id, c.leaderHint()));
        return out;
    }

    /** Blocks until every bucket has a known owner or the timeout passes; true when all known. */
    public boolean awaitRoutes(Duration timeout) throws InterruptedException {
        long end = clock.nanoTime() + timeout.toNanos();
        while (routes.unknownCount() > 0) {
            if (clock.nanoTime() > end) return false;
            Thread.sleep(20);
        }
        return true;
    }

    @Override
    public Map<String, Map<String, String>> info() {
        Map<String, Map<String, String>> info = new LinkedHashMap<>();
        Map<String, String> cluster = new LinkedHashMap<>();
        Topology t = topology;
        cluster.put("cluster_epoch", Long.toString(t.epoch()));
        cluster.put("bucket_count", Integer.toString(t.bucketCount()));
        cluster.put("replicasets", Integer.toString(t.replicasets().size()));
        cluster.put("unknown_buckets", Integer.toString(routes.unknownCount()));
        info.put("cluster", cluster);
        // Redis's replication section in Cairn's terms: each replicaset is a Raft group behind this router.
        Map<String, String> replication = new LinkedHashMap<>(Map.of("replicasets", Integer.toString(t.replicasets().size())));
        for (var spec : t.replicasets()) {
            ReplicasetClient c = clients.get(spec.id());
            replication.put("replicaset_" + spec.id(), "members=" + spec.nodes().size() + ",leader="
                    + java.util.Objects.toString(c == null ? null : c.leaderHint(), "unknown"));
        }
        info.put("replication", replication);
        Map<String, String> stats = new LinkedHashMap<>();
        stats.put("router_requests", Long.toString(requests.get()));
        stats.put("router_retries", Long.toString(dispatcher.retries()));
        stats.put("router_moves_followed", Long.toString(dispatcher.movesFollowed()));
        clients.forEach((id, c) -> {
            ReplicasetClient.GroupCommitCounters g = c.groupCommitCounters();
            stats.put("write_batches_" + id, Long.toString(g.writeBatches()));
            stats.put("write_ops_" + id, Long.toString(g.writeOps()));
            stats.put("read_batches_" + id, Long.toString(g.readBatches()));
            stats.put("read_ops_" + id, Long.toString(g.readOps()));
            stats.put("queue_full_" + id, Long.toString(g.queueFullRefusals()));
        });
        discoveries.forEach((id, d) -> {
            stats.put("discovery_rounds_" + id, Long.toString(d.stats().rounds()));
            stats.put("discovery_resyncs_" + id, Long.toString(d.stats().resyncs()));
        });
        info.put("stats", stats);
        return info;
    }

    /** Commands' operations refused because a replicaset's group-commit queue was full ({@code QUEUE_FULL}). */
    public long queueFullRefusals() {
        long sum = 0;
        for (ReplicasetClient c : clients.values()) sum += c.groupCommitCounters().queueFullRefusals();
        return sum;
    }

    /** Request bytes written to storage members' connections and not yet taken by their sockets, over all replicasets. */
    public long dataPlaneUnsentBytes() {
        long sum = 0;
        for (ReplicasetClient c : clients.values()) sum += c.dataPlaneBacklog().unsentBytes();
        return sum;
    }

    /** Data-plane attempts that waited because their connection held its high-water mark unsent (a member not reading). */
    public long dataPlaneDeferredAttempts() {
        long sum = 0;
        for (ReplicasetClient c : clients.values()) sum += c.dataPlaneBacklog().deferredAttempts();
        return sum;
    }

    public long requests() {
        return requests.get();
    }

    public long retries() {
        return dispatcher.retries();
    }

    /** Operations sent straight to the new owner a wrong-owner answer named (its payload), without a discovery round. */
    public long movesFollowed() {
        return dispatcher.movesFollowed();
    }

    /** Read batches served by follower reads, over all replicasets. */
    public long followerReadsServed() {
        return clients.values().stream().mapToLong(ReplicasetClient::followerReadsServed).sum();
    }

    /** Group commit counters per replicaset: write batches, write ops, read batches, read ops. */
    public Map<String, long[]> groupCommitCounters() {
        Map<String, long[]> out = new HashMap<>();
        clients.forEach((id, c) -> {
            ReplicasetClient.GroupCommitCounters g = c.groupCommitCounters();
            out.put(id, new long[] {g.writeBatches(), g.writeOps(), g.readBatches(), g.readOps()});
        });
        return out;
    }

    /** Discovery counters per replicaset. */
    public Map<String, DiscoveryStats> discoveryCounters() {
        Map<String, DiscoveryStats> out = new HashMap<>();
        discoveries.forEach((id, d) -> out.put(id, d.stats()));
        return out;
    }

    private volatile boolean verifyDoubled = true;
    private volatile long lastVerifyNs;
    private volatile List<Integer> lastVerified = List.of();
    /** Discovery loop thread only. */
    private final SuspectRounds suspectRounds = new SuspectRounds();
    private final AtomicLong verifyRequests = new AtomicLong();

    /** Whether this router asks replicaset leaders to verify suspected doubled buckets (design 000, step 2); on by default. */
    public void setDoubledVerification(boolean on) {
        verifyDoubled = on;
    }

    /** Verify requests sent (one per replicaset per verification round). */
    public long doubledVerifyRequests() {
        return verifyRequests.get();
    }

    /** Buckets with a contained doubled copy, as discovery reported them: bucket -> replicaset -> state@generation. */
    public SortedMap<Integer, Map<String, String>> doubledBuckets() {
        return routes.doubled();
    }

    /**
     * Asks every replicaset leader to verify the suspected buckets that are not settled yet; at
     * most once per discovery interval and {@link MoveQuery#MAX_INSPECT}
     * buckets. The answers are not needed: a leader that contains its copy publishes it through
     * discovery like any other record change.
     */
    private void verifySuspected() {
        List<Integer> confirmed = suspectRounds.confirmed(routes.toVerify());
        if (!verifyDoubled || confirmed.isEmpty() || clock.nanoTime() - lastVerifyNs < discoveryInterval.toNanos()) return;
        List<Integer> buckets = confirmed.stream().limit(MoveQuery.MAX_INSPECT).toList();
        lastVerifyNs = clock.nanoTime();
        byte[] request = StorageRequest.moveQuery(new MoveQuery.Verify(buckets));
        clients.forEach((id, c) -> {
            verifyRequests.incrementAndGet();
            c.query(request).whenComplete((reply, e) -> {
                if (e != null) log.debug("verify request to {} failed: {}", id, e.toString());
            });
        });
        // One INFO line per new set of buckets, not per round: a set that stays unsettled (a replicaset down) repeats quietly.
        if (!buckets.equals(lastVerified)) log.info("asked {} replicasets to verify {} suspected doubled buckets, first {}", clients.size(), buckets.size(), buckets.get(0));
        else log.debug("asked {} replicasets again to verify {} suspected doubled buckets", clients.size(), buckets.size());
        lastVerified = buckets;
    }

    /** Changes the discovery round period at run time (`cairn config set router.discoveryIntervalMs=...`); the next round waits it. */
    public void discoveryInterval(Duration interval) {
        if (interval.toMillis() < 10) throw new IllegalArgumentException("discoveryInterval must be at least 10 ms");
        if (!interval.equals(discoveryInterval)) log.info("discovery interval now {} ms", interval.toMillis());
        discoveryInterval = interval;
    }

    public Duration discoveryInterval() {
        return discoveryInterval;
    }

    private void discoveryLoop() {
        if (closed) return;
        List<CompletableFuture<Void>> rounds = new ArrayList<>();
        for (Discovery d : discoveries.values()) rounds.add(d.round());
        CompletableFuture.allOf(rounds.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> {
            if (closed) return;
            try {
                verifySuspected();
            } catch (RuntimeException failure) {
                log.warn("doubled-bucket verification round failed: {}", failure.toString());
            }
            long delay = verifyDoubled && suspectRounds.awaitingConfirmation() ? CONFIRMING_ROUND_MS
                    : routes.unknownCount() > 0 ? UNKNOWN_BUCKETS_ROUND_MS : discoveryInterval.toMillis();
            clock.schedule(TimeUnit.MILLISECONDS.toNanos(delay), this::discoveryLoop);
        });
    }

    /** Discovery runs on the scheduler thread only: a trigger from a reply's thread is handed over. */
    private void triggerDiscovery() {
        clock.execute(() -> {
            for (Discovery d : discoveries.values()) d.round();
        });
    }

    @Override
    public void close() {
        closed = true;
        scheduler.shutdownNow();
        clients.values().forEach(Router::closeQuietly);
        clients.clear();
        mapReduceClients.clear();
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) return;
        try {
            c.close();
        } catch (Exception e) {
            log.debug("close failed: {}", e.toString());
        }
    }
}
