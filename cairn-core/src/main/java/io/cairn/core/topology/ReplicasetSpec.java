package io.cairn.core.topology;

import java.util.List;

/** A replicaset: a Raft group of 1, 3 or 5 storage nodes (2 or 4 while one is replaced) with a rebalancing weight. */
public record ReplicasetSpec(String id, int weight, List<NodeAddress> nodes) {
    public ReplicasetSpec {
        nodes = List.copyOf(nodes);
    }
}
