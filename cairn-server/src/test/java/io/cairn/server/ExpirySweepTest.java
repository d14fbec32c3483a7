package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Expired keys leave the disk (and DBSIZE) without being touched again. */
class ExpirySweepTest {
    @TempDir
    Path dir;

    /**
     * DBSIZE counts the keys on disk, expired ones included until deleted, so it drops only when the
     * leader's sweep deletes them. The keys are first written with a time to live that outlives the
     * writes and the count on any machine, then given 1 ms (PEXPIRE) and never touched again.
     */
    @Test
    void theLeaderDeletesExpiredKeysThroughTheLog() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 1, 100, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                for (int i = 0; i < 50; i++) assertThat(jedis.set("short" + i, "v", SetParams.setParams().px(600_000))).isEqualTo("OK");
                for (int i = 0; i < 5; i++) assertThat(jedis.set("kept" + i, "v")).isEqualTo("OK");
                assertThat(jedis.dbSize()).isEqualTo(55);
                for (int i = 0; i < 50; i++) assertThat(jedis.pexpire("short" + i, 1)).as("short%d had a time to live to shorten", i).isEqualTo(1);
                long expiredAt = System.nanoTime();
                await().atMost(Duration.ofSeconds(60)).until(() -> jedis.dbSize() == 5);
                System.out.printf("expired keys swept from disk %d ms after they expired%n",
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - expiredAt));
                for (int i = 0; i < 5; i++) assertThat(jedis.get("kept" + i)).isEqualTo("v");
            }
        }
    }
}
