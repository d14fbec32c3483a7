package io.cairn.server.prometheus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cairn.core.testing.ExternalTool;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.TestClusters;
import io.cairn.server.config.ClusterConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real Prometheus (Debian's {@code prometheus}) scraping a local cluster (coordinator, 2 x 3
 * storage nodes, router) with the shipped rules (deploy/prometheus/cairn-rules.yml, their {@code for:}
 * waits cut to 0 s so a rule fires on its first evaluation), and the figures docs/operations.md
 * promises read back through its HTTP API. promtool checks every process's /metrics and the rules.
 * Skipped when prometheus or promtool is not on the PATH, failed then under CI=true ({@link ExternalTool}).
 * The one test that stops a node starts it again and waits until it is scraped as up.
 */
class PrometheusTest {
    private static final String DEBIAN_PACKAGE = "prometheus";
    private static final Duration SLOW = Duration.ofSeconds(120); // a loaded 2-core machine scrapes and evaluates late
    /** Maven runs a module's tests in the module's folder; the shipped files are at the repository's top. */
    private static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();
    private static final Path RULES = DEPLOY.resolve("prometheus/cairn-rules.yml");
    private static final Path RULE_TESTS = DEPLOY.resolve("prometheus/cairn-rules.test.yml");
    private static final Path DASHBOARD = DEPLOY.resolve("grafana/cairn-dashboard.json");
    /** Every code a Cairn process puts in /alerts (docs/operations.md, Monitoring): each needs a rule. */
    private static final List<String> ALERT_CODES = List.of("UNKNOWN_BUCKETS", "SUSPECTED_DOUBLED_BUCKETS", "DOUBLED_BUCKETS",
            "MISSING_BUCKETS", "STALLED_MOVE", "REPLICASET_UNREACHABLE", "BOOTSTRAP_REFUSED", "REPLACED_DISK", "OTHER");

    @TempDir
    static Path dir;
    static Path promtool;
    static LocalCluster cluster;
    static PrometheusServer prometheus;

