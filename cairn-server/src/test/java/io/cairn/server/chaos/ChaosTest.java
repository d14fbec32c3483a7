package io.cairn.server.chaos;

import io.cairn.core.BucketHasher;
import io.cairn.core.testing.SeededRandom;
import io.cairn.server.ProcessCluster;
import io.cairn.server.TestClusters;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Chaos of real processes (issue 22 item 3): a cluster of one OS process per node (a coordinator,
 * two replicasets of three storage nodes, a router) started from one config file; clients send
 * SET, GET, DEL, INCR and MSET on a hash tag through the router with Jedis and record every
 * operation with its start, end and outcome; meanwhile faults of every {@link Faults.Kind}, one at
 * a time, in an order drawn from the seed: SIGKILL of a leader, a follower, the router and the
 * coordinator, a follower wiped, a follower restored from an old copy of its folder, a bucket move
 * and a topology change with a kill in flight. At the end every key is read once more and the
 * {@link HistoryChecker} fails the run on any anomaly (SYSTEM.md invariants 2 and 3: an
 * acknowledged write missing, a stale read, a refused write observed, a counter out of bounds);
 * every bucket must be writable on exactly one replicaset (invariant 1) and the members of each
 * replicaset agree.
 *
 * <p>The bounded form runs in {@code mvn verify} (about 30 s of faults); the long form,
 * {@code -Dcairn.chaos.seconds=600} (or {@code -Pchaos}), runs for that long. Both print the seed
 * and the run's figures (docs/testing.md, "Chaos test of real processes"). Network partitions (a
 * leader or a follower cut off, by network namespaces) run in the long form only, as root.
 */
@ExtendWith(SeededRandom.class)
class ChaosTest {
    private static final int BUCKETS = 60;
    private static final String SECONDS_PROPERTY = "cairn.chaos.seconds";
    /** {@code -Dcairn.chaos.partitions=false}: the long form without network namespaces. */
    private static final String PARTITIONS_PROPERTY = "cairn.chaos.partitions";
    /** {@code -Dcairn.chaos.faults=KILL_LEADER,ISOLATE_LEADER}: only these kinds of fault (to chase one). */
    private static final String FAULTS_PROPERTY = "cairn.chaos.faults";
    private static final long BOUNDED_SECONDS = 30;
    /** At least this many faults, even when the first ones take the whole time. */
    private static final int MIN_FAULTS = 3;
    private static final int CLIENTS = 4;
    /** Past the router's request deadline (10 s): the router, not the client socket, decides when a request failed. */
    private static final int CLIENT_TIMEOUT_MS = 30_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aBoundedRunOfFaultsOfEveryKindLeavesNoAnomalyInTheClientsHistory(Random random) throws Exception {
        assumeThat(System.getProperty(SECONDS_PROPERTY)).as("the long form runs instead (" + SECONDS_PROPERTY + ")").isNull();
        run(random, BOUNDED_SECONDS, false);
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.HOURS)
    void aLongRunOfFaultsLeavesNoAnomalyInTheClientsHistory(Random random) throws Exception {
        String seconds = System.getProperty(SECONDS_PROPERTY);
        assumeThat(seconds).as("the long form runs with -D" + SECONDS_PROPERTY + "=N or -Pchaos").isNotNull();
        run(random, Long.parseLong(seconds.trim()), !"false".equals(System.getProperty(PARTITIONS_PROPERTY)));
    }

    private void run(Random random, long seconds, boolean partitions) throws Exception {
        long seed = SeededRandom.seedOf(random);
        ClusterConfig config = TestClusters.config(dir, 2, 3, BUCKETS, Map.of(
                // Snapshots and log purges during the run: a wiped or restored member may catch up from one.
                "storage", Map.of("snapshotEveryEntries", 1_000),
                "rebalancer", Map.of("roundIntervalMs", 200)));
        NetworkNamespaces network = partitions ? network() : null;
        try (NetworkNamespaces cleanup = network) {
            if (network != null) config = inNamespaces(config, network);
            run(random, seed, seconds, config, network);
        }
    }

    /** Namespaces of this test, or null (and why, printed) when they cannot be made here. */
    private static NetworkNamespaces network() throws java.io.IOException {
        String why = NetworkNamespaces.unavailableBecause();
        if (why != null) {
            System.out.println("network partitions skipped: " + why);
            return null;
        }
        return new NetworkNamespaces().up();
    }

    /** The config with each storage node on its own namespace's address, the coordinator and the router on the bridge's. */
    @SuppressWarnings("unchecked")
    private static ClusterConfig inNamespaces(ClusterConfig config, NetworkNamespaces network) throws java.io.IOException {
        Map<String, Object> tree = ConfigLoader.readTree(config.source());
        for (Object c : (List<Object>) tree.get("coordinators")) ((Map<String, Object>) c).put("host", network.hostAddress());
        for (Object r : (List<Object>) tree.get("routers")) ((Map<String, Object>) r).put("host", network.hostAddress());
        for (Object rs : (List<Object>) tree.get("replicasets")) {
            for (Object n : (List<Object>) ((Map<String, Object>) rs).get("nodes")) {
                Map<String, Object> node = (Map<String, Object>) n;
                node.put("host", network.add((String) node.get("id")));
            }
        }
        ConfigLoader.write(config.source(), tree);
        return ConfigLoader.load(config.source());
    }

