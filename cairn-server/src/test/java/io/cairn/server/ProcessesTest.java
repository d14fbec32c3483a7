package io.cairn.server;

import com.fasterxml.jackson.core.type.TypeReference;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code cairn} command as separate operating-system processes: a cluster of one process
 * per node started from one config file (a multi-host deployment on one machine), a storage
 * process and then the coordinator killed with SIGKILL and restarted, and {@code cairn up}
 * with its ready line, Ctrl-C (SIGTERM) and a restart on the same folder. Operator commands
 * run in this JVM, as a user's second terminal would.
 */
class ProcessesTest {
    private static final int BUCKETS = 60;
    private static final Duration READY = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    /** Set at the end of a test; otherwise the processes' logs are printed, as they are the diagnosis. */
    private boolean passed;

    @AfterEach
    void stopWhatWasStarted() throws Exception {
        for (Process p : started) p.destroyForcibly();
        for (Process p : started) p.waitFor(30, TimeUnit.SECONDS);
        if (!passed) ProcessCluster.printLastLines(dir);
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aClusterOfOneProcessPerNodeKeepsEveryKeyAndItsTopologyThroughProcessesKilledWithSigkill() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of());
        String file = config.source().toString();
        Process c1 = start("c1", "coordinator", "--config", file, "--node", "c1");
        Process s11 = start("s1-1", "storage", "--config", file, "--node", "s1-1");
        start("s2-1", "storage", "--config", file, "--node", "s2-1");
        start("r1", "router", "--config", file, "--node", "r1");
        int port = config.topology().routers().get(0).respPort();
        awaitWrites(port, "k:0");

        await("cairn status --json shows both replicasets led, every bucket owned").atMost(READY).untilAsserted(() -> {
            Map<String, Object> status = statusJson("--config", file);
            assertThat(((Number) status.get("epoch")).longValue()).isEqualTo(1);
            long buckets = 0;
            for (Map<String, Object> rs : list(status.get("replicasets"))) {
                assertThat(rs.get("leader")).as("leader of " + rs.get("id")).isNotNull();
                buckets += ((Number) rs.get("buckets")).longValue();
            }
            assertThat(buckets).isEqualTo(BUCKETS);
        });

        try (Jedis jedis = new Jedis("127.0.0.1", port, 15_000)) {
            for (int i = 0; i < 300; i++) assertThat(jedis.set("k:" + i, "v" + i)).isEqualTo("OK");
        }
        s11.destroyForcibly(); // SIGKILL: no shutdown hook, no flush
        assertThat(s11.waitFor(30, TimeUnit.SECONDS)).isTrue();
        start("s1-1", "storage", "--config", file, "--node", "s1-1");
        // Until s1-1 is back, its buckets' requests time out; then every key reads back.
        await("every key reads back").atMost(READY).pollInterval(Duration.ofMillis(500)).ignoreExceptions().untilAsserted(() -> {
            try (Jedis jedis = new Jedis("127.0.0.1", port, 15_000)) {
                for (int i = 0; i < 300; i++) assertThat(jedis.get("k:" + i)).as("k:" + i).isEqualTo("v" + i);
                assertThat(jedis.dbSize()).isEqualTo(300);
            }
        });

