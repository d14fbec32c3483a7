package io.cairn.coordinator;

import io.cairn.core.topology.Topology;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What the coordinator holds, as seen by a client at one moment: the current topology (null
 * before the first INIT), the replicasets that have created their initial buckets, and the
 * most recent forced changes (oldest first, bounded).
 */
public record CoordinatorState(Topology topology, Set<String> bootstrappedReplicasets,
                               List<ForcedChange> forcedChanges) {
    /** The state of a coordinator that has never been initialised. */
    public static final CoordinatorState EMPTY = new CoordinatorState(null, Set.of(), List.of());

    public CoordinatorState {
        bootstrappedReplicasets = bootstrappedReplicasets == null ? Set.of() : Set.copyOf(bootstrappedReplicasets);
        forcedChanges = forcedChanges == null ? List.of() : List.copyOf(forcedChanges);
    }

    /** The current epoch; 0 before the first INIT. */
    public long epoch() {
        return topology == null ? 0 : topology.epoch();
    }

    public Optional<Topology> currentTopology() {
        return Optional.ofNullable(topology);
    }

    public boolean bootstrapped(String replicasetId) {
        return bootstrappedReplicasets.contains(replicasetId);
    }
}
