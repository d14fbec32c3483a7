package io.cairn.server;

import io.cairn.router.Router;
import io.cairn.server.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

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

            long[] before = router.discoveryCounters().get("rs1");
            await().atMost(Duration.ofSeconds(30)).until(() -> router.discoveryCounters().get("rs1")[0] >= before[0] + 5);
            long[] after = router.discoveryCounters().get("rs1");
            long rounds = after[0] - before[0];
            assertThat(after[4] - before[4]).as("requests in %d idle rounds", rounds).isBetween(rounds - 1, rounds + 1);
            assertThat(after[1] - before[1]).as("records received while nothing changed").isZero();
            assertThat((after[5] - before[5]) / Math.max(1, after[4] - before[4])).as("bytes per idle request").isLessThan(100);

            String from = router.ownerOf(1);
            String to = from.equals("rs1") ? "rs2" : "rs1";
            long movedBefore = ((Number) cluster.coordinator().mover().progress().get("moved")).longValue();
            assertThat(cluster.coordinator().mover().requestMove(1, to)).isTrue();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> ((Number) cluster.coordinator().mover().progress().get("moved")).longValue() > movedBefore);
            long roundsAtMove = router.discoveryCounters().get(to)[0];
            await().atMost(Duration.ofSeconds(10)).until(() -> to.equals(router.ownerOf(1)));
            assertThat(router.discoveryCounters().get(to)[0] - roundsAtMove)
                    .as("discovery rounds between the move's end and the router knowing it").isLessThanOrEqualTo(2);
            assertThat(router.discoveryCounters().get(to)[2]).as("full resyncs").isZero();
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
            long movedBefore = ((Number) cluster.coordinator().mover().progress().get("moved")).longValue();
            assertThat(cluster.coordinator().mover().requestMove(bucket, "rs2")).isTrue();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> ((Number) cluster.coordinator().mover().progress().get("moved")).longValue() > movedBefore);
            long bsnAfter = cluster.storage(newLeader).node().localStats().lastBsn();
            assertThat(bsnAfter).as("SENDING, SENT and the data drop each took a new BSN").isGreaterThanOrEqualTo(bsnBefore + 3);

            cluster.startNode(oldLeader);
            await().atMost(Duration.ofSeconds(60)).until(() -> cluster.storage(oldLeader).node().localStats().lastBsn() == bsnAfter);
            await().atMost(Duration.ofSeconds(10)).until(() -> "rs2".equals(router.ownerOf(bucket)));
            assertThat(router.discoveryCounters().get("rs1")[2]).as("full resyncs of rs1").isZero();
            assertThat(router.discoveryCounters().get("rs1")[3]).as("router cursor on rs1").isEqualTo(bsnAfter);
        }
    }
}
