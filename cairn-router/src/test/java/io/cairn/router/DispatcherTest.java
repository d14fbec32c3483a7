package io.cairn.router;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.ErrorCode;
import io.cairn.core.ErrorPayload;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The request loop ({@link Dispatcher}) on virtual time against scripted replicasets (its
 * {@link Dispatcher.Replicasets} port): which refusals it sends again (by the code's retry class,
 * with today's exceptions), and how a wrong-owner answer that names the new owner
 * ({@link ErrorPayload}) sends the op there at once instead of waiting for discovery.
 */
class DispatcherTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    /** Virtual nanoseconds and an event queue, run by hand on the test's thread. */
    private static final class VirtualClock implements RouterClock {
        private record Event(long atNs, long seq, Runnable task) {}

        private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.atNs != b.atNs ? Long.compare(a.atNs, b.atNs)
                : Long.compare(a.seq, b.seq));
        private long nowNs;
        private long seq;

        @Override
        public long nanoTime() {
            return nowNs;
        }

        @Override
        public void schedule(long delayNs, Runnable task) {
            queue.add(new Event(nowNs + Math.max(0, delayNs), seq++, task));
        }

        /** Runs every event due within {@code ms} from now. */
        void runFor(long ms) {
            long endNs = nowNs + TimeUnit.MILLISECONDS.toNanos(ms);
            while (!queue.isEmpty() && queue.peek().atNs <= endNs) {
                Event e = queue.poll();
                nowNs = e.atNs;
                e.task.run();
            }
            nowNs = endNs;
        }
    }

    /** Replicasets that answer each request with the next scripted result for their replicaset (OK once the script ends). */
    private static final class Scripted implements Dispatcher.Replicasets {
        final Map<String, Queue<OpResult>> scripts = new HashMap<>();
        final List<String> sentTo = new ArrayList<>();

        Scripted answer(String replicaset, OpResult... results) {
            scripts.computeIfAbsent(replicaset, k -> new ArrayDeque<>()).addAll(List.of(results));
            return this;
        }

        @Override
        public CompletableFuture<List<OpResult>> submit(String replicaset, List<KvOp> ops, long deadlineNs) {
            sentTo.add(replicaset);
            Queue<OpResult> script = scripts.getOrDefault(replicaset, new ArrayDeque<>());
            List<OpResult> out = new ArrayList<>();
            for (int i = 0; i < ops.size(); i++) out.add(script.isEmpty() ? OpResult.OK : script.poll());
            return CompletableFuture.completedFuture(out);
        }
    }

    private final VirtualClock clock = new VirtualClock();
    private final RouteMap routes = new RouteMap(10);
    private final Scripted replicasets = new Scripted();
    private int rediscoveries;
    private Runnable discovery = () -> { };

    private Dispatcher dispatcher() {
        return new Dispatcher(routes, replicasets, clock, TIMEOUT, () -> {
            rediscoveries++;
            discovery.run();
        }, () -> false);
    }

    private static KvOp write(int bucket) {
        return KvOp.set(bucket, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
    }

    private static KvOp read(int bucket) {
        return KvOp.get(bucket, "k".getBytes(StandardCharsets.UTF_8));
    }

    private static BucketRecord active(int bucket, long generation) {
        return new BucketRecord(bucket, BucketState.ACTIVE, generation, 1, "", 0);
    }

    /**
     * Today's answer, per code, to "is an op refused with it sent again?": the refusals that
     * guarantee nothing was applied, UNAVAILABLE only for reads (a write may have been applied), and
     * nothing the load-shedding, map-reduce, follower-read or fatal codes say.
     */
    @Test
    void everyCodeIsSentAgainExactlyWhenItsAnswerGuaranteesNothingWasApplied() {
        Set<ErrorCode> retriedWrites = EnumSet.of(ErrorCode.WRONG_BUCKET, ErrorCode.NO_ROUTE, ErrorCode.BUCKET_LOCKED, ErrorCode.BUCKET_RESTORING);
        Set<ErrorCode> retriedReads = EnumSet.copyOf(retriedWrites);
        retriedReads.add(ErrorCode.UNAVAILABLE);
        Set<ErrorCode> rediscovered = EnumSet.of(ErrorCode.WRONG_BUCKET, ErrorCode.NO_ROUTE);
        for (ErrorCode code : ErrorCode.values()) {
            for (boolean readOnly : new boolean[] {false, true}) {
                DispatcherTest t = new DispatcherTest();
                t.routes.learn("rs1", active(3, 1));
                t.discovery = () -> t.routes.learn("rs1", active(3, 1)); // the same owner, found again
                t.replicasets.answer("rs1", OpResult.error(code, "scripted"));
                CompletableFuture<List<OpResult>> done = t.dispatcher().execute(List.of(readOnly ? read(3) : write(3)));
                t.clock.runFor(TIMEOUT.toMillis() + 1);

                boolean retried = (readOnly ? retriedReads : retriedWrites).contains(code);
                String what = code + (readOnly ? " on a read" : " on a write");
                assertThat(t.replicasets.sentTo).as(what).hasSize(retried ? 2 : 1);
                assertThat(done.join().get(0)).as(what).isEqualTo(retried ? OpResult.OK : OpResult.error(code, "scripted"));
                assertThat(t.rediscoveries > 0).as(what + ": asked discovery").isEqualTo(rediscovered.contains(code));
            }
        }
    }

    @Test
    void aWrongOwnerAnswerNamingTheNewOwnerSendsTheOpThereAtOnceWithoutDiscovery() {
        routes.learn("rs1", active(4, 1));
        replicasets.answer("rs1", OpResult.error(ErrorCode.WRONG_BUCKET, "bucket 4 is not on this replicaset (moved to rs2)",
                new ErrorPayload("rs2", 2)));
        Dispatcher dispatcher = dispatcher();
        CompletableFuture<List<OpResult>> done = dispatcher.execute(List.of(write(4)));
        clock.runFor(0); // no backoff: the answer said where to go

        assertThat(done).isCompletedWithValue(List.of(OpResult.OK));
        assertThat(replicasets.sentTo).containsExactly("rs1", "rs2");
        assertThat(rediscoveries).as("discovery rounds asked for").isZero();
        assertThat(dispatcher.movesFollowed()).isEqualTo(1);
        assertThat(routes.ownerRecord(4)).isEqualTo(new RouteMap.OwnerRecord("rs2", BucketState.ACTIVE, 2, 0));

        dispatcher.execute(List.of(read(4)));
        clock.runFor(0);
        assertThat(replicasets.sentTo).as("the next op goes to the new owner first").endsWith("rs2").hasSize(3);
    }

    @Test
    void withoutAPayloadAWrongOwnerAnswerForgetsTheRouteAndWaitsForDiscoveryAsBefore() {
        routes.learn("rs1", active(4, 1));
        replicasets.answer("rs1", OpResult.error(ErrorCode.WRONG_BUCKET, "bucket 4 is not on this replicaset"));
        discovery = () -> routes.learn("rs2", active(4, 2));
        Dispatcher dispatcher = dispatcher();
        CompletableFuture<List<OpResult>> done = dispatcher.execute(List.of(write(4)));
        clock.runFor(0);
        assertThat(done).as("sent again only after a backoff").isNotDone();
        clock.runFor(10);

        assertThat(done).isCompletedWithValue(List.of(OpResult.OK));
        assertThat(replicasets.sentTo).containsExactly("rs1", "rs2");
        assertThat(rediscoveries).isEqualTo(1);
        assertThat(dispatcher.movesFollowed()).isZero();
    }

    @Test
    void aPayloadNeverOverridesANewerOwnerDiscoveryFoundWhileTheOpWasInFlight() {
        routes.learn("rs1", active(4, 1));
        CompletableFuture<List<OpResult>> rs1Answer = new CompletableFuture<>();
        List<String> sentTo = new ArrayList<>();
        Dispatcher dispatcher = new Dispatcher(routes, (replicaset, ops, deadlineNs) -> {
            sentTo.add(replicaset);
            return replicaset.equals("rs1") ? rs1Answer : CompletableFuture.completedFuture(List.of(OpResult.OK));
        }, clock, TIMEOUT, () -> rediscoveries++, () -> false);
        CompletableFuture<List<OpResult>> done = dispatcher.execute(List.of(write(4)));

        // Meanwhile the bucket moved on (rs1 -> rs2 at 2, rs2 -> rs3 at 3) and discovery already knows rs3 owns it.
        routes.learn("rs3", active(4, 3));
        rs1Answer.complete(List.of(OpResult.error(ErrorCode.WRONG_BUCKET, "moved to rs2", new ErrorPayload("rs2", 2))));
        clock.runFor(0);

        assertThat(done).isCompletedWithValue(List.of(OpResult.OK));
        assertThat(sentTo).containsExactly("rs1", "rs3");
        assertThat(routes.owner(4)).isEqualTo("rs3");
        assertThat(routes.ownerRecord(4).generation()).isEqualTo(3);
        assertThat(rediscoveries).isZero();
    }

    @Test
    void aChainOfMovesIsFollowedHopByHopAndABadHintEndsInDiscovery() {
        routes.learn("rs1", active(4, 1));
        replicasets.answer("rs1", OpResult.error(ErrorCode.WRONG_BUCKET, "moved to rs2", new ErrorPayload("rs2", 2)));
        replicasets.answer("rs2", OpResult.error(ErrorCode.WRONG_BUCKET, "moved to rs3", new ErrorPayload("rs3", 3)));
        // rs3 has not activated it (a copy not yet ACTIVE refuses without a payload): discovery is asked
        replicasets.answer("rs3", OpResult.error(ErrorCode.WRONG_BUCKET, "bucket 4 is not on this replicaset"));
        discovery = () -> routes.learn("rs3", active(4, 3));
        CompletableFuture<List<OpResult>> done = dispatcher().execute(List.of(write(4)));
        clock.runFor(0);
        assertThat(replicasets.sentTo).containsExactly("rs1", "rs2", "rs3");
        assertThat(rediscoveries).isEqualTo(1);
        clock.runFor(TIMEOUT.toMillis());

        assertThat(done).isCompletedWithValue(List.of(OpResult.OK));
        assertThat(replicasets.sentTo).containsExactly("rs1", "rs2", "rs3", "rs3");
    }
}
