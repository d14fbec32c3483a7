package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A replicaset leader stopping under `cairn up`: its own cluster, because stopping a leader
 * disturbs the cluster that {@link LocalClusterTest}'s tests share and count keys in.
 */
class LocalClusterLeaderLossTest {
    @TempDir
    Path dir;

    @Test
    void writesFlowAgainAfterTheLeaderOfAReplicasetStops() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 60, Map.of("router", Map.of("requestTimeoutMs", 15_000)));
        try (LocalCluster cluster = new LocalCluster(config).start();
             Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            for (int i = 0; i < 50; i++) assertThat(jedis.set("fo:" + i, "v" + i)).isEqualTo("OK");
            String leader = cluster.nodes().keySet().stream()
                    .filter(id -> cluster.storage(id) != null && cluster.storage(id).node().isLeader()
                            && cluster.storage(id).node().replicaset().id().equals("rs1"))
                    .findFirst().orElseThrow();
            cluster.stopNode(leader);
            long stoppedAt = System.nanoTime();
            for (int i = 50; i < 100; i++) assertThat(jedis.set("fo:" + i, "v" + i)).isEqualTo("OK");
            System.out.printf("writes flowed again %d ms after leader %s stopped%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt), leader);
            for (int i = 0; i < 100; i++) assertThat(jedis.get("fo:" + i)).isEqualTo("v" + i);
            assertThat(jedis.dbSize()).isEqualTo(100);
            cluster.startNode(leader);
            await().atMost(Duration.ofSeconds(60)).until(() -> !"DOWN".equals(cluster.storage(leader).node().role()));
            assertThat(jedis.dbSize()).as("every key kept with the old leader back").isEqualTo(100);
        }
    }
}
