package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.CoordinatorProcess;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.Ports;
import io.cairn.server.process.RouterProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * ACL users kept by the coordinator group (issue 26): a user made on one router logs in on another
 * within seconds, with the same rules, and the users outlive the coordinator leader.
 */
class AclClusterTest {
    private static final Duration SLOW = Duration.ofSeconds(60);
    private static final String ADMIN_PASSWORD = "admin-secret";

    @TempDir
    Path dir;

    @Test
    void usersMadeOnOneRouterHoldOnEveryRouterAndSurviveACoordinatorLeaderChange() throws Exception {
        ClusterConfig config = threeCoordinatorsTwoRouters(TestClusters.config(dir, 1, 1, 60, Map.of(
                "router", Map.of("requestTimeoutMs", 15_000), "security", Map.of("requirepass", ADMIN_PASSWORD))));
        try (LocalCluster cluster = new LocalCluster(config).start();
             RouterProcess second = new RouterProcess(config, "r2").start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(90))).isTrue();
            try (Jedis admin = client(cluster.router().respPort(), "default", ADMIN_PASSWORD)) {
                assertThat(admin.aclSetUser("app", "on", ">app-pw", "~app:*", "+@read", "+set")).isEqualTo("OK");
            }
            await("the other router knows the user").atMost(SLOW).ignoreExceptions().until(() -> {
                try (Jedis app = client(second.respPort(), "app", "app-pw")) {
                    return "OK".equals(app.set("app:1", "v"));
                }
            });
            try (Jedis app = client(second.respPort(), "app", "app-pw")) {
                assertThat(app.get("app:1")).isEqualTo("v");
                assertThatThrownBy(() -> app.set("other:1", "v")).isInstanceOf(JedisDataException.class)
                        .hasMessage("NOPERM No permissions to access a key");
                assertThatThrownBy(() -> app.del("app:1")).isInstanceOf(JedisDataException.class)
                        .hasMessage("NOPERM User app has no permissions to run the 'del' command");
            }

            CoordinatorProcess first = cluster.coordinatorLeader();
            cluster.stopCoordinator(first);
            await("another coordinator leads").atMost(SLOW).until(() -> cluster.coordinatorLeader() != null);
            assertThat(cluster.coordinatorLeader()).isNotSameAs(first);

            try (Jedis admin = client(second.respPort(), "default", ADMIN_PASSWORD)) {
                await("the new leader takes ACL changes").atMost(SLOW).ignoreExceptions()
                        .until(() -> "OK".equals(admin.aclSetUser("app", "-set")));
            }
            await("the first router follows the change made through the new leader").atMost(SLOW).ignoreExceptions().until(() -> {
                try (Jedis app = client(cluster.router().respPort(), "app", "app-pw")) {
                    app.set("app:2", "v");
                    return false;
                } catch (JedisDataException e) {
                    return e.getMessage().equals("NOPERM User app has no permissions to run the 'set' command");
                }
            });
            try (Jedis app = client(cluster.router().respPort(), "app", "app-pw")) {
                assertThat(app.get("app:1")).as("the user made under the old leader logs in").isEqualTo("v");
            }
        }
    }

    private static Jedis client(int port, String user, String password) {
        return new Jedis(new HostAndPort("127.0.0.1", port), DefaultJedisClientConfig.builder().user(user).password(password)
                .socketTimeoutMillis(30_000).build());
    }

    /** Three coordinators (as in ConfigCommandTest) and a second router on free ports. */
    private static ClusterConfig threeCoordinatorsTwoRouters(ClusterConfig config) throws Exception {
        Map<String, Object> tree = ConfigLoader.readTree(config.source());
        int base = config.topology().coordinators().get(0).raftPort();
        List<Object> coordinators = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int raft = i == 0 ? base : base + 1 + 2 * i;
            coordinators.add(Map.of("id", "c" + (i + 1), "host", "127.0.0.1", "raftPort", raft, "adminPort", raft + 1));
        }
        tree.put("coordinators", coordinators);
        int ports = Ports.freeRange(2);
        List<Object> routers = new ArrayList<>((List<?>) tree.get("routers"));
        Map<String, Object> r2 = new LinkedHashMap<>();
        r2.put("id", "r2");
        r2.put("host", "127.0.0.1");
        r2.put("respPort", ports);
        r2.put("adminPort", ports + 1);
        routers.add(r2);
        tree.put("routers", routers);
        ConfigLoader.write(config.source(), tree);
        return ConfigLoader.load(config.source());
    }
}
