package io.cairn.server;

import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.config.ClusterConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A cluster of one {@code cairn} operating-system process per node, all started from one config
 * file (as {@link ProcessesTest} does): {@code cairn coordinator|storage|router --config F --node ID}.
 * Processes are ended only through their own {@link Process} handles: {@link #kill} is SIGKILL
 * ({@code destroyForcibly}: no shutdown hook, no flush), {@link #close} kills whatever is left.
 * Each process writes to {@code ID.log} in the test's folder; the last lines of every log are
 * printed when the test did not pass, as they are the diagnosis ({@code -Dcairn.test.keepLogs=DIR}
 * copies the whole logs to DIR, passed or not).
 */
public final class ProcessCluster implements AutoCloseable {
    private final Path dir;
    private final ClusterConfig config;
    private final Map<String, Process> running = new LinkedHashMap<>();
    private final List<Process> started = new ArrayList<>();
    private boolean passed;
    private java.util.function.Function<String, List<String>> launcher = nodeId -> List.of();

    public ProcessCluster(Path dir, ClusterConfig config) {
        this.dir = dir;
        this.config = config;
    }

    /**
     * Runs each node's command behind a prefix, e.g. {@code ip netns exec NS} to start it in a
     * network namespace of its own (the prefix must exec the command, so a kill still ends the node).
     */
    public ProcessCluster launchedBy(java.util.function.Function<String, List<String>> prefix) {
        this.launcher = prefix;
        return this;
    }

    public ClusterConfig config() {
        return config;
    }

    public String configFile() {
        return config.source().toString();
    }

    public int respPort() {
        return config.topology().routers().get(0).respPort();
    }

    /**
     * Starts every node of the config: coordinators, storage nodes, then the first router once a
     * coordinator leads (a router gives up when no coordinator answers its first call for a few
     * seconds, which a loaded machine starting eight JVMs can take).
     */
    public ProcessCluster startAll() throws IOException {
        for (NodeAddress c : config.topology().coordinators()) start(c.id());
        for (ReplicasetSpec rs : config.topology().replicasets()) for (NodeAddress n : rs.nodes()) start(n.id());
        await("a coordinator leads").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() ->
                config.topology().coordinators().stream().anyMatch(c -> {
                    Map<String, Object> i = AdminClient.getJson("http://" + c.host() + ":" + c.adminPort() + "/info");
                    return i != null && Boolean.TRUE.equals(i.get("leader"));
                }));
        start(config.topology().routers().get(0).id());
        return this;
    }

    /** Starts {@code cairn ROLE --config F --node ID} as a new JVM on this test's classpath; its output goes to {@code ID.log}. */
    public synchronized Process start(String nodeId) throws IOException {
        assertThat(running.containsKey(nodeId)).as(nodeId + " already running").isFalse();
        // Eight JVMs share two cores here: the C1 compiler alone and the serial collector keep their
        // start-up and JIT threads from starving each other (KillMidMoveTest: the cluster was up after 33 s and
        // the test took 84 s with the defaults, 12-22 s and 46-51 s with these flags).
        List<String> command = new ArrayList<>(launcher.apply(nodeId));
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.util.concurrent.ForkJoinPool.common.parallelism=4",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), role(nodeId), "--config", configFile(), "--node", nodeId));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(nodeId + ".log").toFile())).start();
        started.add(p);
        running.put(nodeId, p);
        return p;
    }

    private String role(String nodeId) {
        if (config.topology().coordinators().stream().anyMatch(c -> c.id().equals(nodeId))) return "coordinator";
        if (config.topology().storageNode(nodeId).isPresent()) return "storage";
        if (config.topology().routers().stream().anyMatch(r -> r.id().equals(nodeId))) return "router";
        throw new IllegalArgumentException(nodeId + " is not in " + configFile());
    }

    /** SIGKILL of one node's process (no shutdown hook runs, nothing is flushed); waits until it is gone. */
    public void kill(String nodeId) throws InterruptedException {
        Process p;
        synchronized (this) {
            p = running.remove(nodeId);
        }
        assertThat(p).as(nodeId + " running").isNotNull();
        p.destroyForcibly();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as(nodeId + " gone within 30 s of SIGKILL").isTrue();
    }

    /** The file a node's process writes its output to. */
    public Path logOf(String nodeId) {
        return dir.resolve(nodeId + ".log");
    }

    /** The ids of the nodes whose processes run now. */
    public synchronized List<String> runningNodes() {
        return running.entrySet().stream().filter(e -> e.getValue().isAlive()).map(Map.Entry::getKey).toList();
    }

    public synchronized boolean isRunning(String nodeId) {
        Process p = running.get(nodeId);
        return p != null && p.isAlive();
    }

    public List<String> members(String replicaset) {
        return config.topology().replicaset(replicaset).orElseThrow().nodes().stream().map(NodeAddress::id).toList();
    }

    /** A storage node's {@code /info}, or null when it does not answer. */
    public Map<String, Object> info(String nodeId) {
        NodeAddress n = config.topology().storageNode(nodeId).orElseThrow();
        return AdminClient.getJson("http://" + n.host() + ":" + n.adminPort() + "/info");
    }

    /** The running member of {@code replicaset} that says it leads (waits for one, bounded). */
    public String leaderOf(String replicaset) {
        String[] found = new String[1];
        await(replicaset + " has a leader").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() -> {
            for (String id : members(replicaset)) {
                Map<String, Object> i = isRunning(id) ? info(id) : null;
                if (i != null && "LEADER".equals(i.get("raftRole"))) {
                    found[0] = id;
                    return true;
                }
            }
            return false;
        });
        return found[0];
    }

    /** The coordinator leader's rebalancer progress ({@code /rebalancer}), or null when none answers. */
    public Map<String, Object> rebalancer() {
        for (NodeAddress c : config.topology().coordinators()) {
            Map<String, Object> p = AdminClient.getJson("http://" + c.host() + ":" + c.adminPort() + "/rebalancer");
            if (p != null && Boolean.TRUE.equals(p.get("running"))) return p;
        }
        return null;
    }

    /** Every member of each replicaset runs and reports the same keys, owned buckets and last BSN (waits, bounded). */
    public void awaitReplicasAgree(List<String> replicasets) {
        for (String rs : replicasets) {
            await(rs + " members agree").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                List<String> views = new ArrayList<>();
                for (String id : members(rs)) {
                    Map<String, Object> i = info(id);
                    assertThat(i).as(id + " answers").isNotNull();
                    views.add(i.get("keys") + " keys/" + i.get("bucketsOwned") + " buckets/bsn " + i.get("lastBsn"));
                }
                assertThat(views.stream().distinct().count()).as(rs + " members " + members(rs) + ": " + views).isEqualTo(1);
            });
        }
    }

    /** Buckets owned by each replicaset, as its leader reports them. */
    public Map<String, Integer> ownedBuckets() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (ReplicasetSpec rs : config.topology().replicasets()) {
            Map<String, Object> i = info(leaderOf(rs.id()));
            out.put(rs.id(), i == null ? -1 : ((Number) i.get("bucketsOwned")).intValue());
        }
        return out;
    }

    public void passed() {
        passed = true;
    }

    @Override
    public void close() throws Exception {
        for (Process p : started) p.destroyForcibly();
        for (Process p : started) p.waitFor(30, TimeUnit.SECONDS);
        String keep = System.getProperty("cairn.test.keepLogs");
        if (keep != null) {
            Path to = Path.of(keep);
            Files.createDirectories(to);
            try (var logs = Files.list(dir)) {
                for (Path f : logs.filter(f -> f.toString().endsWith(".log")).toList()) {
                    Files.copy(f, to.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        if (!passed) printLastLines(dir);
    }

    /** The last 40 lines of every process log in {@code dir}: the diagnosis of a failed test. */
    public static void printLastLines(Path dir) throws java.io.IOException {
        try (var logs = Files.list(dir)) {
            for (Path f : logs.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
                List<String> lines = Files.readAllLines(f);
                System.out.println("---- last lines of " + f.getFileName() + " ----");
                lines.subList(Math.max(0, lines.size() - 40), lines.size()).forEach(System.out::println);
            }
        }
    }
}
