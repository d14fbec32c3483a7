package io.cairn.server;

import io.cairn.core.topology.MemberIds;
import io.cairn.server.config.ClusterConfig;
import io.cairn.storage.StorageAdmin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.cairn.server.FaultSupport.phase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 21's report, as a new user found it, on one OS process per node: one follower down, writes
 * acknowledged by the leader and the other follower, then the leader and that follower killed, its
 * folder wiped, and both followers restarted. The wiped node comes back as a new member that is in no
 * majority: no leader is elected (the lagging follower alone lacks the acknowledged writes). Once the
 * leader is back the replicaset serves every acknowledged write, and the coordinator turns the wiped
 * node into a learner, which it promotes only once caught up.
 */
class WipedFollowerLearnerTest {
    private static final int KEYS = 100;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aFollowerWipedWhileTheLeaderIsDownNeverVotesAndJoinsAsALearnerOnceACaughtUpMajorityIsBack() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 60, Map.of("router", Map.of("requestTimeoutMs", 15_000)));
        try (ProcessCluster cluster = new ProcessCluster(dir, config).startAll();
             StorageAdmin group = new StorageAdmin(config.topology().replicaset("rs1").orElseThrow(), Duration.ofSeconds(5))) {
            int port = cluster.respPort();
            awaitWrites(port);
            set(port, "a:", "v");
            String leader = cluster.leaderOf("rs1");
            List<String> followers = cluster.members("rs1").stream().filter(id -> !id.equals(leader)).sorted().toList();
            String lagging = followers.get(0);
            String wiped = followers.get(1);
            await(lagging + " holds the first writes").atMost(Duration.ofSeconds(30))
                    .until(() -> ((Number) cluster.info(lagging).get("keys")).intValue() == KEYS);

            cluster.kill(lagging);
            set(port, "b:", "w"); // acknowledged by the leader and `wiped` alone
            cluster.kill(leader);
            cluster.kill(wiped);
            DoubledBucketSupport.deleteTree(config.nodeDir(wiped));
            cluster.start(lagging);
            cluster.start(wiped);
            phase(leader + " down; " + lagging + " (lagging) and " + wiped + " (wiped) restarted");

            await(wiped + " up").atMost(Duration.ofSeconds(60)).until(() -> cluster.info(wiped) != null && cluster.info(wiped).get("disk") != null);
            String member = (String) cluster.info(wiped).get("raftMember");
            assertThat(member).isEqualTo(MemberIds.onNewDisk(wiped, (String) cluster.info(wiped).get("disk")));
            // several leader timeouts: the lagging node stands again and again; the wiped one is in no majority
            await("no leader without the acknowledged writes").during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(15))
                    .until(() -> !"LEADER".equals(role(cluster, lagging)) && !"LEADER".equals(role(cluster, wiped)));
            phase("no leader elected in 8 s");

            cluster.start(leader);
            String elected = cluster.leaderOf("rs1"); // once its JVM is up and it has checked its log: it or the lagging node
            assertThat(elected).isNotEqualTo(wiped);
            phase(elected + " leads");
            try (Jedis jedis = new Jedis("127.0.0.1", port, 30_000)) {
                for (int i = 0; i < KEYS; i++) {
                    assertThat(jedis.get("a:" + i)).isEqualTo("v" + i);
                    assertThat(jedis.get("b:" + i)).as("acknowledged while the wiped node held it").isEqualTo("w" + i);
                }
            }
            await(member + " a voter in place of " + wiped).atMost(Duration.ofSeconds(120)).ignoreExceptions()
                    .until(() -> group.members().voters().containsKey(member) && !group.members().voters().containsKey(wiped));
            // the coordinator logs a step once its call returns, which can be after the group shows the change
            List<String> steps = List.of(wiped + " left the group", member + " joined as a learner", member + " caught up and votes");
            await("the coordinator's steps logged").atMost(Duration.ofSeconds(30))
                    .until(() -> coordinatorSteps(cluster, config, wiped, member).size() >= steps.size());
            assertThat(coordinatorSteps(cluster, config, wiped, member)).as("the coordinator's steps, in order").containsExactlyElementsOf(steps);
            assertThat(Boolean.FALSE.equals(cluster.info(wiped).get("rejoining"))).isTrue();
            cluster.awaitReplicasAgree(List.of("rs1"));
            cluster.passed();
        }
    }

    private static String role(ProcessCluster cluster, String node) {
        Map<String, Object> i = cluster.info(node);
        return i == null ? "DOWN" : String.valueOf(i.get("raftRole"));
    }

    private static List<String> coordinatorSteps(ProcessCluster cluster, ClusterConfig config, String node, String member) throws java.io.IOException {
        List<String> steps = new ArrayList<>();
        for (String line : Files.readAllLines(cluster.logOf(config.topology().coordinators().get(0).id()))) {
            for (String step : List.of(node + " left the group", member + " joined as a learner", member + " caught up and votes")) {
                if (line.contains("replicaset rs1: " + step)) steps.add(step);
            }
        }
        return steps;
    }

    private static void set(int port, String prefix, String value) {
        try (Jedis jedis = new Jedis("127.0.0.1", port, 15_000)) {
            for (int i = 0; i < KEYS; i++) assertThat(jedis.set(prefix + i, value + i)).isEqualTo("OK");
        }
    }

    private static void awaitWrites(int port) {
        await("writes through the router").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
            try (Jedis jedis = new Jedis("127.0.0.1", port, 5_000)) {
                return "OK".equals(jedis.set("probe", "x")) && jedis.del("probe") == 1;
            }
        });
    }
}
