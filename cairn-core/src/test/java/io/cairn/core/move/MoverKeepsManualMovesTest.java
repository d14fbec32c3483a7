package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.rebalance.PlanLimits;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bucket moved by hand stays where it was sent while the automatic rebalancer evens the counts
 * out with other buckets. Before, a balanced cluster's rebalancer sent the lowest-numbered bucket
 * of the fuller replicaset back (candidates are listed in bucket order), which is often the one
 * just moved: `cairn bucket move` was undone within a round (seen in InternalTlsClusterTest).
 */
class MoverKeepsManualMovesTest {
    @Test
    void aBucketMovedByHandIsNotTheOneTheRebalancerSendsBack() {
        InMemoryReplicaset a = new InMemoryReplicaset("a");
        InMemoryReplicaset b = new InMemoryReplicaset("b");
        for (int bucket = 1; bucket <= 4; bucket++) a.bootstrap(bucket, 2, 1);
        for (int bucket = 5; bucket <= 8; bucket++) b.bootstrap(bucket, 2, 1);
        FakeMovePort port = new FakeMovePort(a, b);
        Mover mover = new Mover(port, new PlanLimits(1.0, 1, 1, 1), SendMove.Limits.defaults(), true);
        mover.setLayout(new Mover.Layout(1, 8, Map.of("a", 1.0, "b", 1.0)));

        mover.requestMove(1, "b");
        settle(mover, port);

        assertThat(state(b, 1)).as("the bucket moved by hand is on its destination").isEqualTo(BucketState.ACTIVE);
        assertThat(a.status(100).active()).as("the rebalancer evened the counts with another bucket").isEqualTo(4);
        assertThat(b.status(100).active()).isEqualTo(4);
    }

    @Test
    void aLaterManualMoveOfTheSameBucketIsStillObeyed() {
        InMemoryReplicaset a = new InMemoryReplicaset("a");
        InMemoryReplicaset b = new InMemoryReplicaset("b");
        for (int bucket = 1; bucket <= 4; bucket++) a.bootstrap(bucket, 2, 1);
        for (int bucket = 5; bucket <= 8; bucket++) b.bootstrap(bucket, 2, 1);
        FakeMovePort port = new FakeMovePort(a, b);
        Mover mover = new Mover(port, new PlanLimits(1.0, 1, 1, 1), SendMove.Limits.defaults(), true);
        mover.setLayout(new Mover.Layout(1, 8, Map.of("a", 1.0, "b", 1.0)));

        mover.requestMove(1, "b");
        settle(mover, port);
        mover.requestMove(1, "a");
        settle(mover, port);

        assertThat(state(a, 1)).as("sent back by hand").isEqualTo(BucketState.ACTIVE);
        assertThat(a.status(100).active() + b.status(100).active()).isEqualTo(8);
        assertThat(Math.abs(a.status(100).active() - b.status(100).active())).as("balanced again").isZero();
    }

    @Test
    void aReplicasetDrainedAfterwardsLetsGoOfTheBucketMovedThereByHand() {
        InMemoryReplicaset a = new InMemoryReplicaset("a");
        InMemoryReplicaset b = new InMemoryReplicaset("b");
        for (int bucket = 1; bucket <= 4; bucket++) a.bootstrap(bucket, 2, 1);
        for (int bucket = 5; bucket <= 8; bucket++) b.bootstrap(bucket, 2, 1);
        FakeMovePort port = new FakeMovePort(a, b);
        Mover mover = new Mover(port, new PlanLimits(1.0, 1, 1, 1), SendMove.Limits.defaults(), true);
        mover.setLayout(new Mover.Layout(1, 8, Map.of("a", 1.0, "b", 1.0)));
        mover.requestMove(1, "b");
        settle(mover, port);

        mover.setLayout(new Mover.Layout(2, 8, Map.of("a", 1.0, "b", 0.0)));
        settle(mover, port);

        assertThat(b.status(100).active()).as("b drained, the bucket moved there by hand too").isZero();
        assertThat(state(a, 1)).isEqualTo(BucketState.ACTIVE);
    }

    private static void settle(Mover mover, FakeMovePort port) {
        for (int round = 0; round < 200; round++) {
            mover.round();
            port.runTimers(50);
        }
    }

    private static BucketState state(InMemoryReplicaset rs, int bucket) {
        BucketRecord r = rs.record(bucket);
        return r == null ? null : r.state();
    }
}
