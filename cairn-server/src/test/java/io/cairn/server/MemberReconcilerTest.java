package io.cairn.server;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.core.wire.MemberChange;
import io.cairn.server.cli.CliTestAccess;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.control.MemberReconciler;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The coordinator makes each replicaset's Raft members follow the topology (issue 21,
 * {@link MemberReconciler}): it finishes an add whose command gave up, and removes a voter the
 * topology dropped only once the voters left include a caught-up majority.
 */
class MemberReconcilerTest {
    @TempDir
    Path dir;

    @Test
    void theCoordinatorRemovesADroppedVoterOnlyWhenSafeAndFinishesAnAddItsCommandGaveUpOn() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 60, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start(); Jedis jedis = TestClusters.jedis(cluster);
             CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            for (int i = 0; i < 500; i++) assertThat(jedis.set("k:" + i, "v" + i)).isEqualTo("OK");

            // s1-1 down: dropping s1-2 would leave voters s1-1 and s1-3 with only s1-3 caught up
            cluster.stopNode("s1-1");
            Topology t = coordinator.get().topology();
            CliTestAccess.proposeTopology(coordinator, t, without(t, "s1-2"), "test: s1-2 dropped from the topology");
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.coordinatorLeader().membership().getOrDefault("rs1", "").contains("not a majority"));
            ReplicasetSpec old = t.replicaset("rs1").orElseThrow();
            try (var admin = new io.cairn.storage.StorageAdmin(old, Duration.ofSeconds(10))) {
                assertThat(admin.members().voters()).containsKey("s1-2");

                cluster.startNode("s1-1");
                await().atMost(Duration.ofSeconds(60)).until(() -> voters(admin).equals(List.of("s1-1", "s1-3")));
            }
            cluster.stopNode("s1-2");
            assertThat(jedis.get("k:7")).isEqualTo("v7");

            // the command gives up at once; the coordinator adds, catches up and promotes the node anyway
            Cli add = Cli.run("node", "add", "rs1", "--dir", dir.toString(), "--timeout-seconds", "0");
            assertThat(add.exitCode()).as(add.out()).isNotZero();
            assertThat(add.err()).contains("the coordinator goes on with the change");
            ReplicasetSpec rs1 = coordinator.get().topology().replicaset("rs1").orElseThrow();
            String added = rs1.nodes().get(rs1.nodes().size() - 1).id();
            assertThat(added).isNotIn("s1-1", "s1-2", "s1-3");
            try (var admin = new io.cairn.storage.StorageAdmin(rs1, Duration.ofSeconds(10))) {
                await().atMost(Duration.ofSeconds(60)).until(() -> voters(admin).contains(added));
                assertThat(admin.members().learners()).isEmpty();
            }
            assertThat(cluster.storage(added).node().rejoining()).isFalse();
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.coordinatorLeader().membership().get("rs1") == null);

            // the new member carries the group: with s1-1 down, s1-3 and the new node elect and serve
            cluster.stopNode("s1-1");
            assertThat(jedis.set("after", "add")).isEqualTo("OK");
            for (int i = 0; i < 500; i++) assertThat(jedis.get("k:" + i)).isEqualTo("v" + i);
        }
    }

    @Test
    void aNodeRestartedOnAnOlderDiskThanTheOneOnRecordIsSetAsideAndRejoinsAsANewMember() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 60, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start(); Jedis jedis = TestClusters.jedis(cluster);
             CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            for (String id : List.of("s1-1", "s1-2", "s1-3")) {
                String disk = cluster.storage(id).node().identity().disk();
                await("the disk of " + id + " on record").atMost(Duration.ofSeconds(30)).until(() -> disk.equals(coordinator.disks().get(id)));
            }
            for (int i = 0; i < 200; i++) jedis.set("k:" + i, "old");
            Topology t0 = coordinator.get().topology();
            String oldDisk = cluster.storage("s1-3").node().identity().disk();

            // s1-3's disk is replaced: the old one is kept aside, the node starts on a new one and catches up
            cluster.stopNode("s1-3");
            Path oldCopy = dir.resolve("s1-3-old-disk");
            DoubledBucketSupport.copyTree(config.nodeDir("s1-3"), oldCopy);
            DoubledBucketSupport.deleteTree(config.nodeDir("s1-3"));
            cluster.startNode("s1-3");
            String newDisk = cluster.storage("s1-3").node().identity().disk();
            assertThat(newDisk).isNotEqualTo(oldDisk);
            await("the new disk on record").atMost(Duration.ofSeconds(60)).until(() -> newDisk.equals(coordinator.disks().get("s1-3")));
            for (int i = 0; i < 200; i++) jedis.set("k:" + i, "new");

            // the old disk is put back: its folder is the node's own, but not the disk on record; it is set aside
            // and the node comes back as a new member on a fresh folder, a learner until caught up
            cluster.stopNode("s1-3");
            DoubledBucketSupport.deleteTree(config.nodeDir("s1-3"));
            DoubledBucketSupport.copyTree(oldCopy, config.nodeDir("s1-3"));
            cluster.startNode("s1-3");
            var identity = cluster.storage("s1-3").node().identity();
            assertThat(identity.reason()).contains("records disk " + newDisk).contains("damaged-");
            assertThat(identity.disk()).isNotIn(oldDisk, newDisk);
            assertThat(identity.member()).isEqualTo(io.cairn.core.topology.MemberIds.onNewDisk("s1-3", identity.disk()));
            await("s1-3 caught up").atMost(Duration.ofSeconds(60)).until(() -> !cluster.storage("s1-3").node().rejoining());
            await("the disk it caught up on, on record").atMost(Duration.ofSeconds(30)).until(() -> identity.disk().equals(coordinator.disks().get("s1-3")));
            try (var admin = new io.cairn.storage.StorageAdmin(t0.replicaset("rs1").orElseThrow(), Duration.ofSeconds(10))) {
                await("s1-3's new member votes").atMost(Duration.ofSeconds(60)).until(() -> voters(admin).contains(identity.member()));
                assertThat(admin.recordedDisk("s1-3")).as("the replicaset's own record").isEqualTo(identity.disk());
            }
            long keys = cluster.storage("s1-1").node().localStats().keyCount();
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.storage("s1-3").node().localStats().keyCount() == keys);
            for (int i = 0; i < 200; i++) assertThat(jedis.get("k:" + i)).isEqualTo("new");
        }
    }

    private static List<String> voters(io.cairn.storage.StorageAdmin admin) {
        try {
            return admin.members().voters().keySet().stream().sorted().toList();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    private static List<ReplicasetSpec> without(Topology t, String nodeId) {
        List<ReplicasetSpec> sets = new ArrayList<>();
        for (ReplicasetSpec r : t.replicasets()) {
            List<NodeAddress> nodes = new ArrayList<>(r.nodes());
            nodes.removeIf(n -> n.id().equals(nodeId));
            sets.add(new ReplicasetSpec(r.id(), r.weight(), nodes));
        }
        return sets;
    }
}
