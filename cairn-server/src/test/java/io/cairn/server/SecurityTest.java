package io.cairn.server;

import io.cairn.core.testing.ExternalTool;
import io.cairn.server.admin.AdminAccess;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A local cluster with {@code security.requirepass} and an admin token (issue 26): RESP clients must
 * authenticate, admin changes need the token, the cairn command finds the token in the config.
 */
class SecurityTest {
    private static final String PASSWORD = "correct horse";
    private static final String TOKEN = "cluster-admin-token-1";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path dir;
    static LocalCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        Files.writeString(dir.resolve("token"), TOKEN + "\n");
        ClusterConfig config = TestClusters.config(dir, 1, 1, 60, Map.of(
                "router", Map.of("requestTimeoutMs", 15_000),
                "security", Map.of("requirepass", PASSWORD, "adminTokenFile", "token")));
        cluster = new LocalCluster(config).start();
        assertThat(cluster.awaitReady(Duration.ofSeconds(90))).isTrue();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) cluster.close();
        AdminAccess.useClientToken("");
    }

    private static HostAndPort router() {
        return new HostAndPort("127.0.0.1", cluster.router().respPort());
    }

    @Test
    void redisClientsMustAuthenticateWithTheConfiguredPassword() throws Exception {
        try (Jedis anonymous = new Jedis(router(), DefaultJedisClientConfig.builder().socketTimeoutMillis(30_000).build())) {
            assertThatThrownBy(() -> anonymous.set("k", "v")).isInstanceOf(JedisDataException.class)
                    .hasMessage("NOAUTH Authentication required.");
            assertThatThrownBy(() -> anonymous.auth("wrong")).isInstanceOf(JedisDataException.class)
                    .hasMessage("WRONGPASS invalid username-password pair or user is disabled.");
        }
        try (Jedis jedis = new Jedis(router(), DefaultJedisClientConfig.builder().password(PASSWORD).socketTimeoutMillis(30_000).build())) {
            assertThat(jedis.set("secured", "yes")).isEqualTo("OK");
            assertThat(jedis.get("secured")).isEqualTo("yes");
        }
        String redisCli = ExternalTool.require("redis-cli", "redis-tools").toString();
        String port = Integer.toString(cluster.router().respPort());
        assertThat(run(redisCli, "-p", port, "get", "secured")).contains("NOAUTH Authentication required.");
        assertThat(run(redisCli, "-p", port, "-a", PASSWORD, "--no-auth-warning", "get", "secured")).isEqualTo("yes");
        assertThat(run(redisCli, "-p", port, "--user", "default", "--pass", PASSWORD, "--no-auth-warning", "get", "secured")).isEqualTo("yes");
        String metrics = get(cluster.router().admin().port(), "/metrics", null).body();
        assertThat(metrics).containsPattern("cairn_router_auth_failures_total [1-9]");
    }

    @Test
    void adminChangesNeedTheTokenAndTheCairnCommandSendsTheOneInTheConfig() throws Exception {
        int coordinatorAdmin = cluster.config().topology().coordinators().get(0).adminPort();
        assertThat(get(coordinatorAdmin, "/info", null).statusCode()).as("read-only views stay open").isEqualTo(200);
        HttpResponse<String> refused = post(coordinatorAdmin, "/settings?rebalancer.maxBytesPerSecond=1", null);
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.body()).contains("needs the cluster's admin token");
        assertThat(post(coordinatorAdmin, "/moves/1?to=rs1", "Bearer not-" + TOKEN).statusCode()).isEqualTo(401);
        int routerAdmin = cluster.router().admin().port();
        assertThat(post(routerAdmin, "/local/nodes/s1-1/stop", null).statusCode()).as("node stop").isEqualTo(401);

        Cli set = Cli.run("config", "set", "rebalancer.maxBytesPerSecond=7000000", "--dir", dir.toString());
        assertThat(set.exitCode()).as(set.err()).isZero();
        assertThat(set.out()).containsPattern("rebalancer.maxBytesPerSecond +7000000 ");
        Cli status = Cli.run("status", "--dir", dir.toString());
        // healthy, or degraded for a moment on a loaded machine (a node slow to answer counts as down): never a failed command
        assertThat(status.exitCode()).as(status.out() + status.err()).isIn(0, 3);
        assertThat(status.out()).contains("rs1");

        // The same command with a config that names no token is refused, with the reason on stderr.
        Path tokenless = dir.resolve("tokenless");
        Files.createDirectories(tokenless);
        Map<String, Object> tree = ConfigLoader.readTree(dir.resolve(LocalCluster.CONFIG_FILE));
        tree.remove("security");
        tree.put("dataDir", dir.toString());
        ConfigLoader.write(tokenless.resolve(LocalCluster.CONFIG_FILE), tree);
        try {
            Cli denied = Cli.run("config", "set", "rebalancer.maxBytesPerSecond=1", "--dir", tokenless.toString());
            if (System.getenv(AdminAccess.TOKEN_ENV) == null) {
                assertThat(denied.exitCode()).isEqualTo(2);
                assertThat(denied.err()).contains("unauthorized: POST /settings needs the cluster's admin token");
            }
        } finally {
            ConfigLoader.load(dir.resolve(LocalCluster.CONFIG_FILE)); // this JVM's client token back to the cluster's
        }
        assertThat(Cli.run("config", "show", "--dir", dir.toString()).out()).containsPattern("rebalancer.maxBytesPerSecond +7000000 ");
    }

    @Test
    void cairnUpWithAdminTokenGeneratesAnOwnerOnlyTokenTheConfigNames(@TempDir Path upDir) throws Exception {
        ClusterConfig config = LocalCluster.prepare(upDir, new LocalCluster.Shape(1, 1, 30, 7379, 7400), true);
        try {
            Path tokenFile = upDir.resolve(LocalCluster.ADMIN_TOKEN_FILE);
            String token = Files.readString(tokenFile).trim();
            assertThat(token).hasSizeGreaterThanOrEqualTo(40);
            assertThat(Files.getPosixFilePermissions(tokenFile)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(config.security().adminToken()).isEqualTo(token);
            assertThat(config.security().adminAccess().allows("POST", "/moves/1", "Bearer " + token)).isTrue();
            assertThat(LocalCluster.prepare(upDir, new LocalCluster.Shape(1, 1, 30, 7379, 7400), true).security().adminToken())
                    .as("an existing cluster keeps its token").isEqualTo(token);
        } finally {
            ConfigLoader.load(dir.resolve(LocalCluster.CONFIG_FILE));
        }
    }

    private static HttpResponse<String> get(int port, String path, String authorization) throws Exception {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET(), authorization);
    }

    private static HttpResponse<String> post(int port, String path, String authorization) throws Exception {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).POST(HttpRequest.BodyPublishers.noBody()),
                authorization);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request, String authorization) throws Exception {
        if (authorization != null) request.header("Authorization", authorization);
        return HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    }
}