    @BeforeAll
    static void start() throws Exception {
        Path binary = ExternalTool.require("prometheus", DEBIAN_PACKAGE);
        promtool = ExternalTool.require("promtool", DEBIAN_PACKAGE);
        ClusterConfig config = TestClusters.config(dir, 2, 3, 600, Map.of());
        cluster = new LocalCluster(config).start();
        assertThat(cluster.awaitReady(Duration.ofSeconds(90))).isTrue();
        Path rules = dir.resolve("cairn-rules.yml");
        Files.writeString(rules, Files.readString(RULES).replaceAll("(?m)^(\\s+)for: \\S+$", "$1for: 0s"));
        prometheus = new PrometheusServer(binary, Files.createDirectories(dir.resolve("prometheus")), config, rules);
        await().atMost(SLOW).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!prometheus.alive()) throw new AssertionError("prometheus exited: " + prometheus.log());
            return prometheus.ready();
        });
    }

    @AfterAll
    static void stop() throws Exception {
        if (prometheus != null) prometheus.close();
        if (cluster != null) cluster.close();
    }

    @Test
    void promtoolFindsNothingToFixInAnyProcessMetrics() throws Exception {
        Map<String, String> findings = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> p : adminPorts().entrySet()) {
            String metrics = get("http://127.0.0.1:" + p.getValue() + "/metrics");
            assertThat(metrics).as("%s exports Cairn metrics", p.getKey()).contains("cairn_alerts{");
            Run check = promtool(metrics, "check", "metrics");
            if (check.exitCode() != 0 || !check.output().isBlank()) findings.put(p.getKey(), check.output());
        }
        assertThat(findings).as("promtool check metrics, per process").isEmpty();
    }

    @Test
    void shippedRulesPassPromtoolChecksAndTheirUnitTests() throws Exception {
        Run check = promtool(null, "check", "rules", RULES.toString());
        assertThat(check.exitCode()).as(check.output()).isZero();
        Run unitTests = promtool(null, "test", "rules", RULE_TESTS.toString());
        assertThat(unitTests.exitCode()).as(unitTests.output()).isZero();
        assertThat(unitTests.output()).contains("SUCCESS");
    }

    @Test
    void everyProcessIsScrapedAndUp() throws Exception {
        int processes = adminPorts().size();
        await().atMost(SLOW).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            JsonNode up = prometheus.query("up");
            assertThat(up).as("one up series per process").hasSize(processes);
            for (JsonNode s : up) assertThat(value(s)).as("up of %s", s.path("metric")).isEqualTo(1.0);
        });
        Set<String> nodes = new TreeSet<>();
        prometheus.query("up").forEach(s -> nodes.add(s.path("metric").path("node").asText()));
        assertThat(nodes).isEqualTo(new TreeSet<>(adminPorts().keySet()));
    }

    @Test
    void bucketsPerReplicasetAddUpToTheBucketCountAsRouterAndLeadersSeeThem() {
        int bucketCount = cluster.config().topology().bucketCount();
        await().atMost(SLOW).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Map<String, Double> routed = byReplicaset(prometheus.query("sum by (replicaset) (cairn_router_buckets)"));
            Map<String, Double> owned = byReplicaset(prometheus.query("cairn:replicaset_buckets_owned:leader"));
            assertThat(routed.keySet()).containsExactlyInAnyOrder("rs1", "rs2");
            assertThat(routed.values()).allSatisfy(n -> assertThat(n).isPositive());
            assertThat(routed.values().stream().mapToDouble(Double::doubleValue).sum()).isEqualTo(bucketCount);
            assertThat(owned).isEqualTo(routed);
            assertThat(value(prometheus.query("sum(cairn_storage_leader)").get(0))).as("one leader per replicaset").isEqualTo(2.0);
        });
    }

    @Test
    void everyAlertCodeHasARuleAndNoRuleFiresOnAHealthyCluster() throws Exception {
        String rules = Files.readString(RULES);
        for (String code : ALERT_CODES) assertThat(rules).as("a rule on cairn_alerts for %s", code).contains("alert=\"" + code + "\"");
        await().atMost(SLOW).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            List<String> unhealthy = new ArrayList<>();
            for (JsonNode group : prometheus.rules()) {
                for (JsonNode rule : group.path("rules")) {
                    if (!"ok".equals(rule.path("health").asText())) unhealthy.add(rule.path("name").asText() + ": " + rule.path("lastError").asText());
                }
            }
            assertThat(unhealthy).as("rules Prometheus could not evaluate").isEmpty();
            assertThat(prometheus.rules()).as("rule groups loaded").hasSize(2);
            assertThat(prometheus.alerts()).as("alerts on a healthy cluster").isEmpty();
        });
    }

    @Test
    void aStoppedStorageNodeFiresProcessDownUntilItIsBack() throws Exception {
        String stopped = cluster.config().topology().replicasets().get(0).nodes().get(2).id();
        cluster.stopNode(stopped);
        try {
            await().atMost(SLOW).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(firing()).contains("CairnProcessDown " + stopped));
            assertThat(firing()).as("one node of three down leaves a majority").noneMatch(a -> a.startsWith("CairnReplicasetMajorityDown"));
        } finally {
            cluster.startNode(stopped);
        }
        await().atMost(SLOW).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                assertThat(firing()).doesNotContain("CairnProcessDown " + stopped));
    }

    @Test
    void everyDashboardQueryIsValidAndNamesOnlyExportedMetrics() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        List<String> exprs = new ArrayList<>();
        dashboard.path("panels").forEach(p -> p.path("targets").forEach(t -> exprs.add(t.path("expr").asText())));
        assertThat(exprs).as("dashboard queries").hasSizeGreaterThan(10);
        Set<String> exported = new TreeSet<>();
        await().atMost(SLOW).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            exported.clear();
            prometheus.query("count by (__name__) ({__name__=~\"cairn.*\"})").forEach(s -> exported.add(s.path("metric").path("__name__").asText()));
            assertThat(exported).as("scraped from coordinator, storage, router, and recorded")
                    .contains("cairn_rebalancer_buckets_to_move", "cairn_storage_keys", "cairn_router_buckets", "cairn:replicaset_keys:leader");
        });
        Pattern metric = Pattern.compile("\\bcairn[:_][a-z0-9_:]+");
        for (String expr : exprs) {
            prometheus.query(expr.replace("$__rate_interval", "1m").replace("$__range", "5m")); // fails on PromQL Prometheus refuses
            Matcher m = metric.matcher(expr);
            while (m.find()) assertThat(exported).as("metric %s of %s", m.group(), expr).contains(m.group());
        }
    }

    /** "alertname node" of each firing alert. */
    private static List<String> firing() throws IOException {
        List<String> out = new ArrayList<>();
        for (JsonNode a : prometheus.alerts()) {
            if ("firing".equals(a.path("state").asText())) {
                out.add(a.path("labels").path("alertname").asText() + " " + a.path("labels").path("node").asText());
            }
        }
        return out;
    }

    /** node id -> admin port of every process of the cluster. */
    private static Map<String, Integer> adminPorts() {
        Map<String, Integer> ports = new LinkedHashMap<>();
        for (NodeAddress c : cluster.config().topology().coordinators()) ports.put(c.id(), c.adminPort());
        for (ReplicasetSpec rs : cluster.config().topology().replicasets()) for (NodeAddress n : rs.nodes()) ports.put(n.id(), n.adminPort());
        cluster.config().topology().routers().forEach(r -> ports.put(r.id(), r.adminPort()));
        return ports;
    }

    private static Map<String, Double> byReplicaset(JsonNode result) {
        Map<String, Double> out = new java.util.TreeMap<>();
        result.forEach(s -> out.put(s.path("metric").path("replicaset").asText(), value(s)));
        return out;
    }

    private static double value(JsonNode series) {
        return Double.parseDouble(series.path("value").get(1).asText());
    }

    private static String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url).isEqualTo(200);
        return r.body();
    }

    record Run(int exitCode, String output) {}

    /** promtool with {@code stdin} (or none), its output and error together. */
    private static Run promtool(String stdin, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            if (stdin != null) in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool %s ends", String.join(" ", args)).isTrue();
        return new Run(p.exitValue(), output);
    }
}
