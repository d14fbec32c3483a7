package io.cairn.server.move;

import io.cairn.core.move.Mover;
import io.cairn.core.move.RecentDurations;
import io.cairn.core.rebalance.ReplicasetPhase;
import io.cairn.storage.DataPlaneMovePort;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The rebalancer's figures as metrics read them, and as JSON `cairn status` and the console read it. */
class RebalancerProgressTest {
    private static final Mover.Progress PLAN = new Mover.Progress(7, false, 12.5, 40, 9, 1, 2, 900, Map.of("rs1", 60, "rs2", 40, "rs3", 0),
            List.of("DOUBLED_BUCKETS: bucket 3"), new RecentDurations.Summary(5, 10, 20, 30), 4,
            Map.of("rs1", 55, "rs2", 30, "rs3", 15), Map.of("rs1", ReplicasetPhase.READY, "rs2", ReplicasetPhase.BOOTSTRAPPING, "rs3", ReplicasetPhase.DRAINING));
    private static final RebalancerProgress PROGRESS = new RebalancerProgress(PLAN, 8, 1.5, 27, 4_000_000,
            new DataPlaneMovePort.StepLatency(12, 8), new DataPlaneMovePort.Backlog(100, 200, 3), null,
            List.of(new RebalancerProgress.MoveInFlight(3, "rs1", "rs2", "STREAMING", 17)));

    @Test
    void bucketsLeftCountWhatABootstrappingReplicasetLacksAndWhatADrainingOneHolds() {
        assertThat(PROGRESS.bucketsLeft("rs1")).isZero();
        assertThat(PROGRESS.bucketsLeft("rs2")).isEqualTo(10);
        assertThat(PROGRESS.bucketsLeft("rs3")).isEqualTo(15);
        assertThat(PROGRESS.bucketsLeft("unknown")).isZero();
    }

    @Test
    void theJsonAnswerKeepsTheKeysItsReadersUse() {
        Map<String, Object> json = PROGRESS.toJson();
        assertThat(json).containsKeys("running", "epoch", "planEpoch", "balanced", "bucketsPerSecond", "etaSeconds", "disbalancePercent",
                "bucketsToMove", "inFlight", "moved", "rolledBack", "keysMoved", "copyBytesPerSecond", "stepMedianMs", "stepBaseMs", "stepRetries",
                "unsentBytes", "deferredAttempts", "writesHeldMs", "targets", "replicasets", "moves", "problems").doesNotContainKey("archiveMoves");
        assertThat(json.get("inFlight")).isEqualTo(2);
        assertThat(json.get("replicasets")).isEqualTo(Map.of("rs1", Map.of("state", "READY", "buckets", 55, "bucketsLeft", 0),
                "rs2", Map.of("state", "BOOTSTRAPPING", "buckets", 30, "bucketsLeft", 10),
                "rs3", Map.of("state", "DRAINING", "buckets", 15, "bucketsLeft", 15)));
        assertThat(json.get("moves")).isEqualTo(List.of(Map.of("bucket", 3, "from", "rs1", "to", "rs2", "phase", "STREAMING", "keysSent", 17L)));
        assertThat(json.get("writesHeldMs")).isEqualTo(Map.of("moves", 5, "p50", 10L, "p99", 20L, "max", 30L));
    }
}
