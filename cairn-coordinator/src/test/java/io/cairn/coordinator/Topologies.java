package io.cairn.coordinator;

import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.RouterSpec;
import io.cairn.core.topology.Topology;

import java.util.List;

/** Test topologies. Storage and router ports are data only (below the ephemeral port range). */
final class Topologies {
    static final List<NodeAddress> ONE_COORDINATOR = List.of(new NodeAddress("c1", "127.0.0.1", 19001, 19002));

    private Topologies() {}

    /** Two replicasets of three nodes and one router, 3000 buckets, epoch 0 (as in a config file). */
    static Topology initial(List<NodeAddress> coordinators) {
        return new Topology(0, Topology.DEFAULT_BUCKET_COUNT, coordinators,
                List.of(replicaset("rs1", 20100), replicaset("rs2", 20200)),
                List.of(new RouterSpec("r1", "127.0.0.1", 20901, 20902)));
    }

    static Topology withWeight(Topology t, String replicasetId, int weight) {
        List<ReplicasetSpec> sets = t.replicasets().stream()
                .map(rs -> rs.id().equals(replicasetId) ? new ReplicasetSpec(rs.id(), weight, rs.nodes()) : rs)
                .toList();
        return new Topology(t.epoch(), t.bucketCount(), t.coordinators(), sets, t.routers());
    }

    static Topology withBucketCount(Topology t, int bucketCount) {
        return new Topology(t.epoch(), bucketCount, t.coordinators(), t.replicasets(), t.routers());
    }

    private static ReplicasetSpec replicaset(String id, int basePort) {
        return new ReplicasetSpec(id, 100, List.of(
                new NodeAddress(id + "a", "127.0.0.1", basePort + 1, basePort + 2),
                new NodeAddress(id + "b", "127.0.0.1", basePort + 3, basePort + 4),
                new NodeAddress(id + "c", "127.0.0.1", basePort + 5, basePort + 6)));
    }
}
