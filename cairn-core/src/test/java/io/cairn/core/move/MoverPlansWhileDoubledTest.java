package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.rebalance.PlanLimits;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression test, found by cairn-sim. Mover used to keep planning while it reported
 * DOUBLED_BUCKETS (vshard refuses to rebalance while the owned sum differs from bucket_count).
 * Here it sent the doubled bucket from one holder to the other: the destination refuses a second
 * copy (ReceiveChunk and FinishReceive REFUSED), SendMove retried FinishReceive forever, and the
 * sending copy stayed SENDING (refusing writes, holding a send slot) until an operator dropped one
 * copy. cairn-sim's DOUBLED_BUCKET scenario ended with the doubled bucket stuck SENDING in about
 * half of its seeds.
 */
class MoverPlansWhileDoubledTest {
    @Test
    void aDoubledBucketIsNotLeftSendingForever() {
        InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(1, 1, 1);
        InMemoryReplicaset b = new InMemoryReplicaset("b").bootstrap(1, 7, 1).bootstrap(2, 1, 1).bootstrap(3, 1, 1);
        FakeMovePort port = new FakeMovePort(a, b);
        Mover mover = new Mover(port, new PlanLimits(1.0, 1, 1, 1), SendMove.Limits.defaults(), true);
        mover.setLayout(new Mover.Layout(1, 3, Map.of("a", 1.0, "b", 1.0)));
        for (int round = 0; round < 3; round++) {
            mover.round();
            port.runTimers(50);
        }

        assertThat(mover.progress().problems()).anyMatch(p -> p.startsWith("DOUBLED_BUCKETS"));
        BucketRecord onB = b.record(1);
        assertThat(onB.state()).as("b's copy of the doubled bucket; mover in flight %s", mover.inFlight().keySet())
                .isNotEqualTo(BucketState.SENDING);
    }
}
