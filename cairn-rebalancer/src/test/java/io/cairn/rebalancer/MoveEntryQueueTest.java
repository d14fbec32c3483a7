package io.cairn.rebalancer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How waiting move commands are cut into entries: steps before chunks, bounded entries, one express entry of steps, the budget. */
class MoveEntryQueueTest {
    private final MoveEntryQueue<String> queue = new MoveEntryQueue<>(2, 4, 100, TransferBudget.unlimited());

    @Test
    void stepsLeaveBeforeChunksAndEntriesStayWithinTheirBytes() {
        queue.add("chunk-1", 60, true);
        queue.add("chunk-2", 60, true);
        queue.add("mark-sent", 10, false);
        queue.add("activate", 10, false);

        assertThat(queue.next(0).commands()).containsExactly("mark-sent", "activate", "chunk-1");
        assertThat(queue.next(0).commands()).containsExactly("chunk-2");
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void aCommandBiggerThanAnEntryStillGoesAlone() {
        queue.add("huge-chunk", 500, true);
        queue.add("chunk", 10, true);
        assertThat(queue.next(0).commands()).containsExactly("huge-chunk");
        assertThat(queue.next(0).commands()).containsExactly("chunk");
    }

    @Test
    void entriesAreBoundedInCount() {
        for (int i = 0; i < 6; i++) queue.add("step-" + i, 1, false);
        assertThat(queue.next(0).commands()).hasSize(4);
        assertThat(queue.next(0).commands()).containsExactly("step-4", "step-5");
    }

    @Test
    void anEntryIsStampedWhenItLeavesNotWhenItsCommandsQueued() {
        MoveEntryQueue.Entry<String> first = chunksInBothSlots().get(0);
        queue.add("verdict", 10, false);
        assertThat(queue.next(5).sentAtMs()).isEqualTo(5);
        queue.add("mark-sent", 10, false);
        assertThat(queue.next(10)).as("slots and the express lane taken").isNull();
        queue.sent(first);
        MoveEntryQueue.Entry<String> later = queue.next(40);
        assertThat(later.commands()).startsWith("mark-sent");
        assertThat(later.sentAtMs()).isEqualTo(40);
    }

    @Test
    void withEverySlotTakenOnlyOneExpressEntryOfStepsMayGo() {
        java.util.List<MoveEntryQueue.Entry<String>> slots = chunksInBothSlots();
        MoveEntryQueue.Entry<String> first = slots.get(0);
        MoveEntryQueue.Entry<String> second = slots.get(1);
        assertThat(queue.next(0)).as("both slots taken, only chunks wait").isNull();

        queue.add("activate", 10, false);
        queue.add("mark-sent", 10, false);
        MoveEntryQueue.Entry<String> express = queue.next(0);
        assertThat(express.express()).isTrue();
        assertThat(express.commands()).containsExactly("activate", "mark-sent");
        queue.add("drop-data", 10, false);
        assertThat(queue.next(0)).as("one express entry at a time").isNull();

        queue.sent(express);
        assertThat(queue.next(0).commands()).containsExactly("drop-data");
        queue.sent(first);
        MoveEntryQueue.Entry<String> third = queue.next(0);
        assertThat(third.express()).isFalse();
        assertThat(third.commands()).containsExactly("chunk-3");
        queue.sent(second);
        assertThat(queue.next(0)).isNull();
    }

    @Test
    void chunksWaitForTheBudgetButStepsDoNot() {
        MoveEntryQueue<String> paced = new MoveEntryQueue<>(3, 4, 100, new TransferBudget(1_000)); // 1,000 bytes/s
        paced.add("chunk-1", 100, true);
        paced.add("chunk-2", 100, true);
        assertThat(paced.next(0).commands()).containsExactly("chunk-1");
        assertThat(paced.next(0)).as("the budget is spent").isNull();
        assertThat(paced.budgetWaitMs()).isEqualTo(100);

        paced.add("activate", 10, false);
        assertThat(paced.next(50).commands()).as("a step leaves without chunks").containsExactly("activate");
        assertThat(paced.next(50)).isNull();
        assertThat(paced.budgetWaitMs()).isEqualTo(50);
        assertThat(paced.next(100).commands()).containsExactly("chunk-2");
    }

    /**
     * The wait reported is the one that held the chunk back, whenever it is asked: the move port
     * once read the clock again after {@code next} refused a chunk, found the budget refilled by
     * then (a wait of 0), set no timer, and the chunk waited forever (a move stalled in CI).
     */
    @Test
    void theWaitReportedIsTheOneThatHeldTheChunkBack() {
        TransferBudget budget = new TransferBudget(1_000);
        MoveEntryQueue<String> paced = new MoveEntryQueue<>(2, 4, 100, budget); // one chunk per entry
        paced.add("chunk-1", 100, true);
        paced.add("chunk-2", 100, true);
        assertThat(paced.next(0).commands()).containsExactly("chunk-1");
        assertThat(paced.next(0)).isNull();
        assertThat(budget.waitMs(100)).as("by the time the caller looks again, the budget has refilled").isZero();
        assertThat(paced.budgetWaitMs()).as("so the queue reports the wait it saw").isEqualTo(100);
        assertThat(paced.next(100).commands()).containsExactly("chunk-2");

        assertThat(paced.next(100)).isNull();
        assertThat(paced.budgetWaitMs()).as("nothing waits: nothing to wake").isZero();
        paced.add("chunk-3", 100, true);
        assertThat(paced.next(1_000)).as("both slots taken").isNull();
        assertThat(paced.budgetWaitMs()).as("an answer will flush it, not a timer").isZero();
    }

    @Test
    void aSpentBudgetRefillsAtItsRateAndSavesAtMostATenthOfASecond() {
        TransferBudget budget = new TransferBudget(10_000);
        assertThat(budget.waitMs(0)).isZero();
        budget.spend(5_000, 0);
        assertThat(budget.waitMs(0)).as("5,000 bytes owed at 10,000/s").isEqualTo(500);
        assertThat(budget.waitMs(499)).isEqualTo(1);
        assertThat(budget.waitMs(500)).isZero();

        assertThat(budget.waitMs(60_000)).isZero();
        budget.spend(1_000, 60_000);
        budget.spend(1_000, 60_000);
        assertThat(budget.waitMs(60_000)).as("a long idle spell saved only 1,000 bytes").isEqualTo(100);
        assertThat(TransferBudget.unlimited().waitMs(0)).isZero();
    }

    /** Three chunks queued at 0, two of them in flight (one entry each): both slots are taken. */
    private java.util.List<MoveEntryQueue.Entry<String>> chunksInBothSlots() {
        for (int i = 1; i <= 3; i++) queue.add("chunk-" + i, 90, true);
        return java.util.List.of(queue.next(0), queue.next(0));
    }
}
