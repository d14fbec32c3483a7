package io.cairn.server;

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
 * The disk each storage node runs on is on record in its replicaset's own replicated state (issue 21
 * item 1), not only at the coordinator: with the coordinator's process killed, a follower restarted on
 * its older disk (put back after the disk was replaced) is refused by the replicaset's record, catches
 * up from its leader, and every write acknowledged after the old copy was taken reads back. One OS
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

            // the follower's disk is replaced: the old one is kept aside, the node starts on a new one and catches up
            cluster.kill(follower);
            Path oldCopy = dir.resolve(follower + "-old-disk");
            DoubledBucketSupport.copyTree(config.nodeDir(follower), oldCopy);
            DoubledBucketSupport.deleteTree(config.nodeDir(follower));
            cluster.start(follower);
            await(follower + " up on a new disk").atMost(Duration.ofSeconds(90)).until(() -> diskOf(cluster, follower) != null);
            String newDisk = diskOf(cluster, follower);
            assertThat(newDisk).isNotEqualTo(oldDisk);
            await("the new disk in the replicaset's record").atMost(Duration.ofSeconds(90)).ignoreExceptions()
                    .until(() -> newDisk.equals(group.recordedDisk(follower)));
            set(port, "new");
            phase(follower + " caught up on disk " + newDisk + "; new values written");

            // the coordinator dies; the old disk is put back
            cluster.kill(config.topology().coordinators().get(0).id());
            cluster.kill(follower);
            DoubledBucketSupport.deleteTree(config.nodeDir(follower));
            DoubledBucketSupport.copyTree(oldCopy, config.nodeDir(follower));
            cluster.start(follower);
            String refusal = "REPLACED_DISK: node " + follower + " of replicaset rs1 restarted on disk " + oldDisk
                    + " while replicaset rs1 records disk " + newDisk;
            await("the replicaset's record refuses the old disk").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .until(() -> Files.readString(cluster.logOf(follower)).contains(refusal));
            phase("refused with the coordinator down: " + refusal);

            // it catches up from its leader, then records the disk it caught up on, still with no coordinator
            await(follower + " caught up").atMost(Duration.ofSeconds(90)).until(() -> {
                Map<String, Object> i = cluster.info(follower);
                return i != null && Boolean.FALSE.equals(i.get("rejoining"));
            });
            await("the old disk, caught up, in the replicaset's record").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .until(() -> oldDisk.equals(group.recordedDisk(follower)));
            try (Jedis jedis = new Jedis("127.0.0.1", port, 15_000)) {
                for (int i = 0; i < KEYS; i++) assertThat(jedis.get("k:" + i)).as("k:" + i).isEqualTo("new");
            }
            cluster.awaitReplicasAgree(List.of("rs1"));
            cluster.passed();
        }
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
