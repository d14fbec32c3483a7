package io.cairn.server;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.router.DiscoveryStats;
import io.cairn.router.Router;
import io.cairn.router.RouterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.storage.DiscoveryServed;
import io.cairn.storage.StorageNode;
import io.cairn.server.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Incremental discovery (design 001) on the real stack: what an idle router pays, and how fast it learns a move. */
class DiscoveryTest {
    @TempDir
    Path dir;

    @Test
    void anIdleRouterSendsOneSmallRequestPerReplicasetPerRoundAndLearnsAMoveInTheNextRound() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, 600,
                Map.of("router", Map.of("discoveryIntervalMs", 200), "rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            Router router = cluster.router().router();

            StorageNode rs1 = cluster.storage(MoveFaultSupport.leaderOf(cluster, "rs1")).node();
            DiscoveryStats before = router.discoveryCounters().get("rs1");
            DiscoveryServed servedBefore = rs1.discoveryServed();
            await().atMost(Duration.ofSeconds(30)).until(() -> router.discoveryCounters().get("rs1").rounds() >= before.rounds() + 5);
            DiscoveryStats after = router.discoveryCounters().get("rs1");
            DiscoveryServed servedAfter = rs1.discoveryServed();
            assertThat(servedAfter.requests() - servedBefore.requests()).as("requests the storage served").isGreaterThanOrEqualTo(after.requests() - before.requests());
            assertThat(servedAfter.bytes() - servedBefore.bytes()).as("bytes the storage served").isGreaterThanOrEqualTo(after.bytes() - before.bytes());
            long rounds = after.rounds() - before.rounds();
            assertThat(after.requests() - before.requests()).as("requests in %d idle rounds", rounds).isBetween(rounds - 1, rounds + 1);
            assertThat(after.records() - before.records()).as("records received while nothing changed").isZero();
            assertThat((after.bytes() - before.bytes()) / Math.max(1, after.requests() - before.requests())).as("bytes per idle request").isLessThan(100);

            String from = router.ownerOf(1);
            String to = from.equals("rs1") ? "rs2" : "rs1";
            // Before the rebalancer's first round its progress has no counters yet: nothing moved.
            long movedBefore = ((Number) cluster.coordinator().mover().progress().getOrDefault("moved", 0L)).longValue();
            assertThat(cluster.coordinator().mover().requestMove(1, to)).isTrue();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> ((Number) cluster.coordinator().mover().progress().getOrDefault("moved", 0L)).longValue() > movedBefore);
            long roundsAtMove = router.discoveryCounters().get(to).rounds();
            // The round that taught the router is at least the last one counted while it did not know yet (rounds
            // are counted as they start; read before the owner). A late look cannot make that count larger.
            AtomicLong roundsWhileUnknown = new AtomicLong(roundsAtMove);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).until(() -> {
                long roundsSoFar = router.discoveryCounters().get(to).rounds();
                if (to.equals(router.ownerOf(1))) return true;
                roundsWhileUnknown.set(roundsSoFar);
                return false;
            });
            System.out.printf("router learned the move in round %d or later (%d rounds counted at the move's end, %d now)%n",
                    roundsWhileUnknown.get(), roundsAtMove, router.discoveryCounters().get(to).rounds());
            assertThat(roundsWhileUnknown.get() - roundsAtMove)
                    .as("discovery rounds between the move's end and the router knowing it").isLessThanOrEqualTo(2);
            assertThat(router.discoveryCounters().get(to).resyncs()).as("full resyncs").isZero();
        }
    }

    @Test
    void bsnKeepsGrowingAcrossALeaderChangeAndRoutersFollowWithoutAResync() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 3, 60, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(90))).isTrue();
            Router router = cluster.router().router();
            String oldLeader = MoveFaultSupport.leaderOf(cluster, "rs1");
            long bsnBefore = cluster.storage(oldLeader).node().localStats().lastBsn();
            assertThat(bsnBefore).as("bootstrap took BSNs").isPositive();

            cluster.stopNode(oldLeader);
            String newLeader = MoveFaultSupport.leaderOf(cluster, "rs1");
            assertThat(newLeader).isNotEqualTo(oldLeader);
            assertThat(cluster.storage(newLeader).node().localStats().lastBsn()).as("the new leader has every committed BSN")
                    .isEqualTo(bsnBefore);

            int bucket = 1; // rs1 holds the first half of the buckets after bootstrap
            assertThat(router.ownerOf(bucket)).isEqualTo("rs1");
            // Before the rebalancer's first round its progress has no counters yet: nothing moved.
            long movedBefore = ((Number) cluster.coordinator().mover().progress().getOrDefault("moved", 0L)).longValue();
            assertThat(cluster.coordinator().mover().requestMove(bucket, "rs2")).isTrue();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> ((Number) cluster.coordinator().mover().progress().getOrDefault("moved", 0L)).longValue() > movedBefore);
            long bsnAfter = cluster.storage(newLeader).node().localStats().lastBsn();
            assertThat(bsnAfter).as("SENDING, SENT and the data drop each took a new BSN").isGreaterThanOrEqualTo(bsnBefore + 3);

            cluster.startNode(oldLeader);
            await().atMost(Duration.ofSeconds(60)).until(() -> cluster.storage(oldLeader).node().localStats().lastBsn() == bsnAfter);
            await().atMost(Duration.ofSeconds(30)).until(() -> "rs2".equals(router.ownerOf(bucket)));
            assertThat(router.discoveryCounters().get("rs1").resyncs()).as("full resyncs of rs1").isZero();
            assertThat(router.discoveryCounters().get("rs1").cursor()).as("router cursor on rs1").isEqualTo(bsnAfter);
        }
    }

    @Test
    void aRouterWhoseCursorFellBelowTheHorizonResyncsOnceAndANewRouterLearnsTheWholeMap() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, 60,
                Map.of("storage", Map.of("tombstoneRetentionMs", io.cairn.storage.StorageConfig.MIN_TOMBSTONE_RETENTION_MS),
                        "rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            int bucket = 1;
            byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            assertThat(execute(cluster.router().router(), KvOp.set(bucket, key, key)).isError()).isFalse();
            // A router that looks again only once a minute, or when a request meets a wrong owner.
            try (Router sleepy = embeddedRouter(config, Duration.ofSeconds(60))) {
                assertThat(sleepy.awaitRoutes(Duration.ofSeconds(30))).isTrue();
                assertThat(sleepy.ownerOf(bucket)).isEqualTo("rs1");

                moveAndWait(cluster, bucket, "rs2");
                String source = MoveFaultSupport.leaderOf(cluster, "rs1");
                // collected once the tombstone is older than the retention (the floor: longer than any move call)
                await().atMost(Duration.ofSeconds(60)).until(() -> cluster.storage(source).node().horizonBsn() > 0);
                assertThat(cluster.storage(source).node().localStats().ownedBuckets()).isEqualTo(29);

                OpResult read = execute(sleepy, KvOp.get(bucket, key));
                assertThat(read.isError()).as("%s", read).isFalse();
                assertThat(read.bytes()).isEqualTo(key);
                assertThat(sleepy.ownerOf(bucket)).isEqualTo("rs2");
                assertThat(sleepy.discoveryCounters().get("rs1").resyncs()).as("full resyncs of rs1").isEqualTo(1);
                assertThat(sleepy.unknownBuckets()).isZero();
            }
            try (Router fresh = embeddedRouter(config, Duration.ofSeconds(1))) {
                assertThat(fresh.awaitRoutes(Duration.ofSeconds(30))).isTrue();
                assertThat(fresh.ownerOf(bucket)).isEqualTo("rs2");
                assertThat(fresh.bucketsByReplicaset()).containsEntry("rs1", 29).containsEntry("rs2", 31);
            }
        }
    }

    @Test
    void aReplicasetRestoredFromAnOldCopyOfItsFoldersCausesOneFullResync() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, 60,
                Map.of("router", Map.of("discoveryIntervalMs", 200), "rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            Router router = cluster.router().router();
            String node = MoveFaultSupport.nodeIds(cluster, "rs2").get(0);
            Path backup = dir.resolve("backup-" + node);
            cluster.stopNode(node);
            copyTree(config.nodeDir(node), backup);
            cluster.startNode(node);

            int bucket = 1;
            moveAndWait(cluster, bucket, "rs2");
            await().atMost(Duration.ofSeconds(30)).until(() -> "rs2".equals(router.ownerOf(bucket)));
            long resyncsBefore = router.discoveryCounters().get("rs2").resyncs();

            cluster.stopNode(node);
            LocalCluster.deleteTree(config.nodeDir(node));
            copyTree(backup, config.nodeDir(node));
            cluster.startNode(node);

            // The restored copy never received the bucket: the router must forget rs2's claim, not keep routing there.
            await().atMost(Duration.ofSeconds(30)).until(() -> router.ownerOf(bucket) == null);
            long rounds = router.discoveryCounters().get("rs2").rounds();
            await().atMost(Duration.ofSeconds(30)).until(() -> router.discoveryCounters().get("rs2").rounds() >= rounds + 5);
            assertThat(router.discoveryCounters().get("rs2").resyncs() - resyncsBefore).as("full resyncs of rs2").isEqualTo(1);
            assertThat(router.bucketsByReplicaset()).containsEntry("rs1", 29).containsEntry("rs2", 30);
            assertThat(router.unknownBuckets()).isEqualTo(1);
        }
    }

    private static Router embeddedRouter(ClusterConfig config, Duration discoveryInterval) {
        RouterConfig defaults = config.router().routerConfig();
        return new Router(config.topology(), new RouterConfig(defaults.requestTimeout(), discoveryInterval, defaults.discoveryPageLimit(),
                defaults.maxBatchOps(), defaults.maxBatchBytes(), defaults.maxInflightBatches(), defaults.followerReads())).start();
    }

    private static OpResult execute(Router router, KvOp op) throws Exception {
        return router.execute(List.of(op)).get(20, TimeUnit.SECONDS).get(0);
    }

    private static void moveAndWait(LocalCluster cluster, int bucket, String to) {
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.coordinator().mover().progress().get("moved") != null);
        long movedBefore = MoveFaultSupport.longOf(cluster.coordinator().mover().progress(), "moved");
        assertThat(cluster.coordinator().mover().requestMove(bucket, to)).isTrue();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> MoveFaultSupport.longOf(cluster.coordinator().mover().progress(), "moved") > movedBefore);
    }

    private static void copyTree(Path from, Path to) throws java.io.IOException {
        try (var paths = Files.walk(from)) {
            for (Path p : paths.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target);
            }
        }
    }
}
