package io.cairn.server.chaos;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.rebalancer.DataPlaneMovePort;
import io.cairn.server.config.ClusterConfig;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Which replicaset holds each bucket writable, asked of the replicasets themselves (the bucket
 * records their leaders answer with, through the move driver's read-only queries) at the
 * coordinator's current topology.
 */
final class Ownership {
    private Ownership() {}

    /**
     * Bucket -> the replicasets whose record of it serves writes (exactly one when all is well).
     *
     * @throws IllegalStateException when a replicaset does not answer
     */
    static Map<Integer, List<String>> writableOwners(ClusterConfig config, Collection<Integer> buckets) throws Exception {
        Topology topology;
        try (CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
            topology = coordinator.get().topology();
        }
        ScheduledExecutorService driver = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "chaos-ownership");
            t.setDaemon(true);
            return t;
        });
        DataPlaneMovePort port = new DataPlaneMovePort(driver);
        try {
            driver.submit(() -> port.setTopology(topology)).get(10, TimeUnit.SECONDS);
            Map<Integer, List<String>> out = new LinkedHashMap<>();
            for (int b : buckets) {
                List<String> owners = new ArrayList<>();
                for (ReplicasetSpec rs : topology.replicasets()) {
                    CompletableFuture<BucketDigest> f = new CompletableFuture<>();
                    driver.execute(() -> port.digest(rs.id(), b, f::complete));
                    BucketDigest d = f.get(30, TimeUnit.SECONDS);
                    if (d == null) throw new IllegalStateException(rs.id() + " did not answer for bucket " + b);
                    BucketRecord r = d.record();
                    if (r != null && r.state().servesWrites()) owners.add(rs.id());
                }
                out.put(b, owners);
            }
            return out;
        } finally {
            driver.submit(port::close).get(10, TimeUnit.SECONDS);
            driver.shutdownNow();
        }
    }
}
