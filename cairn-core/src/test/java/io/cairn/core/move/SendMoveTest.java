package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveCommand.*;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.cairn.core.BucketState.*;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link SendMove} against two in-memory replicasets through a synchronous {@link FakeMovePort}. */
class SendMoveTest {
    private static final int B = 11;
    private static final int KEYS = 7;
    private static final SendMove.Limits LIMITS = new SendMove.Limits(3, 1 << 20, 10, false);

    private final InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(B, 1, KEYS);
    private final InMemoryReplicaset b = new InMemoryReplicaset("b");
    private final FakeMovePort port = new FakeMovePort(a, b);
    private final List<SendMove> done = new ArrayList<>();

    private SendMove start() {
        SendMove m = SendMove.start(B, "a", "b", port, LIMITS, done::add);
        port.runTimers(100);
        return m;
    }

    private void assertMoved(SendMove m) {
        assertThat(m.phase()).isEqualTo(SendMove.Phase.DONE);
        assertThat(m.result()).isEqualTo(SendMove.Result.MOVED);
        assertThat(done).containsExactly(m);
        assertThat(b.record(B).state()).isEqualTo(ACTIVE);
        assertThat(b.record(B).generation()).isEqualTo(2);
        assertThat(b.keys(B)).hasSize(KEYS);
        assertThat(b.digest(B).checksum()).isEqualTo(new InMemoryReplicaset("x").bootstrap(B, 1, KEYS).digest(B).checksum());
        assertThat(a.record(B).state()).isEqualTo(SENT);
        assertThat(a.record(B).flags() & BucketRecord.FLAG_DATA_DROPPED).isNotZero();
        assertThat(a.keys(B)).isEmpty();
    }

    @Test
    void happyPathMovesAllKeys() {
        SendMove m = start();
        assertMoved(m);
        assertThat(m.keysSent()).isEqualTo(KEYS);
        assertThat(m.generation()).isEqualTo(2);
        assertThat(port.calls).containsExactly(
                "StartSend@a",
                // each page after the first is read while the one before is submitted (the last chunk carries the digest)
                "ReadChunk@a", "ReadChunk@a", "ReceiveChunk@b", "ReadChunk@a", "ReceiveChunk@b", "ReceiveLastChunk@b",
                "MarkSent@a", "Activate@b", "DropData@a");
    }

    @Test
    void writesAreHeldFromTheStartSendToTheActivateReply() {
        SendMove m = start();
        int started = port.calls.indexOf("StartSend@a"); // the clock when it was submitted: its apply is inside
        int activated = port.calls.indexOf("Activate@b") + 1;
        assertThat(m.writesHeldMs()).isEqualTo(activated - started).isPositive();

        InMemoryReplicaset src = new InMemoryReplicaset("a").bootstrap(B, 1, KEYS);
        src.apply(new StartSend(B, "b"));
        FakeMovePort p = new FakeMovePort(src, new InMemoryReplicaset("b"));
        SendMove resumed = SendMove.resume(src.record(B), "a", p, LIMITS, m2 -> { });
        p.runTimers(100);
        assertThat(resumed.phase()).isEqualTo(SendMove.Phase.DONE);
        assertThat(resumed.writesHeldMs()).as("a resumed driver does not know when writes stopped").isEqualTo(-1);
    }

    @Test
    void aDroppedReplyAtEachStepIsRetriedWithoutHarm() {
        int steps = 10;  // the calls of the happy path
        for (int i = 0; i < steps; i++) {
            InMemoryReplicaset src = new InMemoryReplicaset("a").bootstrap(B, 1, KEYS);
            InMemoryReplicaset dst = new InMemoryReplicaset("b");
            FakeMovePort p = new FakeMovePort(src, dst);
            p.dropReplyOfCall = i;
            List<SendMove> finished = new ArrayList<>();
            SendMove m = SendMove.start(B, "a", "b", p, LIMITS, finished::add);
            p.runTimers(100);
            assertThat(m.result()).as("reply of call %s (%s) lost", i, p.calls).isEqualTo(SendMove.Result.MOVED);
            assertThat(finished).hasSize(1);
            assertThat(dst.record(B).state()).isEqualTo(ACTIVE);
            assertThat(dst.keys(B)).hasSize(KEYS);
            assertThat(src.record(B).state()).isEqualTo(SENT);
            assertThat(src.keys(B)).isEmpty();
            assertThat(p.calls.subList(i + 1, p.calls.size())).as("the lost step is asked again").contains(p.calls.get(i));
        }
    }

    @Test
    void aDroppedRequestAtEachStepIsRetriedWithoutHarm() {
        for (int i = 0; i < 11; i++) {
            InMemoryReplicaset src = new InMemoryReplicaset("a").bootstrap(B, 1, KEYS);
            InMemoryReplicaset dst = new InMemoryReplicaset("b");
            FakeMovePort p = new FakeMovePort(src, dst);
            p.dropRequestOfCall = i;
            SendMove m = SendMove.start(B, "a", "b", p, LIMITS, x -> { });
            p.runTimers(100);
            assertThat(m.result()).as("request %s lost", i).isEqualTo(SendMove.Result.MOVED);
            assertThat(dst.keys(B)).hasSize(KEYS);
        }
    }

