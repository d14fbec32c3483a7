package io.cairn.router;

import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.testing.SeededRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The group-commit contract of {@link GroupCommitQueue}, driven in process through a fake sender:
 * a batch leaves as soon as fewer than maxInflightBatches are outstanding (no timer); units that
 * arrive meanwhile leave together; a batch holds at most maxBatchOps ops and maxBatchBytes bytes
 * unless a single unit is larger (it then travels alone); a unit is never split; every unit is
 * answered exactly once with its own slice of the reply, or with UNAVAILABLE for each of its ops
 * when its batch fails; a batch carries its units' earliest deadline, and a unit that waited past
 * its deadline is answered TIMEOUT without being sent.
 */
@ExtendWith(SeededRandom.class)
class GroupCommitQueueTest {
    private static final int NO_LIMIT_OPS = 100_000;
    private static final int NO_LIMIT_BYTES = 64 << 20;
    private static final long NO_DEADLINE = Long.MAX_VALUE / 2;
    /** The queue's clock (nanoseconds); tests move it by hand. */
    private final AtomicLong clock = new AtomicLong();

    @Test
    void aLoneUnitLeavesAtOnceAndGetsItsOwnResults() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(NO_LIMIT_OPS, NO_LIMIT_BYTES, 1), sender, clock::get);

        List<KvOp> unit = unit("a", "b");
        CompletableFuture<List<OpResult>> result = queue.enqueue(unit, NO_DEADLINE);

        assertThat(sender.count()).as("sent without waiting for anything").isEqualTo(1);
        assertThat(sender.batch(0).ops()).containsExactlyElementsOf(unit);
        assertThat(result).isNotDone();
        sender.batch(0).answerEach();
        assertThat(result).isCompletedWithValue(echo(unit));
        assertThat(queue.batches()).isEqualTo(1);
        assertThat(queue.ops()).isEqualTo(2);
    }

    @Test
    void unitsArrivingWhileTheInflightLimitIsReachedWaitAndThenLeaveTogetherInOneBatch() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(NO_LIMIT_OPS, NO_LIMIT_BYTES, 1), sender, clock::get);
        CompletableFuture<List<OpResult>> first = queue.enqueue(unit("first"), NO_DEADLINE);

        List<List<KvOp>> waiting = List.of(unit("b"), unit("c", "d", "e"), unit("f"));
        List<CompletableFuture<List<OpResult>>> results = new ArrayList<>();
        for (List<KvOp> u : waiting) results.add(queue.enqueue(u, NO_DEADLINE));
        assertThat(sender.count()).as("the in-flight slot is taken, so they wait").isEqualTo(1);
        assertThat(results).allSatisfy(r -> assertThat(r).isNotDone());

        sender.batch(0).answerEach();
        assertThat(first).isCompletedWithValue(echo(unit("first")));
        assertThat(sender.count()).as("all waiting units leave in one batch").isEqualTo(2);
        assertThat(sender.batch(1).ops()).containsExactlyElementsOf(concat(waiting));

        sender.batch(1).answerEach();
        for (int i = 0; i < waiting.size(); i++) {
            assertThat(results.get(i)).as("unit %d gets its own slice of the reply", i).isCompletedWithValue(echo(waiting.get(i)));
        }
        assertThat(queue.batches()).isEqualTo(2);
        assertThat(queue.ops()).isEqualTo(6);
    }

    @Test
    void unitsPastTheQueueBoundAreRefusedWithQueueFullAndNeverSent() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(2048, NO_LIMIT_BYTES, 1), sender, clock::get);
        queue.enqueue(unit("blocker"), NO_DEADLINE);
        int room = (int) queue.maxQueuedOps();
        assertThat(room).as("sixteen batches of 2048 ops").isEqualTo(GroupCommitQueue.QUEUED_BATCHES * 2048);
        List<CompletableFuture<List<OpResult>>> accepted = new ArrayList<>();
        for (int i = 0; i < room; i++) accepted.add(queue.enqueue(unit("k" + i), NO_DEADLINE));
        CompletableFuture<List<OpResult>> refused = queue.enqueue(unit("one-too-many", "and-its-pair"), NO_DEADLINE);

        assertThat(refused).as("answered at once").isDone();
        assertThat(answered(refused)).hasSize(2).allSatisfy(r -> {
            assertThat(r.error()).isEqualTo(ErrorCode.QUEUE_FULL);
            assertThat(r.message()).contains("not applied", room + " operations");
        });
        assertThat(ErrorCode.QUEUE_FULL.retry).isEqualTo(io.cairn.core.RetryClass.RETRY_LATER);
        assertThat(queue.refused()).isEqualTo(1);
        assertThat(accepted).allSatisfy(r -> assertThat(r).isNotDone());

        sender.answerInOrderUntilIdle();
        assertThat(accepted).allSatisfy(r -> assertThat(r).isDone());
        assertThat(sender.allSentOps()).extracting(GroupCommitQueueTest::key).doesNotContain("one-too-many");
        assertThat(queue.enqueue(unit("after"), NO_DEADLINE)).as("room again once the queue drained").isNotDone();
    }

    @Test
    void aLargeUnitAloneInTheQueueIsAcceptedHoweverLarge() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(1, NO_LIMIT_BYTES, 1), sender, clock::get);
        queue.enqueue(unit("blocker"), NO_DEADLINE);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i <= queue.maxQueuedOps(); i++) keys.add("big" + i);
        CompletableFuture<List<OpResult>> big = queue.enqueue(unit(keys.toArray(String[]::new)), NO_DEADLINE);
        assertThat(big).isNotDone();
        sender.answerInOrderUntilIdle();
        assertThat(answered(big)).noneMatch(OpResult::isError);
    }

    @Test
    void aBatchHoldsAtMostMaxBatchOpsAndNeverSplitsAUnit() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(4, NO_LIMIT_BYTES, 1), sender, clock::get);
        queue.enqueue(unit("blocker"), NO_DEADLINE);
        for (int i = 0; i < 10; i++) queue.enqueue(unit("k" + i), NO_DEADLINE);

        sender.answerInOrderUntilIdle();
        assertThat(sender.batchSizes()).containsExactly(1, 4, 4, 2);

        // Units of three ops: two would make six, so each batch holds one whole unit.
        queue.enqueue(unit("blocker-2"), NO_DEADLINE);
        List<List<KvOp>> threes = List.of(unit("x1", "x2", "x3"), unit("y1", "y2", "y3"), unit("z1", "z2", "z3"));
        threes.forEach(u -> queue.enqueue(u, NO_DEADLINE));
        sender.answerInOrderUntilIdle();
        assertThat(sender.batchSizes()).containsExactly(1, 4, 4, 2, 1, 3, 3, 3);
        assertThat(sender.batch(5).ops()).containsExactlyElementsOf(threes.get(0));
    }

    @Test
    void aBatchHoldsAtMostMaxBatchBytes() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(NO_LIMIT_OPS, 1024, 1), sender, clock::get);
        queue.enqueue(unit("blocker"), NO_DEADLINE);
        for (int i = 0; i < 7; i++) queue.enqueue(List.of(opOfSize("k" + i, 300)), NO_DEADLINE);

        sender.answerInOrderUntilIdle();
        assertThat(sender.batchSizes()).as("three 300-byte ops fit in 1024 bytes, four do not").containsExactly(1, 3, 3, 1);
        for (int i = 0; i < sender.count(); i++) {
            assertThat(bytes(sender.batch(i).ops())).as("bytes of batch %d", i).isLessThanOrEqualTo(1024);
        }
    }

    @Test
    void aUnitLargerThanABatchLeavesAloneWithoutHoldingUpOthers() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(4, 1024, 1), sender, clock::get);
        List<KvOp> tooManyOps = unit("m1", "m2", "m3", "m4", "m5");
        List<KvOp> tooManyBytes = List.of(opOfSize("big", 2000));

        CompletableFuture<List<OpResult>> alone = queue.enqueue(tooManyOps, NO_DEADLINE);
        assertThat(sender.count()).as("an oversized unit with nothing in flight leaves at once").isEqualTo(1);
        List<CompletableFuture<List<OpResult>>> results = new ArrayList<>();
        for (List<KvOp> u : List.of(unit("s1"), tooManyBytes, unit("s2"), tooManyOps, unit("s3"))) results.add(queue.enqueue(u, NO_DEADLINE));

        sender.answerInOrderUntilIdle();
        assertThat(sender.batchSizes()).containsExactly(5, 1, 1, 1, 5, 1);
        assertThat(sender.batch(2).ops()).containsExactlyElementsOf(tooManyBytes);
        assertThat(sender.batch(4).ops()).containsExactlyElementsOf(tooManyOps);
        assertThat(alone).isCompletedWithValue(echo(tooManyOps));
        assertThat(results.get(1)).isCompletedWithValue(echo(tooManyBytes));
        assertThat(results.get(3)).isCompletedWithValue(echo(tooManyOps));
    }

    @Test
    void batchesInFlightNeverExceedTheLimitAndAFreedSlotIsFilledAtOnce() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(1, NO_LIMIT_BYTES, 3), sender, clock::get);
        List<CompletableFuture<List<OpResult>>> results = new ArrayList<>();
        for (int i = 0; i < 10; i++) results.add(queue.enqueue(unit("k" + i), NO_DEADLINE));
        assertThat(sender.count()).isEqualTo(3);
        assertThat(sender.outstanding()).isEqualTo(3);

        // Answered out of order: the second batch first.
        sender.batch(1).answerEach();
        assertThat(results.get(1)).isCompletedWithValue(echo(unit("k1")));
        assertThat(results.get(0)).isNotDone();
        assertThat(sender.count()).as("the freed slot is filled").isEqualTo(4);
        assertThat(sender.outstanding()).isEqualTo(3);

        for (int answered = 0; sender.outstanding() > 0; answered++) {
            sender.oldestOutstanding().answerEach();
            assertThat(sender.outstanding()).as("after %d more answers", answered).isLessThanOrEqualTo(3);
        }
        assertThat(sender.count()).isEqualTo(10);
        for (int i = 0; i < 10; i++) assertThat(results.get(i)).isCompletedWithValue(echo(unit("k" + i)));
    }

    @Test
    void unitsQueuedOneAfterAnotherLeaveInThatOrder() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(3, NO_LIMIT_BYTES, 1), sender, clock::get);
        List<KvOp> expected = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            List<KvOp> u = unit("k" + i);
            expected.addAll(u);
            queue.enqueue(u, NO_DEADLINE);
        }
        sender.answerInOrderUntilIdle();
        assertThat(sender.allSentOps()).containsExactlyElementsOf(expected);
    }

    @Test
    void aFailedBatchAnswersEveryOpOfEveryUnitInItWithUnavailableAndFreesItsSlot() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(NO_LIMIT_OPS, NO_LIMIT_BYTES, 1), sender, clock::get);
        queue.enqueue(unit("blocker"), NO_DEADLINE);
        CompletableFuture<List<OpResult>> two = queue.enqueue(unit("a", "b"), NO_DEADLINE);
        CompletableFuture<List<OpResult>> one = queue.enqueue(unit("c"), NO_DEADLINE);
        sender.batch(0).answerEach();

        sender.batch(1).reply().completeExceptionally(new RuntimeException("leader lost"));
        assertThat(answered(two)).hasSize(2).allSatisfy(GroupCommitQueueTest::assertUnavailable);
        assertThat(answered(one)).hasSize(1).allSatisfy(GroupCommitQueueTest::assertUnavailable);
        assertThat(answered(two).get(0).message()).contains("leader lost");

        CompletableFuture<List<OpResult>> after = queue.enqueue(unit("d"), NO_DEADLINE);
        assertThat(sender.count()).as("the failed batch gave its slot back").isEqualTo(3);
        sender.batch(2).answerEach();
        assertThat(after).isCompletedWithValue(echo(unit("d")));
    }

    @Test
    void aSenderThatThrowsFailsOnlyItsBatchAndTheQueueKeepsGoing() {
        AtomicInteger calls = new AtomicInteger();
        ManualSender manual = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(NO_LIMIT_OPS, NO_LIMIT_BYTES, 1), (ops, deadlineNs) -> {
            if (calls.getAndIncrement() == 0) throw new IllegalStateException("connection refused");
            return manual.send(ops, deadlineNs);
        }, clock::get);

        CompletableFuture<List<OpResult>> failed = queue.enqueue(unit("a", "b"), NO_DEADLINE);
        assertThat(answered(failed)).hasSize(2).allSatisfy(GroupCommitQueueTest::assertUnavailable);
        assertThat(answered(failed).get(0).message()).contains("connection refused");

        CompletableFuture<List<OpResult>> next = queue.enqueue(unit("c"), NO_DEADLINE);
        assertThat(manual.count()).isEqualTo(1);
        manual.batch(0).answerEach();
        assertThat(next).isCompletedWithValue(echo(unit("c")));
    }

    /**
     * A sender that answers at once (a closed data-plane client fails inline) used to make each
     * queued batch one level deeper on the stack: thousands of queued batches overflowed it, the
     * future swallowed the StackOverflowError, the units below it were never answered and the
     * in-flight slot stayed taken, so the queue sent nothing ever again.
     */
    @Test
    void aSenderThatAnswersAtOnceDrainsAManyBatchBacklogWithoutDeepeningTheStack() {
        int backlog = 5_000;
        CompletableFuture<List<OpResult>> blocker = new CompletableFuture<>();
        AtomicInteger calls = new AtomicInteger();
        List<Long> stackDepths = Collections.synchronizedList(new ArrayList<>());
        GroupCommitQueue queue = new GroupCommitQueue(config(1, NO_LIMIT_BYTES, 1), (ops, deadlineNs) -> {
            if (calls.getAndIncrement() == 0) return blocker;
            stackDepths.add(StackWalker.getInstance().walk(java.util.stream.Stream::count));
            throw new IllegalStateException("router closed");
        }, clock::get);
        queue.enqueue(unit("blocker"), NO_DEADLINE);
        List<CompletableFuture<List<OpResult>>> results = new ArrayList<>();
        for (int i = 0; i < backlog; i++) results.add(queue.enqueue(unit("k" + i), NO_DEADLINE));

        blocker.complete(echo(unit("blocker")));

        assertThat(results).as("every unit of the backlog answered").allSatisfy(r -> assertThat(r).isDone());
        assertThat(answered(results.get(backlog - 1))).allSatisfy(GroupCommitQueueTest::assertUnavailable);
        assertThat(stackDepths).hasSize(backlog);
        assertThat(Collections.max(stackDepths) - stackDepths.get(0)).as("stack growth over %d batches", backlog).isLessThan(20);
        CompletableFuture<List<OpResult>> late = queue.enqueue(unit("late"), NO_DEADLINE);
        assertThat(calls.get()).as("the slot is free again").isEqualTo(backlog + 2);
        assertThat(late).isDone();
    }

    @Test
    void aUnitWhoseDeadlinePassedWhileItWaitedIsAnsweredTimeoutAndNotSent() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(NO_LIMIT_OPS, NO_LIMIT_BYTES, 1), sender, clock::get);
        queue.enqueue(unit("blocker"), NO_DEADLINE);
        CompletableFuture<List<OpResult>> late = queue.enqueue(unit("a", "b"), 100);
        CompletableFuture<List<OpResult>> inTime = queue.enqueue(unit("c"), 1_000);

        clock.set(500);
        sender.batch(0).answerEach();

        assertThat(late).isCompletedWithValueMatching(rs -> rs.size() == 2
                && rs.stream().allMatch(r -> r.error() == ErrorCode.TIMEOUT && r.message().contains("not applied")));
        assertThat(sender.batch(1).ops()).as("only the unit still in time leaves").containsExactlyElementsOf(unit("c"));
        assertThat(sender.batch(1).deadlineNs()).isEqualTo(1_000);
        sender.batch(1).answerEach();
        assertThat(inTime).isCompletedWithValue(echo(unit("c")));
    }

    @Test
    void aBatchIsSentWithTheEarliestDeadlineOfItsUnits() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(NO_LIMIT_OPS, NO_LIMIT_BYTES, 1), sender, clock::get);
        queue.enqueue(unit("blocker"), 50);
        assertThat(sender.batch(0).deadlineNs()).isEqualTo(50);
        // A retried request joins behind newer ones with its older deadline.
        queue.enqueue(unit("a"), 300);
        queue.enqueue(unit("retried"), 200);
        queue.enqueue(unit("b"), 400);

        sender.batch(0).answerEach();

        assertThat(sender.batch(1).ops()).hasSize(3);
        assertThat(sender.batch(1).deadlineNs()).isEqualTo(200);
    }

    @Test
    void whenEveryWaitingUnitExpiredNothingIsSentAndTheSlotIsFree() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(NO_LIMIT_OPS, NO_LIMIT_BYTES, 1), sender, clock::get);
        queue.enqueue(unit("blocker"), NO_DEADLINE);
        CompletableFuture<List<OpResult>> expired = queue.enqueue(unit("a"), 100);

        clock.set(100);
        sender.batch(0).answerEach();

        assertThat(expired).isCompletedWithValueMatching(rs -> rs.get(0).error() == ErrorCode.TIMEOUT);
        assertThat(sender.count()).isEqualTo(1);
        CompletableFuture<List<OpResult>> next = queue.enqueue(unit("b"), 1_000);
        assertThat(sender.count()).as("sent at once: no slot was kept").isEqualTo(2);
        sender.batch(1).answerEach();
        assertThat(next).isCompletedWithValue(echo(unit("b")));
    }

    @Test
    void aShortReplyAnswersTheUnitsItCoversAndFailsTheRest() {
        ManualSender sender = new ManualSender();
        GroupCommitQueue queue = new GroupCommitQueue(config(NO_LIMIT_OPS, NO_LIMIT_BYTES, 1), sender, clock::get);
        queue.enqueue(unit("blocker"), NO_DEADLINE);
        CompletableFuture<List<OpResult>> covered = queue.enqueue(unit("a", "b"), NO_DEADLINE);
        CompletableFuture<List<OpResult>> cut = queue.enqueue(unit("c", "d"), NO_DEADLINE);
        sender.batch(0).answerEach();

        List<KvOp> batch = sender.batch(1).ops();
        sender.batch(1).reply().complete(echo(batch.subList(0, 3)));
        assertThat(covered).isCompletedWithValue(echo(unit("a", "b")));
        assertThat(answered(cut)).hasSize(2).allSatisfy(GroupCommitQueueTest::assertUnavailable);
        assertThat(answered(cut).get(0).message()).contains("short reply");

        CompletableFuture<List<OpResult>> nothing = queue.enqueue(unit("e"), NO_DEADLINE);
        sender.batch(2).reply().complete(null);
        assertThat(answered(nothing)).hasSize(1).allSatisfy(GroupCommitQueueTest::assertUnavailable);
    }

    @Test
    void concurrentUnitsWithOneBatchInFlightAreEachAnsweredOnceInBoundedBatchesAndInOrderPerThread(Random random) throws Exception {
        concurrentUnitsAreEachAnsweredOnceInBoundedBatches(1, random);
    }

    @Test
    void concurrentUnitsWithSeveralBatchesInFlightAreEachAnsweredOnceInBoundedBatches(Random random) throws Exception {
        concurrentUnitsAreEachAnsweredOnceInBoundedBatches(3, random);
    }

    /**
     * Threads enqueue units of random sizes while a sender answers each batch from another pool, in
     * whatever order those threads run. Checks the bounds as each batch is sent and, at the end, that
     * every op was sent exactly once, with its unit whole, and every unit got its own results. The
     * seed replays the sizes and limits, not the interleaving of the threads.
     */
    private static void concurrentUnitsAreEachAnsweredOnceInBoundedBatches(int maxInflight, Random random) throws Exception {
        int maxOps = 4 + random.nextInt(13);
        int maxBytes = 1024 + random.nextInt(3 * 1024);
        int threads = 4;
        int unitsPerThread = 400;
        List<List<List<KvOp>>> plan = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<List<KvOp>> units = new ArrayList<>();
            for (int u = 0; u < unitsPerThread; u++) {
                int n = random.nextInt(20) == 0 ? maxOps + 1 : 1 + random.nextInt(5);
                List<KvOp> ops = new ArrayList<>();
                for (int o = 0; o < n; o++) {
                    int size = random.nextInt(50) == 0 ? maxBytes + 100 : 40 + random.nextInt(400);
                    ops.add(opOfSize("t" + t + "-u" + u + "-o" + o, size));
                }
                units.add(ops);
            }
            plan.add(units);
        }

        ExecutorService answerers = Executors.newFixedThreadPool(2);
        ExecutorService clients = Executors.newFixedThreadPool(threads);
        try {
            BoundsCheckingSender sender = new BoundsCheckingSender(maxOps, maxBytes, maxInflight, answerers);
            GroupCommitQueue queue = new GroupCommitQueue(config(maxOps, maxBytes, maxInflight), sender, System::nanoTime);
            CountDownLatch start = new CountDownLatch(1);
            List<CompletableFuture<List<CompletableFuture<List<OpResult>>>>> perThread = new ArrayList<>();
            for (List<List<KvOp>> units : plan) {
                perThread.add(CompletableFuture.supplyAsync(() -> {
                    await(start);
                    List<CompletableFuture<List<OpResult>>> results = new ArrayList<>();
                    for (List<KvOp> u : units) results.add(queue.enqueue(u, NO_DEADLINE));
                    return results;
                }, clients));
            }
            start.countDown();

            String context = "maxInflight " + maxInflight + ", maxOps " + maxOps + ", maxBytes " + maxBytes;
            List<CompletableFuture<List<OpResult>>> all = new ArrayList<>();
            for (CompletableFuture<List<CompletableFuture<List<OpResult>>>> t : perThread) all.addAll(t.get(30, TimeUnit.SECONDS));
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            long totalOps = 0;
            for (int t = 0; t < threads; t++) {
                for (int u = 0; u < unitsPerThread; u++) {
                    List<KvOp> unit = plan.get(t).get(u);
                    totalOps += unit.size();
                    assertThat(all.get(t * unitsPerThread + u).join()).as("results of t%d-u%d (%s)", t, u, context).isEqualTo(echo(unit));
                }
            }
            assertThat(sender.violations).as(context).isEmpty();
            List<List<KvOp>> batches = sender.sentBatches();
            assertThat(queue.batches()).as(context).isEqualTo(batches.size());
            assertThat(queue.ops()).as(context).isEqualTo(totalOps);
            assertEachUnitSentOnceWhole(plan, batches, context);
            if (maxInflight == 1) assertThreadOrderKept(plan, batches, context);
        } finally {
            clients.shutdownNow();
            answerers.shutdownNow();
        }
    }

    private static void assertEachUnitSentOnceWhole(List<List<List<KvOp>>> plan, List<List<KvOp>> batches, String context) {
        Map<String, Integer> batchOfKey = new HashMap<>();
        Map<String, Integer> positionOfKey = new HashMap<>();
        for (int b = 0; b < batches.size(); b++) {
            List<KvOp> ops = batches.get(b);
            for (int i = 0; i < ops.size(); i++) {
                String key = key(ops.get(i));
                assertThat(batchOfKey.put(key, b)).as("%s sent twice (%s)", key, context).isNull();
                positionOfKey.put(key, i);
            }
        }
        for (List<List<KvOp>> units : plan) {
            for (List<KvOp> unit : units) {
                String first = key(unit.get(0));
                assertThat(batchOfKey).as("%s sent (%s)", first, context).containsKey(first);
                for (int o = 0; o < unit.size(); o++) {
                    String key = key(unit.get(o));
                    assertThat(batchOfKey.get(key)).as("%s in the batch of %s (%s)", key, first, context).isEqualTo(batchOfKey.get(first));
                    assertThat(positionOfKey.get(key)).as("%s next to the rest of its unit (%s)", key, context)
                            .isEqualTo(positionOfKey.get(first) + o);
                }
            }
        }
        int sent = batches.stream().mapToInt(List::size).sum();
        int planned = plan.stream().flatMap(List::stream).mapToInt(List::size).sum();
        assertThat(sent).as("ops sent (%s)", context).isEqualTo(planned);
    }

    /** One batch in flight at a time: the units of one thread reach the sender in the order it queued them. */
    private static void assertThreadOrderKept(List<List<List<KvOp>>> plan, List<List<KvOp>> batches, String context) {
        List<KvOp> sent = batches.stream().flatMap(List::stream).toList();
        for (int t = 0; t < plan.size(); t++) {
            String prefix = "t" + t + "-";
            List<KvOp> ofThread = sent.stream().filter(op -> key(op).startsWith(prefix)).toList();
            assertThat(ofThread).as("order of thread %d (%s)", t, context).containsExactlyElementsOf(concat(plan.get(t)));
        }
    }

    // ---- fakes and helpers

    /** Records every batch and answers it only when the test says so. */
    private static final class ManualSender implements GroupCommitQueue.Sender {
        private final List<Sent> sent = new ArrayList<>();

        @Override
        public synchronized CompletableFuture<List<OpResult>> send(List<KvOp> ops, long deadlineNs) {
            Sent s = new Sent(List.copyOf(ops), deadlineNs, new CompletableFuture<>());
            sent.add(s);
            return s.reply();
        }

        synchronized int count() {
            return sent.size();
        }

        synchronized Sent batch(int i) {
            return sent.get(i);
        }

        synchronized long outstanding() {
            return sent.stream().filter(s -> !s.reply().isDone()).count();
        }

        synchronized Sent oldestOutstanding() {
            return sent.stream().filter(s -> !s.reply().isDone()).findFirst().orElseThrow();
        }

        synchronized List<Integer> batchSizes() {
            return sent.stream().map(s -> s.ops().size()).toList();
        }

        synchronized List<KvOp> allSentOps() {
            return sent.stream().flatMap(s -> s.ops().stream()).toList();
        }

        /** Answers the oldest outstanding batch until none is left (each answer may send the next). */
        void answerInOrderUntilIdle() {
            while (outstanding() > 0) {
                assertThat(outstanding()).as("one batch in flight").isEqualTo(1);
                oldestOutstanding().answerEach();
            }
        }
    }

    private record Sent(List<KvOp> ops, long deadlineNs, CompletableFuture<List<OpResult>> reply) {
        void answerEach() {
            reply.complete(echo(ops));
        }
    }

    /**
     * Checks each batch as it is sent (in flight, ops, bytes; a batch over a bound must be a single
     * unit) and answers it from another thread. Violations are collected, not thrown: a throwing
     * sender would only fail the batch.
     */
    private static final class BoundsCheckingSender implements GroupCommitQueue.Sender {
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        private final int maxOps;
        private final int maxBytes;
        private final int maxInflight;
        private final ExecutorService answerers;
        private final AtomicInteger inflight = new AtomicInteger();
        private final List<List<KvOp>> sent = Collections.synchronizedList(new ArrayList<>());

        BoundsCheckingSender(int maxOps, int maxBytes, int maxInflight, ExecutorService answerers) {
            this.maxOps = maxOps;
            this.maxBytes = maxBytes;
            this.maxInflight = maxInflight;
            this.answerers = answerers;
        }

        @Override
        public CompletableFuture<List<OpResult>> send(List<KvOp> ops, long deadlineNs) {
            List<KvOp> batch = List.copyOf(ops);
            sent.add(batch);
            int now = inflight.incrementAndGet();
            if (now > maxInflight) violations.add(now + " batches in flight");
            boolean oneUnit = batch.stream().map(GroupCommitQueueTest::unitOf).distinct().count() == 1;
            if (!oneUnit && batch.size() > maxOps) violations.add("batch of " + batch.size() + " ops: " + batch);
            if (!oneUnit && bytes(batch) > maxBytes) violations.add("batch of " + bytes(batch) + " bytes: " + batch);
            CompletableFuture<List<OpResult>> reply = new CompletableFuture<>();
            answerers.execute(() -> {
                inflight.decrementAndGet(); // before the answer: the queue may send the next batch as it completes
                reply.complete(echo(batch));
            });
            return reply;
        }

        List<List<KvOp>> sentBatches() {
            synchronized (sent) {
                return List.copyOf(sent);
            }
        }
    }

    private static RouterConfig config(int maxBatchOps, int maxBatchBytes, int maxInflightBatches) {
        return new RouterConfig(Duration.ofSeconds(10), Duration.ofSeconds(1), 10_000, maxBatchOps, maxBatchBytes,
                maxInflightBatches, false);
    }

    private static List<KvOp> unit(String... keys) {
        List<KvOp> ops = new ArrayList<>();
        for (String k : keys) ops.add(KvOp.set(1, k.getBytes(StandardCharsets.UTF_8), new byte[] {1}));
        return ops;
    }

    /** A SET whose encoded size is exactly {@code encodedBytes}. */
    private static KvOp opOfSize(String key, int encodedBytes) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        KvOp op = KvOp.set(1, k, new byte[encodedBytes - OpCodec.encodedSize(KvOp.set(1, k, new byte[0]))]);
        assertThat(OpCodec.encodedSize(op)).isEqualTo(encodedBytes);
        return op;
    }

    /** The answer a fake replicaset gives: each op's own key, so a unit can tell its results from another's. */
    private static List<OpResult> echo(List<KvOp> ops) {
        return ops.stream().map(op -> OpResult.bulk(op.key())).toList();
    }

    private static int bytes(List<KvOp> ops) {
        return ops.stream().mapToInt(OpCodec::encodedSize).sum();
    }

    private static String key(KvOp op) {
        return new String(op.key(), StandardCharsets.UTF_8);
    }

    private static String unitOf(KvOp op) {
        String key = key(op);
        return key.substring(0, key.lastIndexOf("-o"));
    }

    private static List<KvOp> concat(List<List<KvOp>> units) {
        return units.stream().flatMap(List::stream).toList();
    }

    /** The unit's results, which must be there already: a test never waits on a unit without a bound. */
    private static List<OpResult> answered(CompletableFuture<List<OpResult>> unit) {
        assertThat(unit).as("unit answered").isDone();
        return unit.join();
    }

    private static void assertUnavailable(OpResult result) {
        assertThat(result.isError()).isTrue();
        assertThat(result.error()).isEqualTo(ErrorCode.UNAVAILABLE);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
