package io.cairn.server;

import io.cairn.core.topology.MemberIds;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.server.config.ClusterConfig;
import io.cairn.storage.StorageAdmin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.cairn.server.FaultSupport.phase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A follower back on a new disk (issue 21 item 1) is a new Raft member: its old member leaves the
 * voters, the new one joins as a learner, catches up and only then votes, each step the coordinator's.
 * Its disk is on record in the replicaset's own replicated state, not only at the coordinator: with the
 * coordinator's process killed, the follower restarted on its older disk (put back after the disk was
 * replaced) is refused by the replicaset's record (its folder set aside, nothing deleted), and joins
 * once the coordinator is back; every write acknowledged after the old copy was taken reads back. One OS
 * process per node ({@link ProcessCluster}); every fault is a SIGKILL.
 */
class ReplicasetDiskRecordTest {
    private static final int KEYS = 200;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void anOlderDiskPutBackWhileTheCoordinatorIsDownIsRefusedByTheReplicasetsOwnRecord() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, 60, Map.of("router", Map.of("requestTimeoutMs", 15_000)));
        ReplicasetSpec rs1 = config.topology().replicaset("rs1").orElseThrow();
        try (ProcessCluster cluster = new ProcessCluster(dir, config).startAll();
             StorageAdmin group = new StorageAdmin(rs1, Duration.ofSeconds(5))) {
            int port = cluster.respPort();
            awaitWrites(port);
            String leader = cluster.leaderOf("rs1");
            String follower = cluster.members("rs1").stream().filter(id -> !id.equals(leader)).sorted().findFirst().orElseThrow();
            String oldDisk = diskOf(cluster, follower);
            await("the disk of " + follower + " in the replicaset's record").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .until(() -> oldDisk.equals(group.recordedDisk(follower)));
            set(port, "old");
            phase("old values written; " + follower + " on disk " + oldDisk + " is on record");

            // the follower's disk is replaced: the old one is kept aside, the node comes back on a new one as a new member
            cluster.kill(follower);
            Path oldCopy = dir.resolve(follower + "-old-disk");
            DoubledBucketSupport.copyTree(config.nodeDir(follower), oldCopy);
            DoubledBucketSupport.deleteTree(config.nodeDir(follower));
            cluster.start(follower);
            await(follower + " up on a new disk").atMost(Duration.ofSeconds(90)).until(() -> diskOf(cluster, follower) != null);
            String newDisk = diskOf(cluster, follower);
            String newMember = memberOf(cluster, follower);
            assertThat(newDisk).isNotEqualTo(oldDisk);
            assertThat(newMember).isEqualTo(MemberIds.onNewDisk(follower, newDisk));
            await(newMember + " a voter in place of " + follower).atMost(Duration.ofSeconds(90)).ignoreExceptions()
                    .until(() -> voters(group).contains(newMember) && !voters(group).contains(follower));
            // the coordinator logs a step once its call returns, which can be after the group shows the change
            List<String> steps = List.of(follower + " left the group", newMember + " joined as a learner", newMember + " caught up and votes");
            await("the coordinator's steps logged").atMost(Duration.ofSeconds(30))
                    .until(() -> learnerSteps(cluster, config, newMember).size() >= steps.size());
            assertThat(learnerSteps(cluster, config, newMember)).as("the coordinator's steps, in order").containsExactlyElementsOf(steps);
            await("the new disk in the replicaset's record").atMost(Duration.ofSeconds(90)).ignoreExceptions()
                    .until(() -> newDisk.equals(group.recordedDisk(follower)));
            set(port, "new");
            phase(follower + " caught up on disk " + newDisk + " as member " + newMember + "; new values written");

            // the coordinator dies; the old disk is put back
            String coordinator = config.topology().coordinators().get(0).id();
            cluster.kill(coordinator);
            cluster.kill(follower);
            DoubledBucketSupport.deleteTree(config.nodeDir(follower));
            DoubledBucketSupport.copyTree(oldCopy, config.nodeDir(follower));
            cluster.start(follower);
            String refusal = "REPLACED_DISK: node " + follower + " of replicaset rs1 restarted on disk " + oldDisk
                    + " while replicaset rs1 records disk " + newDisk;
            await("the replicaset's record refuses the old disk").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .until(() -> Files.readString(cluster.logOf(follower)).contains(refusal));
            await(follower + " up again").atMost(Duration.ofSeconds(60)).until(() -> diskOf(cluster, follower) != null);
            String thirdMember = memberOf(cluster, follower);
            assertThat(thirdMember).as("the old folder is set aside: a new member on a fresh one").isNotIn(follower, newMember);
            assertThat(diskOf(cluster, follower)).isNotIn(oldDisk, newDisk);
            try (var aside = Files.list(config.nodeDir(follower))) {
                assertThat(aside.map(f -> f.getFileName().toString())).as("the old disk's data, kept").anyMatch(f -> f.startsWith("damaged-"));
            }
            // with no coordinator nothing changes the group: the member on the replaced disk stays a voter that never votes
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).ignoreExceptions()
                    .until(() -> voters(group).contains(newMember) && !group.members().has(thirdMember));
            assertThat(Boolean.TRUE.equals(cluster.info(follower).get("rejoining"))).isTrue();
            phase("refused with the coordinator down: " + refusal);

            // the coordinator back: the old member leaves, the new one joins as a learner, catches up and votes
            cluster.start(coordinator);
            await(thirdMember + " a voter").atMost(Duration.ofSeconds(120)).ignoreExceptions()
                    .until(() -> voters(group).contains(thirdMember) && !voters(group).contains(newMember));
            await(follower + " caught up").atMost(Duration.ofSeconds(60)).until(() -> Boolean.FALSE.equals(cluster.info(follower).get("rejoining")));
            try (Jedis jedis = new Jedis("127.0.0.1", port, 15_000)) {
                for (int i = 0; i < KEYS; i++) assertThat(jedis.get("k:" + i)).as("k:" + i).isEqualTo("new");
            }
            cluster.awaitReplicasAgree(List.of("rs1"));
            cluster.passed();
        }
    }

    private static List<String> voters(StorageAdmin group) {
        return group.members().voters().keySet().stream().sorted().toList();
    }

    /** The coordinator's membership steps for {@code member}'s node, in the order its log has them. */
    private static List<String> learnerSteps(ProcessCluster cluster, ClusterConfig config, String member) throws java.io.IOException {
        String node = MemberIds.nodeOf(member);
        List<String> steps = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(cluster.logOf(config.topology().coordinators().get(0).id()))) {
            for (String step : List.of(node + " left the group", member + " joined as a learner", member + " caught up and votes")) {
                if (line.contains("replicaset rs1: " + step)) steps.add(step);
            }
        }
        return steps;
    }

    private static String memberOf(ProcessCluster cluster, String node) {
        Map<String, Object> i = cluster.info(node);
        return i == null ? null : (String) i.get("raftMember");
    }

    private static String diskOf(ProcessCluster cluster, String node) {
        Map<String, Object> i = cluster.info(node);
        return i == null || !(i.get("disk") instanceof String d) ? null : d;
    }

    private static void set(int port, String value) {
        try (Jedis jedis = new Jedis("127.0.0.1", port, 15_000)) {
            for (int i = 0; i < KEYS; i++) assertThat(jedis.set("k:" + i, value)).isEqualTo("OK");
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
