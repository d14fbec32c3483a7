package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code cairn bucket of} and {@code cairn status}'s health line and exit codes against a local
 * cluster (2 replicasets x 3 nodes, 600 buckets) and against a config whose cluster is not running.
 */
class OperatorCommandsTest {
    private static final Duration SLOW = Duration.ofSeconds(120);

    @TempDir
    static Path dir;
    @TempDir
    static Path stoppedDir;
    static LocalCluster cluster;
    static ClusterConfig stopped;

    @BeforeAll
    static void start() throws Exception {
        cluster = new LocalCluster(TestClusters.config(dir, 2, 3, 600, Map.of())).start();
        assertThat(cluster.awaitReady(Duration.ofSeconds(90))).isTrue();
        stopped = TestClusters.config(stoppedDir, 1, 1, 600, Map.of()); // written, never started
    }

    @AfterAll
    static void stop() {
        if (cluster != null) cluster.close();
    }

    @Test
    void bucketOfPrintsTheKeysBucketItsOwnerAndTheOwnersLeader() {
        try (Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(jedis.set("foo", "bar")).isEqualTo("OK");
        }
        Cli of = Cli.run("bucket", "of", "foo", "--dir", dir.toString());
        assertThat(of.exitCode()).as(of.err()).isZero();
        // 1 + crc32("foo") mod 600 (crc32("foo") = 0x8c736521)
        assertThat(of.out()).contains("key foo: bucket 570 of 600 (shard key \"foo\")");
        String owner = cluster.router().router().ownerOf(570);
        String leader = cluster.config().topology().replicasets().stream().filter(rs -> rs.id().equals(owner))
                .flatMap(rs -> rs.nodes().stream()).map(n -> n.id()).filter(id -> cluster.storage(id).node().isLeader()).findFirst().orElseThrow();
        assertThat(of.out()).contains("owner: " + owner + ", ACTIVE generation").contains("leader " + leader + " (");
        assertThat(of.out()).doesNotContain("also on");
    }

    @Test
    void bucketOfAKeyWithAHashTagUsesTheTagAsTheShardKey() {
        Cli tagged = Cli.run("bucket", "of", "{user}:1000:cart", "--dir", dir.toString());
        assertThat(tagged.exitCode()).as(tagged.err()).isZero();
        assertThat(tagged.out()).contains("bucket 306 of 600 (shard key \"user\")"); // the bucket of "user"
    }

    @Test
    void bucketOfAClusterThatIsNotRunningPrintsTheBucketAndFailsClearly() {
        Cli of = Cli.run("bucket", "of", "foo", "--dir", stoppedDir.toString());
        assertThat(of.exitCode()).isEqualTo(2);
        assertThat(of.out()).contains("key foo: bucket 570 of 600");
        assertThat(of.err()).startsWith("cairn: ").contains("no coordinator leader answers (is the cluster running?)")
                .doesNotContain("Exception");
    }

    @Test
    void statusPutsAStoppedMemberFirstAndExitsDegradedUntilItIsBack() throws Exception {
        await("healthy").atMost(SLOW).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            Cli status = Cli.run("status", "--dir", dir.toString());
            assertThat(status.exitCode()).as(status.out()).isZero();
            assertThat(status.out()).startsWith("health: HEALTHY (exit 0)");
        });
        String member = cluster.config().topology().replicasets().get(1).nodes().get(1).id();
        cluster.stopNode(member);
        try {
            // degraded once the replicaset has its leader again (the stop hands leadership over when it led)
            await("degraded").atMost(SLOW).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                Cli status = Cli.run("status", "--dir", dir.toString());
                assertThat(status.exitCode()).as(status.out()).isEqualTo(3);
                assertThat(status.out()).startsWith("health: DEGRADED (exit 3): ")
                        .contains("  ! storage node " + member + " of replicaset rs2 is DOWN\n");
                assertThat(status.out().indexOf("is DOWN")).as("flagged before the tables").isLessThan(status.out().indexOf("epoch "));
            });
        } finally {
            cluster.startNode(member);
        }
        await("healthy again").atMost(SLOW).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(Cli.run("status", "--dir", dir.toString()).exitCode()).isZero());
    }

    @Test
    void statusOfAClusterThatIsNotRunningExitsUnreachable() {
        Cli status = Cli.run("status", "--dir", stoppedDir.toString());
        assertThat(status.exitCode()).isEqualTo(5);
        assertThat(status.out()).startsWith("health: UNREACHABLE (exit 5)").contains("no process of the cluster answers");
        Cli json = Cli.run("status", "--json", "--dir", stoppedDir.toString());
        assertThat(json.exitCode()).isEqualTo(5);
        assertThat(json.out()).contains("\"health\" : \"UNREACHABLE\"").contains("\"exitCode\" : 5");
    }
}
