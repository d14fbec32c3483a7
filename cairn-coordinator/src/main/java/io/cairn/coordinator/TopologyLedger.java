package io.cairn.coordinator;

import io.cairn.core.ErrorCode;
import io.cairn.core.topology.BootstrapPlanner;
import io.cairn.core.topology.Topology;
import io.cairn.core.topology.TopologyValidator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The coordinator's replicated state and the pure function that changes it. No I/O, no clock,
 * no threads: {@link #apply} is called in log order on every node and must give every node the
 * same state and the same answer. Not thread-safe; the state machine serialises access.
 *
 * <p>Invariants: epochs of the kept topologies are consecutive and end at the current epoch;
 * at most {@link CoordinatorLimits#HISTORY_EPOCHS} topologies and
 * {@link CoordinatorLimits#FORCED_CHANGES_KEPT} forced changes are kept; a replicaset id, once
 * in the bootstrapped set, never leaves it (a wiped replicaset must not re-create buckets).
 */
final class TopologyLedger {
    /** Snapshot file layout, versioned so an old snapshot stays readable. */
    record Snapshot(int format, List<Topology> topologies, Map<String, Long> bootstrapClaims,
                    Map<String, BootstrapPlanner.Range> bootstrapPlan, List<ForcedChange> forcedChanges,
                    Map<String, Long> acknowledged, Map<String, String> disks, Map<String, String> settings) {
        static final int FORMAT = 5;
    }

    private final ArrayDeque<Topology> topologies = new ArrayDeque<>();
    /** Replicaset -> the incarnation that claimed its initial buckets (never removed). */
    private final TreeMap<String, Long> bootstrapClaims = new TreeMap<>();
    /** The initial spread of buckets, fixed at INIT from the epoch-1 topology. */
    private final TreeMap<String, BootstrapPlanner.Range> bootstrapPlan = new TreeMap<>();
    private final ArrayDeque<ForcedChange> forcedChanges = new ArrayDeque<>();
    /** Storage node -> the highest log index its leaders reported it holds (only raised; dropped with the node). */
    private final TreeMap<String, Long> acknowledged = new TreeMap<>();
    /** Storage node -> the disk it caught up on last (dropped with the node). */
    private final TreeMap<String, String> disks = new TreeMap<>();
    /** Run-time settings set by operators (name -> value), bounded by {@link CoordinatorLimits#MAX_SETTINGS}. */
    private final TreeMap<String, String> settings = new TreeMap<>();

    Reply apply(Command command) {
        try {
            if (command instanceof Command.Init init) return init(init.topology());
            if (command instanceof Command.Propose propose) return propose(propose);
            if (command instanceof Command.ClaimBootstrap claim) return claimBootstrap(claim.replicasetId(), claim.incarnation());
            if (command instanceof Command.ReportAcknowledged report) return reportAcknowledged(report);
            if (command instanceof Command.RecordDisk disk) return recordDisk(disk);
            if (command instanceof Command.SetSettings set) return setSettings(set);
            return Reply.refused(ErrorCode.PROTOCOL, "not a write command: " + command.getClass().getSimpleName());
        } catch (RuntimeException e) {
            // Deterministic too: the same input throws the same way on every node.
            return Reply.refused(ErrorCode.INTERNAL, "coordinator failed to apply "
                    + command.getClass().getSimpleName() + ": " + e);
        }
    }

    CoordinatorState state() {
        return new CoordinatorState(topologies.peekLast(), bootstrapClaims.keySet(), List.copyOf(forcedChanges));
    }

    /** The kept topologies, oldest first, the current one last. */
    List<Topology> history() {
        return List.copyOf(topologies);
    }

    /** The highest log index {@code nodeId} is on record as holding; 0 when none. */
    long acknowledged(String nodeId) {
        return acknowledged.getOrDefault(nodeId, 0L);
    }

    /** The disk each storage node caught up on last. */
    Map<String, String> disks() {
        return new TreeMap<>(disks);
    }

    /** The run-time settings operators set (name -> value). */
    Map<String, String> settings() {
        return new TreeMap<>(settings);
    }

    Snapshot snapshot() {
        return new Snapshot(Snapshot.FORMAT, history(), new TreeMap<>(bootstrapClaims), new TreeMap<>(bootstrapPlan),
                List.copyOf(forcedChanges), new TreeMap<>(acknowledged), new TreeMap<>(disks), new TreeMap<>(settings));
    }

    void restore(Snapshot snapshot) {
        if (snapshot.format() < 2 || snapshot.format() > Snapshot.FORMAT) { // 2: before acknowledged indexes, 3: before disks, 4: before settings
            throw new IllegalStateException("unknown coordinator snapshot format " + snapshot.format());
        }
        topologies.clear();
        bootstrapClaims.clear();
        bootstrapPlan.clear();
        forcedChanges.clear();
        acknowledged.clear();
        disks.clear();
        settings.clear();
        if (snapshot.settings() != null) settings.putAll(snapshot.settings());
        if (snapshot.acknowledged() != null) acknowledged.putAll(snapshot.acknowledged());
        if (snapshot.disks() != null) disks.putAll(snapshot.disks());
        if (snapshot.topologies() != null) topologies.addAll(snapshot.topologies());
        if (snapshot.bootstrapClaims() != null) bootstrapClaims.putAll(snapshot.bootstrapClaims());
        if (snapshot.bootstrapPlan() != null) bootstrapPlan.putAll(snapshot.bootstrapPlan());
        if (snapshot.forcedChanges() != null) forcedChanges.addAll(snapshot.forcedChanges());
    }

    private Reply init(Topology proposed) {
        if (!topologies.isEmpty()) return Reply.ok(state());
        if (proposed == null) return Reply.refused(ErrorCode.INVALID_CONFIG, "INIT without a topology");
        List<String> problems = TopologyValidator.problems(proposed);
        if (!problems.isEmpty()) {
            return Reply.refused(ErrorCode.INVALID_CONFIG, "invalid topology: " + String.join("; ", problems));
        }
        topologies.addLast(proposed.withEpoch(1));
        bootstrapPlan.putAll(BootstrapPlanner.plan(proposed.bucketCount(), proposed.replicasets()));
        return Reply.ok(state());
    }

    private Reply propose(Command.Propose p) {
        Topology current = topologies.peekLast();
        if (current == null) {
            return Reply.refused(ErrorCode.STALE_EPOCH, "the coordinator has no topology yet (epoch 0); INIT first");
        }
        if (p.expectedEpoch() != current.epoch()) {
            return Reply.refused(ErrorCode.STALE_EPOCH, "expected epoch " + p.expectedEpoch()
                    + " but the current epoch is " + current.epoch());
        }
        if (p.topology() == null) return Reply.refused(ErrorCode.INVALID_CONFIG, "PROPOSE without a topology");
        List<String> invalid = TopologyValidator.problems(p.topology());
        if (!invalid.isEmpty()) {
            return Reply.refused(ErrorCode.INVALID_CONFIG, "invalid topology: " + String.join("; ", invalid));
        }
        List<String> guardrails = new ArrayList<>(TopologyValidator.changeProblems(current, p.topology()));
        if (p.leaderFindings() != null) guardrails.addAll(p.leaderFindings());
        if (!guardrails.isEmpty() && !p.force()) {
            return Reply.refused(ErrorCode.GUARDRAIL, "refused by guardrails (use force to override): "
                    + String.join("; ", guardrails));
        }
        long epoch = current.epoch() + 1;
        publish(p.topology().withEpoch(epoch));
        if (p.force()) recordForced(new ForcedChange(epoch, p.actor(), p.reason(), p.requestedAtMs(), guardrails));
        return Reply.ok(state());
    }

    private Reply reportAcknowledged(Command.ReportAcknowledged report) {
        Topology current = topologies.peekLast();
        if (current == null || report.replicasetId() == null || report.acknowledged() == null) {
            return Reply.refused(ErrorCode.INVALID_CONFIG, "REPORT_ACKNOWLEDGED needs a replicaset of the topology and its members' indexes");
        }
        current.replicaset(report.replicasetId()).ifPresent(rs -> rs.nodes().forEach(n -> {
            Long index = report.acknowledged().get(n.id());
            if (index != null && index > acknowledged(n.id())) acknowledged.put(n.id(), index);
        }));
        return Reply.ok(null);
    }

    private Reply recordDisk(Command.RecordDisk record) {
        Topology current = topologies.peekLast();
        if (current == null || record.nodeId() == null || record.disk() == null || record.disk().isEmpty()
                || current.storageNode(record.nodeId()).isEmpty()) {
            return Reply.refused(ErrorCode.INVALID_CONFIG, "RECORD_DISK needs a storage node of the topology and a disk id");
        }
        disks.put(record.nodeId(), record.disk());
        return Reply.ok(null);
    }

    private Reply setSettings(Command.SetSettings set) {
        if (set.changes() == null || set.changes().isEmpty()) return Reply.refused(ErrorCode.INVALID_CONFIG, "SET_SETTINGS without changes");
        TreeMap<String, String> next = new TreeMap<>(settings);
        for (Map.Entry<String, String> c : set.changes().entrySet()) {
            if (c.getKey() == null || c.getKey().isEmpty()) return Reply.refused(ErrorCode.INVALID_CONFIG, "SET_SETTINGS with an empty name");
            if (c.getValue() == null || c.getValue().isEmpty()) next.remove(c.getKey());
            else next.put(c.getKey(), c.getValue());
        }
        if (next.size() > CoordinatorLimits.MAX_SETTINGS) {
            return Reply.refused(ErrorCode.INVALID_CONFIG, "at most " + CoordinatorLimits.MAX_SETTINGS + " run-time settings are kept");
        }
        settings.clear();
        settings.putAll(next);
        return Reply.ofSettings(settings);
    }

    private Reply claimBootstrap(String replicasetId, long incarnation) {
        Topology current = topologies.peekLast();
        if (current == null || replicasetId == null || current.replicaset(replicasetId).isEmpty()) {
            return Reply.refused(ErrorCode.INVALID_CONFIG, "replicaset '" + replicasetId
                    + "' is not in the topology at epoch " + (current == null ? 0 : current.epoch()));
        }
        Long holder = bootstrapClaims.get(replicasetId);
        if (holder != null && holder != incarnation) {
            return Reply.claimed(state(), BootstrapClaim.refuse("replicaset '" + replicasetId
                    + "' already created its initial buckets as incarnation " + holder + "; this copy (incarnation "
                    + incarnation + ") was wiped or replaced and must not create them again"));
        }
        bootstrapClaims.put(replicasetId, incarnation);
        BootstrapPlanner.Range range = bootstrapPlan.get(replicasetId);
        return Reply.claimed(state(), range == null ? BootstrapClaim.grant(1, 0) : BootstrapClaim.grant(range.first(), range.last()));
    }

    private void publish(Topology next) {
        topologies.addLast(next);
        // a node removed from the topology takes its record along: one added again later under its id starts anew
        acknowledged.keySet().removeIf(id -> next.storageNode(id).isEmpty());
        disks.keySet().removeIf(id -> next.storageNode(id).isEmpty());
        while (topologies.size() > CoordinatorLimits.HISTORY_EPOCHS) topologies.removeFirst();
    }

    private void recordForced(ForcedChange change) {
        forcedChanges.addLast(change);
        while (forcedChanges.size() > CoordinatorLimits.FORCED_CHANGES_KEPT) forcedChanges.removeFirst();
    }
}
