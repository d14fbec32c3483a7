package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.storage.StorageNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A storage node back on a wiped or damaged folder (issue 21) on the real stack: it must neither
 * vote nor serve until it has caught up, so a replicaset whose leader is down does not elect a
 * leader without the writes the wiped node had acknowledged.
 */
class ReplacedDiskTest {
    @TempDir
    Path dir;

    @Test
    void aFollowerWipedWhileItsLeaderIsDownDoesNotVoteAndNoAcknowledgedWriteIsLost() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 60, Map.of("router", Map.of("requestTimeoutMs", 15_000)));
        try (LocalCluster cluster = new LocalCluster(config).start();
             Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            for (int i = 0; i < 50; i++) assertThat(jedis.set("a:" + i, "v" + i)).isEqualTo("OK");
            String leader = leaderOf(cluster);
            List<String> followers = cluster.nodes().keySet().stream().filter(id -> !id.equals(leader)).sorted().toList();
            String lagging = followers.get(0);
            String wiped = followers.get(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> node(cluster, lagging).localStats().keyCount() == 50);

            cluster.stopNode(lagging);
            for (int i = 0; i < 50; i++) assertThat(jedis.set("b:" + i, "w" + i)).isEqualTo("OK"); // acknowledged by the leader and `wiped`
            cluster.stopNode(leader);
            cluster.stopNode(wiped);
            deleteTree(config.nodeDir(wiped));

            cluster.startNode(lagging);
            cluster.startNode(wiped);
            assertThat(node(cluster, wiped).rejoining()).isTrue();
            assertThat(cluster.storage(wiped).alerts()).anySatisfy(a -> assertThat(a).startsWith("REPLACED_DISK: " + wiped));
            // several leader timeouts: the lagging node stands again and again, and the wiped one never grants its vote
            await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(10))
                    .until(() -> !node(cluster, lagging).isLeader() && !node(cluster, wiped).isLeader());

            cluster.startNode(leader);
            for (int i = 0; i < 50; i++) {
                assertThat(jedis.get("a:" + i)).isEqualTo("v" + i);
                assertThat(jedis.get("b:" + i)).as("acknowledged while the wiped node held it").isEqualTo("w" + i);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> !node(cluster, wiped).rejoining());
            await().atMost(Duration.ofSeconds(10)).until(() -> node(cluster, wiped).localStats().keyCount() == 100);
            assertThat(cluster.storage(wiped).alerts()).noneMatch(a -> a.startsWith("REPLACED_DISK"));

            cluster.stopNode(wiped);
            cluster.startNode(wiped);
            assertThat(node(cluster, wiped).identity().rejoining()).as("caught up is recorded in its folder").isFalse();
            // a restart is checked against the coordinator's record of what it acknowledged, then it votes
            await().atMost(Duration.ofSeconds(10)).until(() -> !node(cluster, wiped).rejoining());
        }
    }

    @Test
    void aFollowerWhoseDatabaseWasDeletedKeepsWhatWasLeftAsideAndRejoins() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 60, Map.of("router", Map.of("requestTimeoutMs", 15_000)));
        try (LocalCluster cluster = new LocalCluster(config).start();
             Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            for (int i = 0; i < 40; i++) assertThat(jedis.set("k:" + i, "v" + i)).isEqualTo("OK");
            String leader = leaderOf(cluster);
            String damaged = cluster.nodes().keySet().stream().filter(id -> !id.equals(leader)).sorted().findFirst().orElseThrow();
            await().atMost(Duration.ofSeconds(10)).until(() -> node(cluster, damaged).localStats().keyCount() == 40);
            cluster.stopNode(damaged);
            deleteTree(config.nodeDir(damaged).resolve("db"));

            cluster.startNode(damaged);
            assertThat(node(cluster, damaged).rejoining()).isTrue();
            assertThat(node(cluster, damaged).identity().reason()).contains("db/");
            try (Stream<Path> s = Files.list(config.nodeDir(damaged))) {
                Path aside = s.filter(p -> p.getFileName().toString().startsWith("damaged-")).findFirst().orElseThrow();
                assertThat(aside.resolve(node(cluster, damaged).engine().configName())).as("the surviving log is kept").isDirectory();
            }
            for (int i = 40; i < 60; i++) assertThat(jedis.set("k:" + i, "v" + i)).isEqualTo("OK");
            await().atMost(Duration.ofSeconds(30)).until(() -> !node(cluster, damaged).rejoining()
                    && node(cluster, damaged).localStats().keyCount() == 60);
        }
    }

    private static String leaderOf(LocalCluster cluster) {
        return cluster.nodes().keySet().stream().filter(id -> cluster.storage(id) != null && cluster.storage(id).node().isLeader())
                .findFirst().orElseThrow();
    }

    private static StorageNode node(LocalCluster cluster, String id) {
        return cluster.storage(id).node();
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
