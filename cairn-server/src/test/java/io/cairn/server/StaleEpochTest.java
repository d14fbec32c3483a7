package io.cairn.server;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.BucketHasher;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.topology.Topology;
import io.cairn.router.Router;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.cli.CliTestAccess;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The epoch on every call (issue 21): a router that missed a topology change sends at its old epoch,
 * the storage nodes that know the newer one refuse at once (STALE_EPOCH, nothing submitted), and the
 * router refreshes its topology once, however many requests bounced, and sends again within the
 * requests' deadline: the client sees only a little latency.
 */
class StaleEpochTest {
    @TempDir
    Path dir;

    @Test
    void aStaleRoutersRequestsBounceItRefreshesOnceAndTheyAllSucceed() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, 60, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start();
             CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            AtomicInteger refreshes = new AtomicInteger();
            // a router that learns topologies only when a storage node refuses it (no watch)
            try (Router stale = new Router(coordinator.get().topology(), config.router().routerConfig()).start()) {
                stale.refreshTopologyFrom(() -> {
                    refreshes.incrementAndGet();
                    return coordinator.get().topology();
                });
                assertThat(stale.awaitRoutes(Duration.ofSeconds(30))).isTrue();
                assertThat(execute(stale, List.of(set("before", "1"))).get(0).isError()).isFalse();
                assertThat(stale.staleEpochBounces()).isZero();

                Topology t = coordinator.get().topology();
                Topology next = CliTestAccess.proposeTopology(coordinator, t, t.replicasets().stream()
                        .map(rs -> rs.id().equals("rs2") ? new io.cairn.core.topology.ReplicasetSpec("rs2", 2, rs.nodes()) : rs).toList(),
                        "rs2 weight 2 (the stale router does not watch)");
                await("storage nodes know epoch " + next.epoch()).atMost(Duration.ofSeconds(20)).until(() ->
                        cluster.nodes().keySet().stream().allMatch(id -> epochOf(cluster, id) >= next.epoch()));

                List<CompletableFuture<List<OpResult>>> calls = new ArrayList<>();
                long start = System.nanoTime();
                for (int i = 0; i < 50; i++) calls.add(stale.execute(List.of(set("k" + i, "v" + i))));
                for (CompletableFuture<List<OpResult>> c : calls) {
                    OpResult r = c.get(20, TimeUnit.SECONDS).get(0);
                    assertThat(r.isError()).as("%s", r).isFalse();
                }
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf("50 requests at a stale epoch: %d bounced, %d topology refresh(es), all answered in %d ms%n",
                        stale.staleEpochBounces(), refreshes.get(), tookMs);
                assertThat(stale.staleEpochBounces()).as("requests bounced").isPositive();
                assertThat(refreshes).as("one refresh in flight however many bounced").hasValue(1);
                assertThat(stale.topology().epoch()).isEqualTo(next.epoch());
                long refused = cluster.nodes().keySet().stream().mapToLong(id -> cluster.storage(id).node().staleEpochRefusals()).sum();
                // the coordinator's own move port may be refused too while its watch catches up: at least the router's
                assertThat(refused).isGreaterThanOrEqualTo(stale.staleEpochBounces());
                for (int i = 0; i < 50; i++) {
                    OpResult r = execute(stale, List.of(KvOp.get(bucket("k" + i), bytes("k" + i)))).get(0);
                    assertThat(new String(r.bytes(), StandardCharsets.UTF_8)).isEqualTo("v" + i);
                }
            }
            // a router without a topology source sends no epoch and is never refused
            try (Router embedded = new Router(config.topology(), config.router().routerConfig()).start()) {
                assertThat(embedded.awaitRoutes(Duration.ofSeconds(30))).isTrue();
                OpResult r = execute(embedded, List.of(set("plain", "x"))).get(0);
                assertThat(r.isError()).as("%s", r).isFalse();
                assertThat(r.error()).isNotEqualTo(ErrorCode.STALE_EPOCH);
            }
        }
    }

    private static long epochOf(LocalCluster cluster, String node) {
        int port = cluster.config().topology().storageNode(node).orElseThrow().adminPort();
        Map<String, Object> i = AdminClient.getJson("http://127.0.0.1:" + port + "/info");
        return i == null ? 0 : ((Number) i.get("epoch")).longValue();
    }

    private static List<OpResult> execute(Router router, List<KvOp> ops) throws Exception {
        return router.execute(ops).get(20, TimeUnit.SECONDS);
    }

    private static KvOp set(String key, String value) {
        return KvOp.set(bucket(key), bytes(key), bytes(value));
    }

    private static int bucket(String key) {
        return BucketHasher.bucketOf(bytes(key), 60);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
