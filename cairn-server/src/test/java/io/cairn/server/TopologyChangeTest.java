package io.cairn.server;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.core.topology.Topology;
import io.cairn.rebalancer.MoverService;
import io.cairn.server.MoveFaultSupport.RecordingWriter;
import io.cairn.server.MoveFaultSupport.Records;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.CoordinatorProcess;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.cairn.server.MoveFaultSupport.assertDbSize;
import static io.cairn.server.MoveFaultSupport.assertEveryKeyReadsBack;
import static io.cairn.server.MoveFaultSupport.assertNoProblems;
import static io.cairn.server.MoveFaultSupport.assertReplicasAgree;
import static io.cairn.server.MoveFaultSupport.jedis;
import static io.cairn.server.MoveFaultSupport.leaderOf;
import static io.cairn.server.MoveFaultSupport.localKeys;
import static io.cairn.server.MoveFaultSupport.longOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Topology changes through the real stack and the {@code cairn topology} commands a user types:
 * a third replicaset joins a loaded two-replicaset cluster while a source or the destination
 * loses its Raft leader mid-rebalance, and a drained replicaset is removed. Afterwards every
 * bucket is owned exactly once with all its keys (SYSTEM.md invariants 1-4), no acknowledged
 * write is lost, and no client saw an error or a wrong value.
 */
class TopologyChangeTest {
    private static final int BUCKETS = 60;
    private static final int KEYS = 1_800;

    @TempDir
    Path dir;

    private enum Victim { SOURCE_LEADER, DESTINATION_LEADER }

