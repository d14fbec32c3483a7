package io.cairn.router;

import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.move.SendMove;
import io.cairn.core.topology.BootstrapPlanner;
import io.cairn.core.topology.Topology;
import io.cairn.core.wire.KeyPage;
import io.cairn.rebalancer.DataPlaneMovePort;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 27: a real move (rs1 -> rs2) behind a router whose map still names rs1. The old owner's
 * refusal carries the new owner on the data plane (its SENT record's peer), and the router sends
 * the operation there at once: the right answer, the route fixed, and not one discovery round.
 */
class MovedBucketPayloadTest {
    private static final int BUCKETS = 16;

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void anOpForAMovedBucketGoesStraightToTheNewOwnerTheRefusalNamesWithoutADiscoveryRound() throws Exception {
        movedBehindAStaleRoute((router, bucket, key) -> {
            long rounds = discoveryRounds(router);

            OpResult read = router.execute(List.of(KvOp.get(bucket, key))).get(10, TimeUnit.SECONDS).get(0);

            assertThat(read.isError()).as(String.valueOf(read.message())).isFalse();
            assertThat(new String(read.bytes(), StandardCharsets.UTF_8)).isEqualTo("before the move");
            assertThat(router.ownerOf(bucket)).isEqualTo("rs2");
            assertThat(router.movesFollowed()).as("ops sent to the owner the refusal named").isEqualTo(1);
            assertThat(discoveryRounds(router)).as("discovery rounds").isEqualTo(rounds);
        });
    }

    @Test
    @Timeout(120)
    void aScanOfAMovedBucketContinuesAtTheNewOwnerTheKeyPageNamesWithoutADiscoveryRound() throws Exception {
        movedBehindAStaleRoute((router, bucket, key) -> {
            long rounds = discoveryRounds(router);

            KvBackend.ScanPage page = router.scan(new KeyPage.Position(bucket, null), 10).get(10, TimeUnit.SECONDS);

            assertThat(page.keys()).extracting(k -> new String(k, StandardCharsets.UTF_8)).contains(new String(key, StandardCharsets.UTF_8));
            assertThat(router.ownerOf(bucket)).isEqualTo("rs2");
            assertThat(discoveryRounds(router)).as("discovery rounds").isEqualTo(rounds);
        });
    }

    interface StaleRouteCheck {
        void check(Router router, int bucket, byte[] key) throws Exception;
    }

    /** A key written through the router to a bucket of rs1, the bucket moved to rs2 behind the router's back, then {@code check}. */
    private void movedBehindAStaleRoute(StaleRouteCheck check) throws Exception {
        ScheduledExecutorService driver = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "moved-bucket-driver");
            t.setDaemon(true);
            return t;
        });
        try (TestCluster cluster = new TestCluster(dir, 2, 1, BUCKETS).start().bootstrap()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.leaderOf("rs1") != null && cluster.leaderOf("rs2") != null);
            // Rounds only when asked for: the periodic one is an hour away.
            RouterConfig d = RouterConfig.defaults();
            Router router = cluster.startRouter(new RouterConfig(d.requestTimeout(), Duration.ofHours(1), d.discoveryPageLimit(),
                    d.maxBatchOps(), d.maxBatchBytes(), d.maxInflightBatches(), false));
            String tag = tagOwnedBy(cluster.topology, "rs1");
            byte[] key = ("{" + tag + "}k").getBytes(StandardCharsets.UTF_8);
            int bucket = BucketHasher.bucketOf(tag.getBytes(StandardCharsets.UTF_8), BUCKETS);
            assertThat(router.execute(List.of(KvOp.set(bucket, key, bytes("before the move")))).get(10, TimeUnit.SECONDS).get(0).isError()).isFalse();

            DataPlaneMovePort port = new DataPlaneMovePort(driver);
            driver.submit(() -> port.setTopology(cluster.topology)).get(10, TimeUnit.SECONDS);
            CompletableFuture<SendMove> moved = new CompletableFuture<>();
            driver.execute(() -> SendMove.start(bucket, "rs1", "rs2", port, SendMove.Limits.defaults(), moved::complete));
            SendMove move = moved.get(60, TimeUnit.SECONDS);
            assertThat(move.result()).as(move.detail()).isEqualTo(SendMove.Result.MOVED);
            driver.submit(port::close).get(10, TimeUnit.SECONDS);

            assertThat(router.ownerOf(bucket)).as("the router has not heard of the move").isEqualTo("rs1");
            check.check(router, bucket, key);
        } finally {
            driver.shutdownNow();
        }
    }

    private static long discoveryRounds(Router router) {
        return router.discoveryCounters().values().stream().mapToLong(DiscoveryStats::rounds).sum();
    }

    /** A hash tag whose bucket the bootstrap gave to {@code replicaset}. */
    private static String tagOwnedBy(Topology topology, String replicaset) {
        BootstrapPlanner.Range range = BootstrapPlanner.plan(topology.bucketCount(), topology.replicasets()).get(replicaset);
        for (int i = 0; ; i++) {
            int b = BucketHasher.bucketOf(("t" + i).getBytes(StandardCharsets.UTF_8), topology.bucketCount());
            if (b >= range.first() && b <= range.last()) return "t" + i;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
