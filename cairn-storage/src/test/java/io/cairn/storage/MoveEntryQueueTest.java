package io.cairn.storage;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How waiting move commands are cut into entries: steps before chunks, bounded entries, one express entry of steps. */
class MoveEntryQueueTest {
    private final MoveEntryQueue<String> queue = new MoveEntryQueue<>(2, 4, 100);

    @Test
    void stepsLeaveBeforeChunksAndEntriesStayWithinTheirBytes() {
        queue.add("chunk-1", 60, true);
        queue.add("chunk-2", 60, true);
        queue.add("mark-sent", 10, false);
        queue.add("activate", 10, false);

        assertThat(queue.next().commands()).containsExactly("mark-sent", "activate", "chunk-1");
        assertThat(queue.next().commands()).containsExactly("chunk-2");
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void aCommandBiggerThanAnEntryStillGoesAlone() {
        queue.add("huge-chunk", 500, true);
        queue.add("chunk", 10, true);
        assertThat(queue.next().commands()).containsExactly("huge-chunk");
        assertThat(queue.next().commands()).containsExactly("chunk");
    }

    @Test
    void entriesAreBoundedInCount() {
        for (int i = 0; i < 6; i++) queue.add("step-" + i, 1, false);
        assertThat(queue.next().commands()).hasSize(4);
        assertThat(queue.next().commands()).containsExactly("step-4", "step-5");
    }

    @Test
    void withEverySlotTakenOnlyOneExpressEntryOfStepsMayGo() {
        queue.add("chunk-1", 90, true);
        queue.add("chunk-2", 90, true);
        queue.add("chunk-3", 90, true);
        MoveEntryQueue.Entry<String> first = queue.next();
        MoveEntryQueue.Entry<String> second = queue.next();
        assertThat(queue.next()).as("both slots taken, only chunks wait").isNull();

        queue.add("activate", 10, false);
        queue.add("mark-sent", 10, false);
        MoveEntryQueue.Entry<String> express = queue.next();
        assertThat(express.express()).isTrue();
        assertThat(express.commands()).containsExactly("activate", "mark-sent");
        queue.add("drop-data", 10, false);
        assertThat(queue.next()).as("one express entry at a time").isNull();

        queue.sent(express);
        assertThat(queue.next().commands()).containsExactly("drop-data");
        queue.sent(first);
        MoveEntryQueue.Entry<String> third = queue.next();
        assertThat(third.express()).isFalse();
        assertThat(third.commands()).containsExactly("chunk-3");
        queue.sent(second);
        assertThat(queue.next()).isNull();
    }
}
