package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Durability across whole-cluster restarts, and no re-creation of buckets by a wiped replicaset. */
class ClusterRestartTest {
    @TempDir
    Path dir;

    @Test
    void everyKeySurvivesStoppingAndStartingTheWholeClusterOnTheSameFolder() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, 300, Map.of());
        try (LocalCluster first = new LocalCluster(config).start()) {
            assertThat(first.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(first)) {
                for (int i = 0; i < 300; i++) jedis.set("k" + i, "v" + i);
                jedis.del("k7");
            }
        }
        try (LocalCluster second = new LocalCluster(config).start()) {
            assertThat(second.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(second)) {
                for (int i = 0; i < 300; i++) assertThat(jedis.get("k" + i)).isEqualTo(i == 7 ? null : "v" + i);
                assertThat(jedis.dbSize()).isEqualTo(299);
            }
        }
    }

    @Test
    void aReplicasetWhoseDataWasWipedDoesNotRecreateItsBuckets() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, 300, Map.of());
        try (LocalCluster first = new LocalCluster(config).start()) {
            assertThat(first.awaitReady(Duration.ofSeconds(60))).isTrue();
        }
        LocalCluster.deleteTree(config.nodeDir("s2-1"));
        try (LocalCluster second = new LocalCluster(config).start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> second.storage("s2-1").node().isLeader()
                    && second.router().router().bucketsByReplicaset().getOrDefault("rs1", 0) == 150);
            // The wiped copy got a new incarnation; the coordinator refuses its bootstrap claim.
            int admin = config.topology().storageNode("s2-1").orElseThrow().adminPort();
            await().atMost(Duration.ofSeconds(30)).until(() -> info(admin).contains("bootstrapRefused"));
            assertThat(second.storage("s2-1").node().localStats().ownedBuckets()).isZero();
            assertThat(second.router().router().unknownBuckets()).isEqualTo(150);
        }
    }

    private static String info(int adminPort) throws Exception {
        var http = java.net.http.HttpClient.newHttpClient();
        var req = java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + adminPort + "/info")).build();
        return http.send(req, java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    }
}
