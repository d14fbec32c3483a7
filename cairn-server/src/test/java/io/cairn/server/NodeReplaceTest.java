package io.cairn.server;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.MemberChange;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.LocalCluster;
import io.cairn.storage.StorageAdmin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code cairn node replace} on a local cluster under writes (issue 21): a new node joins as a
 * learner, catches up, votes, and the old one leaves; no client error, nothing lost. And a removal
 * that would leave the voters without a caught-up majority is refused.
 */
class NodeReplaceTest {
    @TempDir
    Path dir;

    @Test
    void aNodeIsReplacedUnderWritesWithNoClientErrorAndNothingLost() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 60, 2, Map.of("router", Map.of("requestTimeoutMs", 15_000)));
        try (LocalCluster cluster = new LocalCluster(config).start(); Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            for (int i = 0; i < 2_000; i++) assertThat(jedis.set("k:" + i, "v" + i)).isEqualTo("OK");

            Map<String, String> acknowledged = new ConcurrentHashMap<>();
            AtomicInteger errors = new AtomicInteger();
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                try (Jedis w = TestClusters.jedis(cluster)) {
                    for (int i = 0; i < 200_000 && !stop.get(); i++) {
                        String key = "w:" + (i % 500);
                        try {
                            if ("OK".equals(w.set(key, "x" + i))) acknowledged.put(key, "x" + i);
                        } catch (RuntimeException e) {
                            errors.incrementAndGet();
                            System.out.println("write error: " + e);
                        }
                    }
                }
            }, "writer");
            writer.start();

            Cli replace = Cli.run("node", "replace", "s1-2", "--dir", dir.toString());
            stop.set(true);
            writer.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(replace.exitCode()).as(replace.err()).isZero();
            assertThat(errors).as("client errors during the replace").hasValue(0);

            ReplicasetSpec rs1;
            try (CoordinatorClient c = new CoordinatorClient(config.topology().coordinators())) {
                rs1 = c.get().topology().replicaset("rs1").orElseThrow();
            }
            assertThat(rs1.nodes()).extracting(NodeAddress::id).containsExactlyInAnyOrder("s1-1", "s1-3", "s1-4");
            try (StorageAdmin admin = new StorageAdmin(rs1, Duration.ofSeconds(10))) {
                MemberChange.View members = admin.members();
                assertThat(members.voters()).containsOnlyKeys("s1-1", "s1-3", "s1-4");
                assertThat(members.learners()).isEmpty();
            }
            assertThat(cluster.storage("s1-2")).isNull();
            assertThat(config.nodeDir("s1-2")).doesNotExist();
            assertThat(ConfigLoader.load(config.source()).topology().storageNode("s1-4")).as("the config file names the new node").isPresent();
            assertThat(ConfigLoader.load(config.source()).topology().storageNode("s1-2")).isEmpty();
            assertThat(cluster.storage("s1-4").node().rejoining()).isFalse();
            Cli history = Cli.run("topology", "history", "--dir", dir.toString());
            assertThat(history.out()).contains("epoch 2: s1-4 joined rs1").contains("epoch 3: s1-2 left rs1");

            for (int i = 0; i < 2_000; i++) assertThat(jedis.get("k:" + i)).isEqualTo("v" + i);
            for (var e : acknowledged.entrySet()) assertThat(jedis.get(e.getKey())).isEqualTo(e.getValue());
            long keys = cluster.storage("s1-1").node().localStats().keyCount();
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.storage("s1-4").node().localStats().keyCount() == keys);

            // the new node carries the replicaset: with s1-1 down, s1-3 and s1-4 still elect and serve
            cluster.stopNode("s1-1");
            assertThat(jedis.set("after", "replace")).isEqualTo("OK");
            assertThat(jedis.get("k:7")).isEqualTo("v7");
            cluster.startNode("s1-1");
        }
    }

    @Test
    void aRemovalThatLeavesNoCaughtUpMajorityIsRefused() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 60, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            cluster.stopNode("s1-1");
            // voters left: s1-1 (down) and s1-3: one of two is not a majority
            Cli refused = Cli.run("node", "remove", "s1-2", "--dir", dir.toString());
            assertThat(refused.exitCode()).isEqualTo(2);
            assertThat(refused.err()).contains("not a majority").contains("--force");
            assertThat(cluster.storage("s1-2")).isNotNull();
            try (CoordinatorClient c = new CoordinatorClient(config.topology().coordinators())) {
                assertThat(c.get().topology().storageNode("s1-2")).isPresent();
            }
        }
    }
}
