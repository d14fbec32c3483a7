package io.cairn.server.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cairn.core.BucketHasher;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.TestClusters;
import io.cairn.server.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The console's files and calls on a router's admin port, over real HTTP against an in-process
 * cluster (no browser needed): what the page reads must be there and mean what it says.
 */
class ConsoleApiTest {
    private static final int BUCKETS = 500;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @TempDir
    Path dir;

    @Test
    void theConsoleServesItsPagesStateBucketMapAndOneBucketsDetails() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(120))).isTrue();
            String base = "http://127.0.0.1:" + cluster.router().admin().port();
            try (Jedis jedis = new Jedis("127.0.0.1", cluster.router().respPort(), 30_000)) {
                for (int i = 0; i < 100; i++) jedis.set("k" + i, "v" + i);
            }

            HttpResponse<String> root = get(base + "/");
            assertThat(root.statusCode()).isEqualTo(302);
            assertThat(root.headers().firstValue("Location")).contains("/console/");
            HttpResponse<String> page = get(base + "/console/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
            assertThat(page.body()).contains("<canvas id=\"map\"").doesNotContain("http://", "https://"); // nothing from the internet
            for (String file : new String[] {"console.js", "console.css", "alerts.js"}) assertThat(get(base + "/console/" + file).statusCode()).isEqualTo(200);
            assertThat(get(base + "/console/../metrics").statusCode()).isNotEqualTo(200);
            assertThat(get(base + "/console/secret.txt").statusCode()).isEqualTo(404);
            assertThat(get(base + "/nothing-here").statusCode()).isEqualTo(404);

            // Every member up, each replicaset with a leader, the rebalancer's state, and traffic once two samples were taken.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                JsonNode state = JSON.readTree(get(base + "/console/api/state").body());
                assertThat(state.path("bucketCount").asInt()).isEqualTo(BUCKETS);
                assertThat(state.path("replicasets")).hasSize(2);
                for (JsonNode rs : state.path("replicasets")) {
                    assertThat(rs.path("leader").asText()).isNotEmpty();
                    assertThat(rs.path("state").asText()).isEqualTo("READY");
                    for (JsonNode m : rs.path("members")) assertThat(m.path("up").asBoolean()).isTrue();
                }
                assertThat(state.path("rebalancer").path("running").asBoolean()).isTrue();
                assertThat(state.path("alerts")).isEmpty();
                assertThat(state.path("traffic").path("rs1").path("t").size()).isGreaterThanOrEqualTo(1);
            });

            // ?since= sends only the traffic points after it: a page asks for what it lacks.
            JsonNode full = JSON.readTree(get(base + "/console/api/state").body()).path("traffic").path("rs1").path("t");
            long last = full.get(full.size() - 1).asLong();
            JsonNode recent = JSON.readTree(get(base + "/console/api/state?since=" + last).body()).path("traffic").path("rs1").path("t");
            assertThat(recent.size()).isLessThan(full.size());
            recent.forEach(t -> assertThat(t.asLong()).isGreaterThan(last));

            // The map: two bytes per bucket, owners by index, and the same owner as the router routes to.
            HttpResponse<byte[]> map = http.send(HttpRequest.newBuilder(URI.create(base + "/console/api/buckets")).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(map.body()).hasSize(2 * BUCKETS);
            String[] owners = map.headers().firstValue("X-Cairn-Owners").orElseThrow().split(",");
            int bucket = BucketHasher.bucketOf("k1".getBytes(), BUCKETS);
            int cell = (map.body()[(bucket - 1) * 2] & 0xff) | (map.body()[(bucket - 1) * 2 + 1] & 0xff) << 8;
            assertThat(owners[(cell & BucketMap.MAX_OWNERS) - 1]).isEqualTo(cluster.router().router().ownerOf(bucket));

            JsonNode detail = JSON.readTree(get(base + "/console/api/bucket/" + bucket).body());
            assertThat(detail.path("owner").asText()).isEqualTo(cluster.router().router().ownerOf(bucket));
            assertThat(detail.path("state").asText()).isEqualTo("ACTIVE");
            assertThat(detail.path("records").path(detail.path("owner").asText()).asText()).startsWith("ACTIVE");
            HttpResponse<String> bad = get(base + "/console/api/bucket/" + (BUCKETS + 1));
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(JSON.readTree(bad.body()).path("message").asText()).contains("1 to " + BUCKETS);
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
