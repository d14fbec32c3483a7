package io.cairn.core.doubled;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class SelfCheckScheduleTest {
    private static final List<Integer> BUCKETS = IntStream.rangeClosed(1, 10).boxed().toList();

    @Test
    void firstCallChecksOneSecondsWorthThenTheRateBoundsTheRest() {
        SelfCheckSchedule s = new SelfCheckSchedule(4, 100);
        assertThat(s.due(0)).isTrue();
        assertThat(s.next(0, BUCKETS)).containsExactly(1, 2, 3, 4);
        assertThat(s.next(0, BUCKETS)).isEmpty();
        // Whole batches only: a quarter of a second earns one token, not a query of its own.
        assertThat(s.due(250)).isFalse();
        assertThat(s.next(250, BUCKETS)).isEmpty();
        assertThat(s.due(999)).isFalse();
        assertThat(s.due(1_000)).isTrue();
        assertThat(s.next(1_000, BUCKETS)).containsExactly(5, 6, 7, 8);
        assertThat(s.next(1_500, BUCKETS)).isEmpty();
    }

    @Test
    void walkWrapsAroundSoEveryBucketIsCheckedOncePerSweep() {
        SelfCheckSchedule s = new SelfCheckSchedule(3, 3);
        List<Integer> seen = new ArrayList<>();
        for (int second = 0; second < 4; second++) seen.addAll(s.next(second * 1_000L, BUCKETS));
        assertThat(seen).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2);
    }

    @Test
    void batchIsBoundedEvenAfterALongPause() {
        SelfCheckSchedule s = new SelfCheckSchedule(1_000, 50);
        s.next(0, BUCKETS);
        assertThat(s.next(60_000, IntStream.rangeClosed(1, 5_000).boxed().toList())).hasSize(50);
    }

    @Test
    void zeroRateTurnsTheSelfCheckOff() {
        assertThat(new SelfCheckSchedule(0, 10).next(5_000, BUCKETS)).isEmpty();
        assertThat(new SelfCheckSchedule(0, 10).due(5_000)).isFalse();
    }

    @Test
    void bucketsThatLeftAreSkippedAndNoneIsRepeatedWithinABatch() {
        SelfCheckSchedule s = new SelfCheckSchedule(10, 10);
        assertThat(s.next(0, List.of(3, 7))).containsExactly(3, 7);
    }
}
