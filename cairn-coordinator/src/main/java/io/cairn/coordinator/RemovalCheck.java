package io.cairn.coordinator;

import io.cairn.core.topology.ReplicasetSpec;

import java.util.List;

/**
 * What the coordinator leader finds when asked to remove a replicaset: the reasons not to, empty
 * when it holds nothing (no bucket with data, no move in flight). Which buckets a replicaset
 * holds lives on its storage nodes, not in the coordinator's state, so the leader asks before the
 * change enters the log, and the answer travels in the log entry (see
 * {@link CoordinatorStateMachine#startTransaction}); applying it stays a pure function.
 */
@FunctionalInterface
public interface RemovalCheck {
    /** Never throws: an unreachable replicaset is a finding ("could not confirm ..."). */
    List<String> findings(ReplicasetSpec removed);

    RemovalCheck NONE = removed -> List.of();
}
