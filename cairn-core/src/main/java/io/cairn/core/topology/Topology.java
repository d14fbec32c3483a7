package io.cairn.core.topology;

import java.util.List;
import java.util.Optional;

/**
 * The cluster layout at one epoch. bucketCount is fixed for the life of a cluster; every
 * change of anything else produces the next epoch (published by the coordinator).
 */
public record Topology(long epoch, int bucketCount, List<NodeAddress> coordinators,
                       List<ReplicasetSpec> replicasets, List<RouterSpec> routers) {
    public static final int DEFAULT_BUCKET_COUNT = 3000;

    public Topology {
        coordinators = List.copyOf(coordinators);
        replicasets = List.copyOf(replicasets);
        routers = routers == null ? List.of() : List.copyOf(routers);
    }

    public Optional<ReplicasetSpec> replicaset(String id) {
        return replicasets.stream().filter(r -> r.id().equals(id)).findFirst();
    }

    /** The replicaset that has a storage node with this id. */
    public Optional<ReplicasetSpec> replicasetOfNode(String nodeId) {
        return replicasets.stream().filter(r -> r.nodes().stream().anyMatch(n -> n.id().equals(nodeId))).findFirst();
    }

    public Optional<NodeAddress> storageNode(String nodeId) {
        return replicasets.stream().flatMap(r -> r.nodes().stream()).filter(n -> n.id().equals(nodeId)).findFirst();
    }

    public Optional<NodeAddress> coordinator(String nodeId) {
        return coordinators.stream().filter(n -> n.id().equals(nodeId)).findFirst();
    }

    public Optional<RouterSpec> router(String id) {
        return routers.stream().filter(r -> r.id().equals(id)).findFirst();
    }

    public Topology withEpoch(long newEpoch) {
        return new Topology(newEpoch, bucketCount, coordinators, replicasets, routers);
    }
}
