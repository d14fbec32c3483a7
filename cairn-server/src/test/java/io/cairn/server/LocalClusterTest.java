package io.cairn.server;

import io.cairn.core.testing.ExternalTool;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.server.cli.CliTestAccess;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The whole stack as `cairn up` runs it: coordinator, 2 replicasets x 3 nodes, router, RESP and admin HTTP.
 * The tests share one cluster, so none of them may disturb it (a stopped leader has its own cluster in
 * {@link LocalClusterLeaderLossTest}); each writes keys of its own and counts only what it wrote.
 */
class LocalClusterTest {
    private static final int MAX_VALUE = 4096;

    @TempDir
    static Path dir;
    static LocalCluster cluster;
    static int port;

    @BeforeAll
    static void start() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 3, 600,
                Map.of("router", Map.of("maxValueBytes", MAX_VALUE, "requestTimeoutMs", 15_000)));
        cluster = new LocalCluster(config).start();
        assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
        port = cluster.router().respPort();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) cluster.close();
    }

    @Test
    void jedisCommandsWorkAcrossReplicasets() {
        try (Jedis jedis = TestClusters.jedis(cluster)) {
            long keysBefore = jedis.dbSize(); // the other tests' keys (the tests run one at a time)
            for (int i = 0; i < 200; i++) assertThat(jedis.set("key:" + i, "value:" + i)).isEqualTo("OK");
            for (int i = 0; i < 200; i++) assertThat(jedis.get("key:" + i)).isEqualTo("value:" + i);
            assertThat(jedis.incrBy("counter", 5)).isEqualTo(5);
            assertThat(jedis.mset("{t}a", "1", "{t}b", "2", "other", "3")).isEqualTo("OK");
            assertThat(jedis.mget("{t}a", "{t}b", "other", "missing")).containsExactly("1", "2", "3", null);
            long setAtMs = System.currentTimeMillis(); // the members' clock: they run in this JVM
            assertThat(jedis.setex("temp", 100, "x")).isEqualTo("OK");
            long ttl = jedis.ttl("temp");
            long sinceMs = System.currentTimeMillis() - setAtMs;
            // TTL rounds the remaining milliseconds to the nearest second: 100 s less at most the time since the SETEX.
            assertThat(ttl).as("TTL %d ms after SETEX 100", sinceMs).isBetween((100_000 - sinceMs + 500) / 1000, 100L);
            assertThat(jedis.dbSize()).as("200 keys, counter, {t}a, {t}b, other and temp").isEqualTo(keysBefore + 205);
        }
        // Router and members share this JVM: the router reached the leaders without a socket.
        long inProcess = cluster.nodes().keySet().stream().map(cluster::storage).filter(java.util.Objects::nonNull)
                .mapToInt(p -> p.node().inProcessSessions()).sum();
        assertThat(inProcess).as("in-process data-plane sessions").isGreaterThanOrEqualTo(2);
    }

    @Test
    void lettuceFallsBackToResp2AndWorks() {
        RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            conn.sync().set("lettuce", "ok");
            assertThat(conn.sync().get("lettuce")).isEqualTo("ok");
            assertThat(conn.sync().append("lettuce", "!")).isEqualTo(3);
        } finally {
            client.shutdown();
        }
    }

    @Test
    void redisCliTalksToTheRouter() throws Exception {
        String redisCli = ExternalTool.require("redis-cli", "redis-tools").toString();
        assertThat(run(redisCli, "-p", "" + port, "set", "cli-key", "cli-value")).isEqualTo("OK");
        assertThat(run(redisCli, "-p", "" + port, "get", "cli-key")).isEqualTo("cli-value");
    }

    @Test
    void oversizedValueIsRefusedAndStoresNothing() {
        try (Jedis jedis = TestClusters.jedis(cluster)) {
            jedis.set("big", "small");
            assertThatThrownBy(() -> jedis.set("big", "x".repeat(MAX_VALUE + 1)))
                    .isInstanceOf(JedisDataException.class).hasMessageContaining("maximum");
            assertThat(jedis.get("big")).isEqualTo("small");
        }
    }

    @Test
    void malformedRespClosesOnlyThatConnection() throws Exception {
        try (Jedis jedis = TestClusters.jedis(cluster)) {
            jedis.set("survivor", "here");
            try (Socket raw = new Socket("127.0.0.1", port)) {
                OutputStream out = raw.getOutputStream();
                out.write("*2\r\n$3\r\nGET\r\n:oops\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = raw.getInputStream();
                raw.setSoTimeout(30_000);
                String reply = new String(in.readNBytes(in.available() > 0 ? in.available() : 5), StandardCharsets.US_ASCII);
                assertThat(reply).startsWith("-ERR");
            }
            assertThat(jedis.get("survivor")).isEqualTo("here");
        }
    }

    @Test
    void adminEndpointsAnswerOnRouterAndStorage() throws Exception {
        var router = cluster.config().topology().routers().get(0);
        var storage = cluster.config().topology().replicasets().get(0).nodes().get(0);
        HttpClient http = HttpClient.newHttpClient();
        String metrics = get(http, router.adminPort(), "/metrics");
        assertThat(metrics).contains("cairn_router_requests_total").contains("cairn_router_unknown_buckets")
                .contains("cairn_router_dataplane_unsent_bytes").contains("cairn_router_dataplane_deferred_attempts");
        assertThat(get(http, router.adminPort(), "/health")).isEqualTo("ok\n");
        assertThat(get(http, storage.adminPort(), "/info")).contains("\"replicaset\" : \"rs1\"");
        assertThat(get(http, storage.adminPort(), "/metrics")).contains("cairn_storage_keys")
                .contains("cairn_storage_raft_unsent_bytes").contains("cairn_storage_raft_dropped_backed_up");
        var coordinator = cluster.config().topology().coordinators().get(0);
        assertThat(get(http, coordinator.adminPort(), "/metrics")).contains("cairn_rebalancer_unsent_bytes")
                .contains("cairn_rebalancer_deferred_attempts");
    }

    @Test
    void statusShowsEveryReplicasetWithALeaderAndBuckets() {
        Map<String, Object> status = CliTestAccess.collectStatus(cluster.config());
        String text = CliTestAccess.renderStatus(status);
        assertThat(text).contains("replicaset rs1").contains("replicaset rs2").contains("LEADER").contains("epoch 1");
        assertThat(text).doesNotContain("leader NONE");
    }

    @Test
    void aNodeIdThatIsNotInTheConfigIsRefusedClearly() {
        assertThatThrownBy(() -> new StorageProcess(cluster.config(), "nope"))
                .isInstanceOfSatisfying(CairnException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_NODE);
                    assertThat(e.getMessage()).contains("'nope'").contains("s1-1");
                });
    }

    @Test
    void aSecondClusterOnTakenPortsIsRefusedBeforeAnythingStarts() {
        LocalCluster second = new LocalCluster(cluster.config());
        try {
            int raftPort = cluster.config().topology().coordinators().get(0).raftPort();
            assertThatThrownBy(second::start).isInstanceOfSatisfying(CairnException.class, e -> {
                assertThat(e.code()).isEqualTo(ErrorCode.PORT_IN_USE);
                assertThat(e.getMessage()).contains("port " + raftPort + " (coordinator c1 Raft)").contains("--base-port");
            });
        } finally {
            second.close();
        }
        try (Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(jedis.ping()).as("the running cluster is untouched").isEqualTo("PONG");
        }
    }

    private static String get(HttpClient http, int adminPort, String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        return r.body();
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    }
}
