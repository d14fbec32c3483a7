package io.cairn.core.rebalance;

import org.junit.jupiter.api.Test;

import static io.cairn.core.rebalance.ReplicasetPhase.*;
import static org.assertj.core.api.Assertions.assertThat;

class ReplicasetPhaseTest {
    @Test
    void aReplicasetFillsUpThenIsReadyAndDrainsThenIsDrained() {
        assertThat(of(1, 0, 1000, false)).isEqualTo(BOOTSTRAPPING);
        assertThat(bucketsLeft(BOOTSTRAPPING, 400, 1000)).isEqualTo(600);
        assertThat(of(1, 1000, 1000, false)).isEqualTo(READY);
        assertThat(of(1, 990, 1000, true)).as("within the plan's threshold").isEqualTo(READY);
        assertThat(of(1, 0, -1, false)).as("no plan yet").isEqualTo(READY);
        assertThat(of(0, 12, 0, false)).isEqualTo(DRAINING);
        assertThat(bucketsLeft(DRAINING, 12, 0)).isEqualTo(12);
        assertThat(of(0, 0, 0, true)).isEqualTo(DRAINED);
        assertThat(bucketsLeft(READY, 5, 3)).isZero();
    }
}
