package io.cairn.server.prometheus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.RouterSpec;
import io.cairn.server.config.ClusterConfig;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus (Debian's {@code prometheus} binary) scraping every process of a test cluster
 * on 127.0.0.1 every 2 s (a slower scrape on a loaded machine would count as down) and evaluating the given rule file once a second, with its data in a
 * temp folder; {@link #query} and {@link #alerts} read its HTTP API.
 */
final class PrometheusServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final Process process;
    private final int port;
    private final Path log;

    PrometheusServer(Path binary, Path dir, ClusterConfig cluster, Path rules) throws IOException {
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, config(cluster, rules));
        this.port = freePort();
        this.log = dir.resolve("prometheus.log");
        this.process = new ProcessBuilder(binary.toString(), "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port, "--log.level=warn")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** prometheus.yml: one job per process kind, each target labelled with its node (and replicaset), as an operator would write it. */
    static String config(ClusterConfig cluster, Path rules) {
        StringBuilder y = new StringBuilder("global: {scrape_interval: 2s, evaluation_interval: 1s, scrape_timeout: 2s}\n");
        y.append("rule_files: ['").append(rules).append("']\nscrape_configs:\n");
        y.append("  - job_name: cairn-coordinator\n    static_configs:\n");
        for (NodeAddress c : cluster.topology().coordinators()) target(y, c.host(), c.adminPort(), c.id(), null);
        // honor_labels: a storage node's own replicaset label (on its metrics) and the target's agree; keep the name plain
        y.append("  - job_name: cairn-storage\n    honor_labels: true\n    static_configs:\n");
        for (ReplicasetSpec rs : cluster.topology().replicasets()) {
            for (NodeAddress n : rs.nodes()) target(y, n.host(), n.adminPort(), n.id(), rs.id());
        }
        y.append("  - job_name: cairn-router\n    static_configs:\n");
        for (RouterSpec r : cluster.topology().routers()) target(y, r.host(), r.adminPort(), r.id(), null);
        return y.toString();
    }

    private static void target(StringBuilder y, String host, int port, String node, String replicaset) {
        y.append("      - targets: ['").append(host).append(':').append(port).append("']\n        labels: {node: ").append(node);
        if (replicaset != null) y.append(", replicaset: ").append(replicaset);
        y.append("}\n");
    }

    /** True once Prometheus answers /-/ready (false while it starts or if it died: see {@link #log()}). */
    boolean ready() {
        try {
            return get("/-/ready").statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    boolean alive() {
        return process.isAlive();
    }

    String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** The {@code data.result} array of an instant query; fails on a query Prometheus refuses (bad PromQL). */
    JsonNode query(String promql) throws IOException {
        JsonNode answer = api("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        return answer.path("data").path("result");
    }

    /** The active alerts ({@code data.alerts}: labels, state pending|firing). */
    JsonNode alerts() throws IOException {
        return api("/api/v1/alerts").path("data").path("alerts");
    }

    /** The loaded rule groups ({@code data.groups}), each rule with its health and last error. */
    JsonNode rules() throws IOException {
        return api("/api/v1/rules").path("data").path("groups");
    }

    private JsonNode api(String path) throws IOException {
        HttpResponse<String> r = get(path);
        JsonNode body = JSON.readTree(r.body());
        if (r.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
            throw new AssertionError("Prometheus refused " + path + ": " + r.statusCode() + " " + r.body());
        }
        return body;
    }

    private HttpResponse<String> get(String path) throws IOException {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
}
