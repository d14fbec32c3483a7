package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Expired keys leave the disk (and DBSIZE) without being touched again. */
class ExpirySweepTest {
    @TempDir
    Path dir;

    @Test
    void theLeaderDeletesExpiredKeysThroughTheLog() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 1, 100, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = new Jedis("127.0.0.1", cluster.router().respPort())) {
                for (int i = 0; i < 50; i++) jedis.set("short" + i, "v", SetParams.setParams().px(3_000));
                for (int i = 0; i < 5; i++) jedis.set("kept" + i, "v");
                assertThat(jedis.dbSize()).isEqualTo(55);
                await().atMost(Duration.ofSeconds(20)).until(() -> jedis.dbSize() == 5);
                for (int i = 0; i < 5; i++) assertThat(jedis.get("kept" + i)).isEqualTo("v");
            }
        }
    }
}