        // The coordinator too: after SIGKILL and a restart it has the topology, takes a change and pushes it.
        c1.destroyForcibly();
        assertThat(c1.waitFor(30, TimeUnit.SECONDS)).isTrue();
        start("c1", "coordinator", "--config", file, "--node", "c1");
        await("the restarted coordinator takes a topology change").atMost(READY).pollInterval(Duration.ofMillis(500)).until(() ->
                Cli.run("topology", "set-weight", "--config", file, "rs2", "2").exitCode() == 0);
        await("epoch 2 pushed to the storage nodes and the router").atMost(READY).untilAsserted(() ->
                assertThat(((Number) statusJson("--config", file).get("epoch")).longValue()).isEqualTo(2));
        try (Jedis jedis = new Jedis("127.0.0.1", port, 15_000)) {
            assertThat(jedis.get("k:1")).isEqualTo("v1");
        }
        stopAllCleanly();
        passed = true;
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void cairnUpPrintsOneReadyLineStopsOnSigtermAndKeepsItsDataForTheNextStart() throws Exception {
        int base = Ports.freeRange(30);
        String port = String.valueOf(base + 29);
        String[] up = {"up", "--dir", dir.toString(), "--replicasets", "2", "--replicas", "1", "--buckets", String.valueOf(BUCKETS),
                "--port", port, "--base-port", String.valueOf(base)};
        Process first = start("up", up);
        String ready = awaitLine("up", "cairn is up");
        assertThat(ready).contains("redis-cli -p " + port).contains("admin http://127.0.0.1:").contains("Ctrl-C to stop");
        try (Jedis jedis = new Jedis("127.0.0.1", Integer.parseInt(port), 15_000)) {
            assertThat(jedis.set("kept", "across restarts")).isEqualTo("OK");
        }

        assertThat(Cli.run("node", "stop", "s2-1", "--dir", dir.toString()).exitCode()).isZero();
        assertThat(member(statusJson("--dir", dir.toString()), "rs2", "s2-1").get("raftRole")).isEqualTo("DOWN");
        assertThat(Cli.run("node", "start", "s2-1", "--dir", dir.toString()).exitCode()).isZero();
        Cli unknown = Cli.run("node", "stop", "s9-9", "--dir", dir.toString());
        assertThat(unknown.exitCode()).isEqualTo(1);
        assertThat(unknown.err()).contains("s9-9");
        await("s2-1 back").atMost(READY).until(() -> !"DOWN".equals(member(statusJson("--dir", dir.toString()), "rs2", "s2-1").get("raftRole")));

        first.destroy(); // SIGTERM, as Ctrl-C
        assertThat(first.waitFor(60, TimeUnit.SECONDS)).as("cairn up stopped within 60 s of SIGTERM").isTrue();
        assertThat(log("up")).doesNotContain(" ERROR ").doesNotContain("Exception");

        Files.move(dir.resolve("up.log"), dir.resolve("up-first.log"));
        start("up", up);
        awaitLine("up", "cairn is up");
        try (Jedis jedis = new Jedis("127.0.0.1", Integer.parseInt(port), 15_000)) {
            assertThat(jedis.get("kept")).isEqualTo("across restarts");
        }
        stopAllCleanly();
        passed = true;
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** Starts {@code cairn ARGS} as a new JVM (this test's classpath), its output in {@code NAME.log}. */
    private Process start(String name, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-Djava.util.concurrent.ForkJoinPool.common.parallelism=4",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".log").toFile())).start();
        started.add(p);
        return p;
    }

    private String log(String name) throws IOException {
        Path file = dir.resolve(name + ".log");
        return Files.exists(file) ? Files.readString(file) : "";
    }

    private String awaitLine(String name, String text) {
        String[] found = new String[1];
        await(name + " prints '" + text + "'").atMost(READY).pollInterval(Duration.ofMillis(100)).until(() -> {
            for (String line : log(name).split("\n")) {
                if (line.contains(text)) found[0] = line;
            }
            return found[0] != null;
        });
        return found[0];
    }

    /** Waits until a SET through the router succeeds (every process up, leaders elected, routes known). */
    private static void awaitWrites(int port, String key) {
        await("writes through the router").atMost(READY).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
            try (Jedis jedis = new Jedis("127.0.0.1", port, 5_000)) {
                return "OK".equals(jedis.set(key, "x"));
            }
        });
    }

    /** SIGTERM to each process; each must end within 60 s with nothing logged at ERROR. */
    private void stopAllCleanly() throws Exception {
        for (Process p : started) if (p.isAlive()) p.destroy();
        for (Process p : started) assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("stopped within 60 s of SIGTERM").isTrue();
        try (var logs = Files.list(dir)) {
            for (Path f : logs.filter(f -> f.toString().endsWith(".log")).toList()) {
                assertThat(Files.readString(f)).as(f.getFileName().toString()).doesNotContain(" ERROR ");
            }
        }
    }

    private static Map<String, Object> statusJson(String... where) throws IOException {
        List<String> args = new ArrayList<>(List.of("status", "--json"));
        args.addAll(List.of(where));
        Cli status = Cli.run(args.toArray(String[]::new));
        Map<String, Object> json = AdminServer.JSON.readValue(status.out(), new TypeReference<Map<String, Object>>() {});
        // the exit code says the health (0 healthy, 3 degraded, ...): a stopped member is a status, not a failed command
        assertThat(status.exitCode()).as(status.err()).isEqualTo(((Number) json.get("exitCode")).intValue());
        return json;
    }

    private static Map<String, Object> member(Map<String, Object> status, String replicaset, String node) {
        for (Map<String, Object> rs : list(status.get("replicasets"))) {
            if (!replicaset.equals(rs.get("id"))) continue;
            for (Map<String, Object> m : list(rs.get("members"))) if (node.equals(m.get("id"))) return m;
        }
        throw new AssertionError(node + " of " + replicaset + " not in the status: " + status);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object o) {
        return (List<Map<String, Object>>) o;
    }
}
