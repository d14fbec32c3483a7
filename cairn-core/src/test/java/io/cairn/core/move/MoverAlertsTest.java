package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.rebalance.PlanLimits;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The rebalancer's sum check (design 000): doubled and missing buckets raise alerts that clear by themselves. */
class MoverAlertsTest {
    private static final PlanLimits LIMITS = new PlanLimits(1.0, 1, 1, 1);

    private static Mover mover(FakeMovePort port, int bucketCount) {
        Mover mover = new Mover(port, LIMITS, SendMove.Limits.defaults(), false);
        mover.setLayout(new Mover.Layout(1, bucketCount, Map.of("a", 1.0, "b", 1.0)));
        return mover;
    }

    private static void rounds(Mover mover, FakeMovePort port, int n) {
        for (int i = 0; i < n; i++) {
            mover.round();
            port.runTimers(50);
        }
    }

    @Test
    void doubledBucketsAreReportedAfterThreeRoundsAndClearWhenTheSumIsRightAgain() {
        InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(1, 1, 1).bootstrap(2, 1, 1);
        InMemoryReplicaset b = new InMemoryReplicaset("b").bootstrap(2, 3, 1).bootstrap(3, 1, 1);
        FakeMovePort port = new FakeMovePort(a, b);
        Mover mover = mover(port, 3);

        rounds(mover, port, 2);
        assertThat(mover.progress().problems()).as("one over-count may be a move seen twice").isEmpty();
        rounds(mover, port, 1);
        assertThat(mover.progress().problems()).anyMatch(p -> p.startsWith("DOUBLED_BUCKETS: replicasets own 4 buckets"));

        BucketRecord stale = a.record(2);
        a.put(new BucketRecord(2, BucketState.GARBAGE, stale.generation(), 0, "", BucketRecord.FLAG_DATA_DROPPED));
        rounds(mover, port, 1);
        assertThat(mover.progress().problems()).isEmpty();
    }

    @Test
    void missingBucketsAreReportedOnlyOnceBootstrapHasFinished() {
        InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(1, 1, 1);
        InMemoryReplicaset b = new InMemoryReplicaset("b").bootstrap(2, 1, 1);
        FakeMovePort port = new FakeMovePort(a, b);
        Mover mover = mover(port, 3);

        rounds(mover, port, 4);
        assertThat(mover.progress().problems()).as("bootstrap not finished: a shortfall is expected").isEmpty();

        mover.setBootstrapComplete(true);
        rounds(mover, port, 3);
        assertThat(mover.progress().problems()).anyMatch(p -> p.startsWith("MISSING_BUCKETS: replicasets own 2 buckets"));

        b.bootstrap(3, 1, 0);
        rounds(mover, port, 1);
        assertThat(mover.progress().problems()).isEmpty();
    }

    /** A move waiting on an answer that never comes is reported, with where it stands; nothing else is. */
    @Test
    void aMoveThatTakesNoStepFor20SecondsIsReportedAsStalled() {
        InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(1, 1, 5).bootstrap(2, 1, 1);
        InMemoryReplicaset b = new InMemoryReplicaset("b").bootstrap(3, 1, 1).bootstrap(4, 1, 1);
        FakeMovePort port = new FakeMovePort(a, b);
        port.swallow = call -> call.equals("ReceiveChunk@b");
        Mover mover = mover(port, 4);
        mover.requestMove(1, "b");
        rounds(mover, port, 3);
        assertThat(mover.progress().inFlight()).as("the move waits for its chunk's answer").isEqualTo(1);
        assertThat(mover.progress().problems()).isEmpty();

        port.extraMs += Mover.STALLED_AFTER_MS - 10;
        rounds(mover, port, 1);
        assertThat(mover.progress().problems()).as("not yet 20 s").isEmpty();
        port.extraMs += 10;
        rounds(mover, port, 1);
        assertThat(mover.progress().problems()).singleElement().asString()
                .startsWith("STALLED_MOVE: bucket 1 (a -> b) has taken no step for 20 s in COPYING (0 keys sent)");
    }
}
