package io.cairn.server.move;

import io.cairn.core.move.Mover;
import io.cairn.core.rebalance.ReplicasetPhase;
import io.cairn.storage.ArchiveMoveIo;
import io.cairn.storage.DataPlaneMovePort;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the rebalancer on the coordinator leader reports: the mover's own figures with the move port's
 * and the recent move rate. Metrics read its fields; {@link #toJson()} is the {@code /rebalancer}
 * answer (and {@code rebalancer} in {@code /info}) that {@code cairn status} and the console read.
 *
 * @param epoch              the topology epoch the rebalancer knows
 * @param bucketsPerSecond   buckets moved per second over the last 10 s
 * @param etaSeconds         time left at that rate: 0 when nothing is left to move, -1 while nothing moves yet
 * @param copyBytesPerSecond the rate bucket data may be copied ahead at now (0: not limited)
 * @param archiveMoves       the archive calls moves made; null without an archive tier
 * @param moves              the moves in flight, lowest bucket first (a bounded list)
 */
public record RebalancerProgress(Mover.Progress plan, long epoch, double bucketsPerSecond, long etaSeconds, long copyBytesPerSecond,
                                 DataPlaneMovePort.StepLatency steps, DataPlaneMovePort.Backlog backlog, ArchiveMoveIo.Counts archiveMoves,
                                 List<MoveInFlight> moves) {

    /** One move in flight, as listed (the web console marks it on its bucket map). */
    public record MoveInFlight(int bucket, String from, String to, String phase, long keysSent) {}

    /** The answer while this node runs no rebalancer. */
    public static final Map<String, Object> NOT_RUNNING = Map.of("running", false);

    /** Buckets still to arrive at a BOOTSTRAPPING replicaset or to leave a DRAINING one (0 otherwise). */
    public int bucketsLeft(String replicaset) {
        ReplicasetPhase phase = plan.phases().get(replicaset);
        int buckets = plan.held().getOrDefault(replicaset, 0);
        return phase == null ? 0 : ReplicasetPhase.bucketsLeft(phase, buckets, plan.targets().getOrDefault(replicaset, -1));
    }

    /** The JSON answer; its keys are read by {@code cairn status}, the console and tools, so they stay as they are. */
    public Map<String, Object> toJson() {
        Mover.Progress p = plan;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("running", true);
        m.put("epoch", epoch);
        m.put("planEpoch", p.planEpoch());
        m.put("balanced", p.balanced());
        m.put("bucketsPerSecond", bucketsPerSecond);
        m.put("etaSeconds", etaSeconds);
        m.put("disbalancePercent", Double.isInfinite(p.disbalancePercent()) ? "inf" : Math.round(p.disbalancePercent() * 100) / 100.0);
        m.put("bucketsToMove", p.bucketsToMove());
        m.put("inFlight", p.inFlight());
        m.put("moved", p.moved());
        m.put("rolledBack", p.rolledBack());
        m.put("keysMoved", p.keysMoved());
        m.put("copyBytesPerSecond", copyBytesPerSecond);
        m.put("stepMedianMs", steps.medianMs());
        m.put("stepBaseMs", steps.baseMs());
        m.put("stepRetries", p.stepRetries());
        m.put("unsentBytes", backlog.unsentBytes());
        m.put("deferredAttempts", backlog.deferredAttempts());
        Map<String, Object> held = new LinkedHashMap<>();
        held.put("moves", p.writesHeld().samples());
        held.put("p50", p.writesHeld().p50Ms());
        held.put("p99", p.writesHeld().p99Ms());
        held.put("max", p.writesHeld().maxMs());
        m.put("writesHeldMs", held);
        if (archiveMoves != null) {
            ArchiveMoveIo.Counts c = archiveMoves;
            // Moves of archived buckets: server-side copies, durable checks (HEAD), objects found missing and copied again.
            m.put("archiveMoves", Map.of("copies", c.copies(), "durableChecks", c.durableChecks(), "missingObjects", c.missingObjects(),
                    "deletes", c.deletes(), "bytesRead", c.bytesRead(), "bytesWritten", c.bytesWritten()));
        }
        m.put("targets", p.targets());
        Map<String, Object> sets = new LinkedHashMap<>();
        p.phases().forEach((id, phase) -> sets.put(id, Map.of("state", phase.name(), "buckets", p.held().getOrDefault(id, 0),
                "bucketsLeft", bucketsLeft(id))));
        m.put("replicasets", sets);
        m.put("moves", moves.stream().map(v -> Map.of("bucket", v.bucket(), "from", v.from(), "to", v.to(), "phase", v.phase(),
                "keysSent", v.keysSent())).toList());
        m.put("problems", p.problems());
        return m;
    }
}