    private void run(Random random, long seed, long seconds, ClusterConfig config, NetworkNamespaces network) throws Exception {
        Workload.Keys keys = Workload.Keys.of(16, 4, 6);
        List<Integer> buckets = new ArrayList<>(new TreeSet<>(keys.all().stream().map(ChaosTest::bucketOf).toList()));
        List<Faults.Kind> kinds = new ArrayList<>(List.of(Faults.Kind.values()));
        if (network == null) kinds.removeIf(Faults.Kind::partitions);
        String only = System.getProperty(FAULTS_PROPERTY, "").trim();
        if (!only.isEmpty()) kinds.retainAll(java.util.Arrays.stream(only.split(",")).map(k -> Faults.Kind.valueOf(k.trim())).toList());
        assertThat(kinds).as("kinds of fault to inject").isNotEmpty();
        String routerHost = config.topology().routers().get(0).host();
        try (ProcessCluster cluster = new ProcessCluster(dir, config).launchedBy(id -> network == null ? List.of() : network.launcher(id))) {
            cluster.startAll();
            Path backups = Files.createDirectories(dir.resolve("backups"));
            Workload workload = new Workload(routerHost, cluster.respPort(), CLIENT_TIMEOUT_MS, keys, CLIENTS, new Random(random.nextLong()),
                    Duration.ofSeconds(seconds + 600), 2);
            Faults faults = new Faults(cluster, new Random(random.nextLong()), workload::answered, buckets, backups, network);
            faults.awaitHealthy();
            phase("cluster of processes up; " + keys.all().size() + " keys in " + buckets.size() + " buckets; faults " + kinds);

            List<ChaosReport.Trial> trials = new ArrayList<>();
            long t0 = System.nanoTime();
            workload.start();
            try {
                long answered = workload.answered();
                await("the workload under way").atMost(Duration.ofSeconds(60)).until(() -> workload.answered() > answered + 100);
                for (int i = 0; i < MIN_FAULTS || System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(seconds); i++) {
                    if (i % kinds.size() == 0) Collections.shuffle(kinds, random);
                    Faults.Kind kind = kinds.get(i % kinds.size());
                    Map<Integer, String> owners = singleOwners(config, buckets);
                    Faults.Injected fault = faults.inject(kind);
                    trials.add(new ChaosReport.Trial(fault, owners));
                    assertThat(workload.running()).as("every client still running after " + kind).isTrue();
                    phase("fault " + (i + 1) + ": " + kind + ": " + fault.detail() + (fault.confirmed() ? "" : " (NOT CONFIRMED)")
                            + "; healed after " + TimeUnit.NANOSECONDS.toMillis(fault.healedNs() - fault.startNs()) + " ms");
                }
            } finally {
                workload.stop();
            }
            long runMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            faults.awaitHealthy();
            List<Op> history = new ArrayList<>(workload.history());
            history.addAll(finalReads(routerHost, cluster.respPort(), keys.all()));
            HistoryChecker.Result result = HistoryChecker.check(history);
            System.out.println(ChaosReport.render(seed, runMs, workload, history, result, trials, BUCKETS)
                    + (network == null ? "network partitions: not injected\n" : ""));

            assertThat(result.anomalies()).as("anomalies in the clients' history").isEmpty();
            assertThat(trials).as("faults injected").hasSizeGreaterThanOrEqualTo(MIN_FAULTS);
            Map<Integer, List<String>> owners = Ownership.writableOwners(config, IntStream.rangeClosed(1, BUCKETS).boxed().toList());
            assertThat(owners.entrySet().stream().filter(e -> e.getValue().size() != 1).toList())
                    .as("buckets not writable on exactly one replicaset").isEmpty();
            cluster.awaitReplicasAgree(List.of("rs1", "rs2"));
            cluster.passed();
        }
    }

    /** Each key read once the run is over and the cluster healed (retried until one pass reads them all). */
    private static List<Op> finalReads(String host, int port, List<String> keys) {
        List<Op> out = new ArrayList<>();
        await("every key read at the end").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
            out.clear();
            try (Jedis jedis = new Jedis(host, port, CLIENT_TIMEOUT_MS)) {
                for (String k : keys) out.add(Op.finalRead(k, jedis.get(k), System.nanoTime()));
            }
            return true;
        });
        return out;
    }

    /** The owner of each bucket; fails when one has none or two. */
    private static Map<Integer, String> singleOwners(ClusterConfig config, List<Integer> buckets) throws Exception {
        Map<Integer, String> out = new LinkedHashMap<>();
        for (var e : Ownership.writableOwners(config, buckets).entrySet()) {
            assertThat(e.getValue()).as("replicasets holding bucket " + e.getKey() + " writable").hasSize(1);
            out.put(e.getKey(), e.getValue().get(0));
        }
        return out;
    }

    private static int bucketOf(String key) {
        return BucketHasher.bucketOf(key.getBytes(StandardCharsets.UTF_8), BUCKETS);
    }

    private static final long START = System.nanoTime();

    private static void phase(String what) {
        System.out.printf("[%6d ms] %s%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - START), what);
    }
}
