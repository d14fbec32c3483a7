package io.cairn.core.move;

import io.cairn.core.rebalance.PlanLimits;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression test, found by {@code cairn bench discovery} (more buckets moved than the layout
 * needed). A move the Mover started whose StartSend the source has not applied yet still shows
 * the bucket ACTIVE at the source; a round in between must count it as leaving, or it plans a
 * second move for the same shortfall and exceeds the send limit.
 */
class MoverCountsUnconfirmedStartsTest {
    @Test
    void aStartNotYetAppliedCountsAtItsDestinationAndAgainstTheSendLimit() {
        InMemoryReplicaset a = new InMemoryReplicaset("a");
        for (int bucket = 1; bucket <= 4; bucket++) a.bootstrap(bucket, 1, 1);
        InMemoryReplicaset b = new InMemoryReplicaset("b");
        HeldStarts port = new HeldStarts(new FakeMovePort(a, b));
        Mover mover = new Mover(port, new PlanLimits(0.0, 1, 4, 4), SendMove.Limits.defaults(), true);
        mover.setLayout(new Mover.Layout(1, 4, Map.of("a", 1.0, "b", 1.0)));

        mover.round();
        assertThat(port.held).as("StartSends waiting for the source").hasSize(1);
        mover.round(); // the source still shows every bucket ACTIVE
        assertThat(port.held).as("one send at a time from a, and one bucket already leaving").hasSize(1);
    }

    @Test
    void aReplicasetThatIsReceivingIsNoDonorEvenWhenItsCountsLookHigh() {
        InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(1, 1, 1);
        InMemoryReplicaset b = new InMemoryReplicaset("b");
        for (int bucket = 2; bucket <= 6; bucket++) b.bootstrap(bucket, 1, 1);
        b.put(new io.cairn.core.BucketRecord(7, io.cairn.core.BucketState.RECEIVING, 2, 0, "a", 0));
        FakeMovePort port = new FakeMovePort(a, b);
        Mover mover = new Mover(port, new PlanLimits(0.0, 4, 4, 4), SendMove.Limits.defaults(), true);
        mover.setLayout(new Mover.Layout(1, 7, Map.of("a", 1.0, "b", 1.0)));

        mover.round();
        assertThat(port.calls).as("b counts 5 ACTIVE + 1 arriving against a target of 3 or 4, but it is receiving")
                .noneMatch(c -> c.equals("StartSend@b"));
    }

    /**
     * Found by {@code cairn bench moves} (1,260 buckets moved for ~1,000 needed with 64 sends in
     * flight): a status answered before a StartSend applied, arriving after the StartSend's reply,
     * showed the bucket ACTIVE at its source while the move had left STARTING, so the plan moved
     * more buckets than the shortfall, and later moved them back.
     */
    @Test
    void aStartConfirmedAfterAStaleStatusStillCountsAsLeaving() {
        InMemoryReplicaset a = new InMemoryReplicaset("a");
        for (int bucket = 1; bucket <= 4; bucket++) a.bootstrap(bucket, 1, 1);
        InMemoryReplicaset b = new InMemoryReplicaset("b");
        HeldStarts port = new HeldStarts(new FakeMovePort(a, b));
        Mover mover = new Mover(port, new PlanLimits(0.0, 4, 4, 4), SendMove.Limits.defaults(), true);
        mover.setLayout(new Mover.Layout(1, 4, Map.of("a", 1.0, "b", 1.0)));

        mover.round();
        assertThat(port.held).as("two moves for a target of 2 + 2").hasSize(2);
        port.holdStatusReplies = true;
        mover.round(); // answered now: every bucket ACTIVE at a; the answers arrive below
        port.holdChunks = true;
        port.releaseStarts(); // both moves confirmed; they copy, and their chunks wait
        assertThat(mover.inFlight().values()).allMatch(m -> m.phase() == SendMove.Phase.COPYING);
        port.releaseStatusReplies();
        assertThat(mover.inFlight()).as("moves after the stale answers arrived").hasSize(2);
        assertThat(port.held).as("no third or fourth move for the shortfall the two in flight already cover").isEmpty();
    }

    /**
     * Holds a move's first command (StartCopy, or StartSend without a copy ahead), neither applied
     * nor answered, until {@link #releaseStarts}, and on
     * request ReceiveChunk commands and status replies (answered when asked, delivered later).
     */
    private static final class HeldStarts implements MovePort {
        final FakeMovePort inner;
        final ArrayDeque<MoveCommand> held = new ArrayDeque<>();
        private final ArrayDeque<Runnable> heldSubmits = new ArrayDeque<>();
        private final ArrayDeque<Runnable> heldStatuses = new ArrayDeque<>();
        boolean holdChunks;
        boolean holdStatusReplies;

        HeldStarts(FakeMovePort inner) {
            this.inner = inner;
        }

        void releaseStarts() {
            held.clear();
            while (!heldSubmits.isEmpty()) heldSubmits.poll().run();
        }

        void releaseStatusReplies() {
            holdStatusReplies = false;
            while (!heldStatuses.isEmpty()) heldStatuses.poll().run();
        }

        @Override
        public void submit(String replicaset, MoveCommand command, Consumer<MoveReply> reply) {
            if (command instanceof MoveCommand.StartSend || command instanceof MoveCommand.StartCopy) {
                held.add(command);
                heldSubmits.add(() -> inner.submit(replicaset, command, reply));
            } else if (!(holdChunks && (command instanceof MoveCommand.ReceiveChunk || command instanceof MoveCommand.ReceiveLastChunk))) {
                inner.submit(replicaset, command, reply);
            }
        }

        @Override
        public void readChunk(String replicaset, MoveQuery.ReadChunk query, Consumer<MoveQuery.ChunkPage> reply) {
            inner.readChunk(replicaset, query, reply);
        }

        @Override
        public void readChanges(String replicaset, MoveQuery.ReadChanges query, Consumer<MoveQuery.ChangesPage> reply) {
            inner.readChanges(replicaset, query, reply);
        }

        @Override
        public void digest(String replicaset, int bucket, Consumer<MoveQuery.BucketDigest> reply) {
            inner.digest(replicaset, bucket, reply);
        }

        @Override
        public void status(String replicaset, int maxCandidates, Consumer<MoveQuery.MoveStatus> reply) {
            if (!holdStatusReplies) {
                inner.status(replicaset, maxCandidates, reply);
                return;
            }
            inner.status(replicaset, maxCandidates, answer -> heldStatuses.add(() -> reply.accept(answer)));
        }

        @Override
        public void after(long delayMs, Runnable task) {
            inner.after(delayMs, task);
        }

        @Override
        public long nowMs() {
            return inner.nowMs();
        }
    }
}
