package io.cairn.core.move;

import io.cairn.core.rebalance.PlanLimits;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression test: a replicaset removed from the layout while a round's status answers were coming
 * in made planning throw (its weight was gone), which ended the rebalancer's periodic task in the
 * coordinator ("rebalancer task failed", seen in TopologyChangeTest's removal). The round now plans
 * nothing, and the next round plans on the new layout.
 */
class MoverLayoutChangeTest {
    @Test
    void aReplicasetRemovedMidRoundIsPlannedWithoutInTheNextRound() {
        InMemoryReplicaset a = new InMemoryReplicaset("a");
        for (int bucket = 1; bucket <= 6; bucket++) a.bootstrap(bucket, 2, 1);
        InMemoryReplicaset b = new InMemoryReplicaset("b");
        InMemoryReplicaset c = new InMemoryReplicaset("c");
        FakeMovePort port = new FakeMovePort(a, b, c);
        Mover mover = new Mover(port, new PlanLimits(1.0, 1, 1, 1), SendMove.Limits.defaults(), true);
        mover.setLayout(new Mover.Layout(1, 6, Map.of("a", 1.0, "b", 1.0, "c", 1.0)));
        Mover.Layout withoutC = new Mover.Layout(2, 6, Map.of("a", 1.0, "b", 1.0));
        port.beforeCall = call -> {
            if (call.equals("Status@c")) mover.setLayout(withoutC);
        };

        mover.round();
        port.beforeCall = call -> { };
        assertThat(port.calls).as("nothing started on the old layout").noneMatch(call -> call.startsWith("StartSend"));
        for (int round = 0; round < 50 && countOn(b) == 0; round++) {
            mover.round();
            port.runTimers(50);
        }
        assertThat(countOn(b)).as("the next rounds move buckets to b").isPositive();
        assertThat(port.calls).noneMatch(call -> call.endsWith("@c") && !call.startsWith("Status"));
    }

    private static long countOn(InMemoryReplicaset rs) {
        return rs.status(100).active();
    }
}