    /** Leaves the source SENDING at generation 2 with {@code chunks} chunks of 3 keys delivered. */
    private void abandonAfter(int chunks) {
        a.apply(new StartSend(B, "b"));
        var after = new byte[0];
        for (int seq = 0; seq < chunks; seq++) {
            var page = a.readChunk(new MoveQuery.ReadChunk(B, 2, after, 3, 1 << 20));
            b.apply(new ReceiveChunk(B, "a", 2, seq, page.entries()));
            after = page.entries().get(page.entries().size() - 1).key();
        }
    }

    @Test
    void resumeFromSendingFinishesWhenDestinationIsComplete() {
        abandonAfter(3);
        SendMove m = SendMove.resume(a.record(B), "a", port, LIMITS, done::add);
        port.runTimers(100);
        assertMoved(m);
        assertThat(port.calls).first().isEqualTo("Digest@a");
    }

    @Test
    void resumeFromSendingRollsBackWhenDestinationIsIncomplete() {
        abandonAfter(1);
        SendMove m = SendMove.resume(a.record(B), "a", port, LIMITS, done::add);
        port.runTimers(100);
        assertThat(m.result()).isEqualTo(SendMove.Result.ROLLED_BACK);
        assertThat(a.record(B).state()).isEqualTo(ACTIVE);
        assertThat(a.record(B).generation()).isEqualTo(2);
        assertThat(a.keys(B)).hasSize(KEYS);
        assertThat(b.record(B).state()).isEqualTo(GARBAGE);
        assertThat(b.keys(B)).isEmpty();
        assertThat(b.apply(new ReceiveChunk(B, "a", 2, 1, List.of())).outcome())
                .as("the old driver's next chunk").isEqualTo(MoveReply.Outcome.REFUSED);
    }

    @Test
    void resumeFromSendingRollsBackWhenNothingArrived() {
        abandonAfter(0);
        SendMove m = SendMove.resume(a.record(B), "a", port, LIMITS, done::add);
        port.runTimers(100);
        assertThat(m.result()).isEqualTo(SendMove.Result.ROLLED_BACK);
        assertThat(a.record(B).state()).isEqualTo(ACTIVE);
        assertThat(b.record(B).state()).isEqualTo(GARBAGE);
    }

    @Test
    void resumeFromUndroppedSentActivatesAndDrops() {
        abandonAfter(3);
        var d = a.digest(B);
        b.apply(new FinishReceive(B, 2, d.keyCount(), d.checksum(), false));
        a.apply(new MarkSent(B, 2));
        SendMove m = SendMove.resume(a.record(B), "a", port, LIMITS, done::add);
        port.runTimers(100);
        assertMoved(m);
        assertThat(port.calls).containsExactly("Activate@b", "DropData@a");
    }

    @Test
    void resumeIgnoresSettledRecords() {
        assertThat(SendMove.resume(a.record(B), "a", port, LIMITS, done::add)).isNull();
        a.apply(new StartSend(B, "b"));
        a.apply(new RollbackSend(B, 2));
        assertThat(SendMove.resume(a.record(B), "a", port, LIMITS, done::add)).isNull();
        assertThat(port.calls).isEmpty();
    }

    @Test
    void anEmptyBucketMoves() {
        InMemoryReplicaset src = new InMemoryReplicaset("a").bootstrap(5, 1, 0);
        InMemoryReplicaset dst = new InMemoryReplicaset("b");
        FakeMovePort p = new FakeMovePort(src, dst);
        SendMove m = SendMove.start(5, "a", "b", p, LIMITS, x -> { });
        p.runTimers(100);
        assertThat(m.result()).as("%s, calls %s", m.detail(), p.calls).isEqualTo(SendMove.Result.MOVED);
        assertThat(dst.record(5).state()).isEqualTo(ACTIVE);
        assertThat(src.record(5).state()).isEqualTo(SENT);
        assertThat(p.calls).contains("ReceiveLastChunk@b");
    }

    @Test
    void aChunkAcknowledgedButLostAtTheDestinationRollsTheMoveBack() {
        FakeMovePort p = new FakeMovePort(a, b);
        p.intercept = c -> c instanceof ReceiveChunk rc && rc.seq() == 1
                ? MoveReply.ok(b.record(B)) // acknowledged, never applied (vshard #665: a destination leader change dropped it)
                : null;
        SendMove m = SendMove.start(B, "a", "b", p, LIMITS, done::add);
        p.runTimers(100);
        assertThat(m.result()).isEqualTo(SendMove.Result.ROLLED_BACK);
        assertThat(a.record(B).state()).isEqualTo(ACTIVE);
        assertThat(a.keys(B)).hasSize(KEYS);
        assertThat(b.record(B).state()).isEqualTo(GARBAGE);
        assertThat(b.keys(B)).isEmpty();
    }

    @Test
    void startOfAPinnedBucketIsRefused() {
        a.apply(new Pin(B, true));
        SendMove m = start();
        assertThat(m.result()).isEqualTo(SendMove.Result.REFUSED);
        assertThat(a.record(B).state()).isEqualTo(PINNED);
        assertThat(b.record(B)).isNull();
    }
}