    @ParameterizedTest
    @EnumSource(Victim.class)
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aThirdReplicasetJoinsUnderLoadWhileALeaderIsKilledMidRebalance(Victim victim) throws Exception {
        // One move into rs3 at a time, chunks of 2 keys, the copy paced at 12 KB/s: the 20 moves
        // take several seconds, so the kill lands among them.
        ClusterConfig config = TestClusters.config(dir, 2, 3, BUCKETS, 3, Map.of("rebalancer", Map.of(
                "chunkKeys", 2, "roundIntervalMs", 100, "maxReceivingPerReplicaset", 1, "maxBytesPerSecond", 12_000)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            Map<String, String> initial = load(cluster);
            List<RecordingWriter> writers = new ArrayList<>();
            int port = cluster.router().respPort();
            for (int w = 0; w < 2; w++) {
                List<String> keys = new ArrayList<>();
                for (int i = w; i < KEYS; i += 4) keys.add(key(i)); // disjoint sets: one writer per key
                writers.add(new RecordingWriter("writer-" + w, port, keys, 50_000, Duration.ofSeconds(120)).verifyingReads().start());
            }
            try {
                await("writers under way").atMost(Duration.ofSeconds(30)).until(() -> writers.stream().allMatch(w -> w.acks.get() >= 20));

                assertThat(Cli.run("topology", "add-replicaset", "--config", config.source().toString(), "--replicas", "3").exitCode())
                        .as("add-replicaset").isZero();
                MoverService mover = cluster.coordinator().mover();
                awaitMovesToRs3UnderWay(mover);

                String victimRs = victim == Victim.SOURCE_LEADER ? "rs1" : "rs3";
                String killed = leaderOf(cluster, victimRs);
                Map<String, Object> atKill = mover.progress();
                cluster.stopNode(killed);
                System.out.printf("%s: stopped %s (leader of %s) with %s%n", victim, killed, victimRs, atKill);
                assertThat(longOf(atKill, "moved")).as("moves done when the leader was killed").isLessThan(BUCKETS / 3 - 2);

                awaitRs3HasItsShare(cluster, mover, "balanced");
                await("rs3 READY").atMost(Duration.ofSeconds(30)).until(() -> "READY".equals(stateOf(mover, "rs3")));
                cluster.startNode(killed);
                for (RecordingWriter w : writers) w.stopAndJoin();

                for (RecordingWriter w : writers) {
                    System.out.printf("%s: %d attempts, %d acknowledged, errors %s%n", w.name(), w.attempts.get(), w.acks.get(), w.errors);
                    assertThat(w.errors).as(w.name() + ": client-visible errors").isEmpty();
                    assertThat(w.wrongReads).as(w.name() + ": reads after an acknowledged write").isEmpty();
                    assertThat(w.acks.get()).isPositive();
                }
                assertNoProblems(mover::progress);
                List<String> replicasets = List.of("rs1", "rs2", "rs3");
                Map<String, Integer> counts = cluster.router().router().bucketsByReplicaset();
                for (String rs : replicasets) assertThat(counts.get(rs)).as(rs + " buckets, within the 1 % threshold").isEqualTo(BUCKETS / 3);
                assertEachBucketOwnedOnce(cluster, config, replicasets);
                assertEveryKeyReadsBack(cluster, initial, writers);
                assertDbSize(cluster, KEYS);
                assertReplicasAgree(cluster, replicasets);
            } finally {
                for (RecordingWriter w : writers) w.stopAndJoin();
            }
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aRebalanceGoesOnWhenTheCoordinatorLeaderRunningItIsKilled() throws Exception {
        ClusterConfig config = threeCoordinatorsAndAnEmptyRs3(TestClusters.config(dir, 3, 1, BUCKETS, Map.of("rebalancer", Map.of(
                "chunkKeys", 2, "roundIntervalMs", 100, "maxReceivingPerReplicaset", 1, "maxBytesPerSecond", 12_000))));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            Map<String, String> initial = load(cluster);
            List<String> keys = new ArrayList<>(initial.keySet());
            RecordingWriter writer = new RecordingWriter("writer", cluster.router().respPort(), keys, 50_000, Duration.ofSeconds(120))
                    .verifyingReads().start();
            try {
                assertThat(Cli.run("topology", "set-weight", "--config", config.source().toString(), "rs3", "1").exitCode()).isZero();
                CoordinatorProcess first = cluster.coordinatorLeader();
                assertThat(first).isNotNull();
                awaitMovesToRs3UnderWay(first.mover());
                Map<String, Object> atKill = first.mover().progress();
                cluster.stopCoordinator(first);
                System.out.printf("stopped the coordinator leader with %s%n", atKill);
                assertThat(longOf(atKill, "moved")).as("moves done when the coordinator was killed").isLessThan(BUCKETS / 3 - 2);

                await("another coordinator leads").atMost(Duration.ofSeconds(60)).until(() -> cluster.coordinatorLeader() != null);
                CoordinatorProcess second = cluster.coordinatorLeader();
                awaitRs3HasItsShare(cluster, second.mover(), "balanced by the new leader's rebalancer");
                writer.stopAndJoin();
                System.out.printf("%d attempts, %d acknowledged, errors %s; new leader: %s%n",
                        writer.attempts.get(), writer.acks.get(), writer.errors, second.mover().progress());
                assertThat(writer.errors).as("client-visible errors").isEmpty();
                assertThat(writer.wrongReads).as("reads after an acknowledged write").isEmpty();
                assertThat(longOf(second.mover().progress(), "moved")).as("moves finished by the new leader").isPositive();
                assertNoProblems(second.mover()::progress);
                assertEachBucketOwnedOnce(cluster, config, List.of("rs1", "rs2", "rs3"));
                assertEveryKeyReadsBack(cluster, initial, List.of(writer));
                assertDbSize(cluster, KEYS);
            } finally {
                writer.stopAndJoin();
            }
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aDrainedReplicasetIsRemovedAndItsDataIsGone() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 3, 1, BUCKETS, Map.of("rebalancer", Map.of("roundIntervalMs", 100)));
        String file = config.source().toString();
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            Map<String, String> initial = load(cluster);
            assertThat(localKeys(cluster, "s3-1")).as("rs3's share of the keys").isPositive();
            assertThat(cluster.storage("s3-1").node().localStats().heldBuckets()).as("rs3's buckets held")
                    .isEqualTo(cluster.router().router().bucketsByReplicaset().get("rs3"));

            Cli refused = Cli.run("topology", "remove-replicaset", "--config", file, "rs3");
            assertThat(refused.exitCode()).isEqualTo(2);
            assertThat(refused.err()).contains("has weight 1").contains("set-weight rs3 0");
            try (CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
                // Past the command line too: the coordinator's leader asks rs3 what it holds.
                Topology t = coordinator.get().topology();
                Topology withoutRs3 = new Topology(t.epoch(), t.bucketCount(), t.coordinators(),
                        t.replicasets().stream().filter(rs -> !rs.id().equals("rs3")).toList(), t.routers());
                int rs3Buckets = cluster.router().router().bucketsByReplicaset().get("rs3");
                assertThatThrownBy(() -> coordinator.propose(t.epoch(), withoutRs3, false, "around the command line"))
                        .hasMessageContaining("replicaset 'rs3' still holds " + rs3Buckets + " buckets");
            }

            Cli drain = Cli.run("topology", "set-weight", "--config", file, "rs3", "0", "--wait", "--wait-seconds", "120");
            assertThat(drain.exitCode()).as(drain.err()).isZero();
            // the router learns the last moves at its next discovery round
            await("the router sees rs3 empty").atMost(Duration.ofSeconds(10))
                    .until(() -> cluster.router().router().bucketsByReplicaset().getOrDefault("rs3", 0) == 0);
            // Its buckets stay as SENT tombstones; their data is dropped by the garbage collector.
            await("rs3 holds nothing").atMost(Duration.ofSeconds(30)).until(() -> cluster.storage("s3-1").node().localStats().heldBuckets() == 0);
            assertThat(localKeys(cluster, "s3-1")).as("rs3's keys once nothing is held").isZero();
            Path rs3Data = config.nodeDir("s3-1");
            assertThat(rs3Data).exists();
            // drain states (issue 21): rs3 DRAINED, the others READY; a weight-0 replicaset receives no bucket, even by hand
            MoverService mover = cluster.coordinator().mover();
            await("rs3 DRAINED").atMost(Duration.ofSeconds(30)).until(() -> "DRAINED".equals(stateOf(mover, "rs3")));
            assertThat(stateOf(mover, "rs1")).isEqualTo("READY");
            assertThat(Cli.run("topology", "show", "--config", file).exitCode()).isZero();
            Cli intoDrained = Cli.run("bucket", "move", "1", "--to", "rs3", "--config", file);
            assertThat(intoDrained.exitCode()).isNotZero();
            assertThat(intoDrained.err()).contains("weight 0").contains("receives no buckets");

            Cli removed = Cli.run("topology", "remove-replicaset", "--config", file, "rs3");
            assertThat(removed.exitCode()).as(removed.err()).isZero();
            assertThat(cluster.storage("s3-1")).as("rs3's node stopped").isNull();
            assertThat(rs3Data).as("rs3's data folder").doesNotExist();
            assertThat(Files.readString(config.source())).doesNotContain("rs3");
            try (CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
                Topology t = coordinator.get().topology();
                assertThat(t.replicaset("rs3")).as("rs3 at epoch " + t.epoch()).isEmpty();
            }
            Map<String, Integer> counts = cluster.router().router().bucketsByReplicaset();
            assertThat(counts.get("rs1") + counts.get("rs2")).isEqualTo(BUCKETS);
            assertEveryKeyReadsBack(cluster, initial, List.of());
            assertDbSize(cluster, KEYS);
            try (Jedis jedis = jedis(cluster)) {
                assertThat(jedis.set(key(0), "after-removal")).isEqualTo("OK");
                assertThat(jedis.get(key(0))).isEqualTo("after-removal");
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aForcedRemovalOfAReplicasetThatHoldsBucketsIsRecordedAndKeepsItsData() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 3, 1, BUCKETS, Map.of());
        String file = config.source().toString();
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            load(cluster);
            long rs3Keys = localKeys(cluster, "s3-1");
            assertThat(rs3Keys).isPositive();

            Cli forced = Cli.run("topology", "remove-replicaset", "--config", file, "--force", "rs3");

            assertThat(forced.exitCode()).as(forced.err()).isZero();
            assertThat(cluster.storage("s3-1")).as("rs3's node stopped").isNull();
            assertThat(config.nodeDir("s3-1")).as("rs3's data folder, its buckets' last copy").exists();
            try (CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
                var state = coordinator.get();
                assertThat(state.topology().replicaset("rs3")).isEmpty();
                assertThat(state.forcedChanges()).last().satisfies(f -> assertThat(f.overriddenProblems())
                        .anyMatch(p -> p.contains("'rs3' has weight 1"))
                        .anyMatch(p -> p.contains("'rs3' still holds")));
            }
        }
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** Rewrites the config file: three coordinator nodes (c2, c3 on free ports of the test's range) and rs3 at weight 0. */
    @SuppressWarnings("unchecked")
    private static ClusterConfig threeCoordinatorsAndAnEmptyRs3(ClusterConfig config) throws Exception {
        Map<String, Object> tree = ConfigLoader.readTree(config.source());
        int base = config.topology().coordinators().get(0).raftPort(); // c1: base, base + 1; router admin: base + 2; nodes from base + 10
        List<Object> coordinators = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int raft = i == 0 ? base : base + 1 + 2 * i;
            coordinators.add(Map.of("id", "c" + (i + 1), "host", "127.0.0.1", "raftPort", raft, "adminPort", raft + 1));
        }
        tree.put("coordinators", coordinators);
        for (Object rs : (List<Object>) tree.get("replicasets")) {
            Map<String, Object> set = (Map<String, Object>) rs;
            if ("rs3".equals(set.get("id"))) set.put("weight", 0);
        }
        ConfigLoader.write(config.source(), tree);
        return ConfigLoader.load(config.source());
    }

    private static String key(int i) {
        return "key:" + i;
    }

    private static Map<String, String> load(LocalCluster cluster) {
        Map<String, String> initial = new LinkedHashMap<>();
        try (Jedis jedis = jedis(cluster)) {
            List<String> kv = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                initial.put(key(i), "v" + i);
                kv.add(key(i));
                kv.add("v" + i);
                if (kv.size() == 600 || i == KEYS - 1) {
                    assertThat(jedis.mset(kv.toArray(String[]::new))).isEqualTo("OK");
                    kv.clear();
                }
            }
            assertThat(jedis.dbSize()).isEqualTo(KEYS);
        }
        return initial;
    }

    /**
     * Asks every replicaset's leader for every bucket's record and key count: exactly one holds a
     * writable copy, the others none that routes and no data of it; the owned counts add up.
     */
    private static void assertEachBucketOwnedOnce(LocalCluster cluster, ClusterConfig config, List<String> replicasets) throws Exception {
        Topology topology;
        try (CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
            topology = coordinator.get().topology();
        }
        List<String> wrong = new ArrayList<>();
        try (Records records = new Records(topology)) {
            for (int bucket = 1; bucket <= BUCKETS; bucket++) {
                List<String> owners = new ArrayList<>();
                Map<String, String> seen = new LinkedHashMap<>();
                for (String rs : replicasets) {
                    BucketDigest d = records.digest(rs, bucket);
                    assertThat(d).as("digest of bucket " + bucket + " from " + rs).isNotNull();
                    BucketRecord r = d.record();
                    seen.put(rs, MoveFaultSupport.describe(r) + " keys=" + d.keyCount());
                    if (r != null && r.state().servesWrites()) owners.add(rs);
                    else if (r != null && r.state().isRoutable() || d.keyCount() != 0) wrong.add("bucket " + bucket + " left on " + rs + ": " + seen);
                }
                if (owners.size() != 1) wrong.add("bucket " + bucket + " has " + owners.size() + " writable copies: " + seen);
            }
        }
        assertThat(wrong).as("buckets not owned exactly once").isEmpty();
        MoveFaultSupport.awaitOwnedBucketsAddUp(cluster, replicasets.size(), BUCKETS);
    }

    @SuppressWarnings("unchecked")
    private static String stateOf(MoverService mover, String replicaset) {
        Object sets = mover.progress().get("replicasets");
        Object rs = sets instanceof Map<?, ?> m ? m.get(replicaset) : null;
        return rs instanceof Map<?, ?> r ? String.valueOf(r.get("state")) : null;
    }

    private static void awaitMovesToRs3UnderWay(MoverService mover) {
        await("moves to rs3 under way").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10))
                .until(() -> longOf(mover.progress(), "inFlight") > 0 && longOf(mover.progress(), "moved") >= 2);
    }

    /** rs3 owns its third of the buckets, every bucket has one owner in the router's map, and no move is in flight. */
    private static void awaitRs3HasItsShare(LocalCluster cluster, MoverService mover, String what) {
        await(what).atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100)).until(() -> {
            Map<String, Integer> counts = cluster.router().router().bucketsByReplicaset();
            return counts.getOrDefault("rs3", 0) == BUCKETS / 3 && longOf(mover.progress(), "inFlight") == 0
                    && counts.values().stream().mapToInt(Integer::intValue).sum() == BUCKETS;
        });
    }
}
