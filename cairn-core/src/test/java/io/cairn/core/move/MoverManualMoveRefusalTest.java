package io.cairn.core.move;

import io.cairn.core.BucketState;
import io.cairn.core.rebalance.PlanLimits;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A manual move refused because map-reduce refs are held is asked for again; one refused by the
 * bucket's state is not. The driver decides by the refusal's type: the same words with another
 * type do not make it retry.
 */
class MoverManualMoveRefusalTest {
    private static final int B = 3;
    private final InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(1, 1, 1).bootstrap(2, 1, 1).bootstrap(B, 1, 2);
    private final InMemoryReplicaset b = new InMemoryReplicaset("b").bootstrap(4, 1, 1);
    private final FakeMovePort port = new FakeMovePort(a, b);
    private final Mover mover = new Mover(port, PlanLimits.withDefaultThreshold(1, 1, 1), SendMove.Limits.defaults(), false);

    private long startSends() {
        return port.calls.stream().filter(c -> c.startsWith("StartSend@a") || c.startsWith("StartCopy@a")).count();
    }

    private void rounds() {
        mover.round();
        port.runTimers(50);
    }

    @Test
    void aManualMoveRefusedByRefsIsTriedAgainUntilItMoves() {
        int[] refusals = {0};
        port.intercept = c -> (c instanceof MoveCommand.StartSend || c instanceof MoveCommand.StartCopy) && refusals[0]++ < 2
                ? MoveReply.refused(a.record(B), MoveReply.Refusal.REFS_HELD, "any words") : null;
        mover.setLayout(new Mover.Layout(1, 4, Map.of("a", 1.0, "b", 1.0)));
        mover.requestMove(B, "b");
        for (int round = 0; round < 5 && b.record(B) == null; round++) rounds();

        assertThat(refusals[0]).as("refused twice, then let through").isEqualTo(3);
        assertThat(b.record(B)).isNotNull().extracting(r -> r.state()).isEqualTo(BucketState.ACTIVE);
    }

    @Test
    void aManualMoveRefusedByStateIsNotTriedAgainWhateverItsWords() {
        port.intercept = c -> c instanceof MoveCommand.StartSend || c instanceof MoveCommand.StartCopy
                ? MoveReply.refused(a.record(B), MoveReply.Refusal.STATE, BucketLedger.REFS_HELD) : null;
        mover.setLayout(new Mover.Layout(1, 4, Map.of("a", 1.0, "b", 1.0)));
        mover.requestMove(B, "b");
        for (int round = 0; round < 5; round++) rounds();

        assertThat(startSends()).as("asked once").isEqualTo(1);
        assertThat(b.record(B)).isNull();
    }
}
