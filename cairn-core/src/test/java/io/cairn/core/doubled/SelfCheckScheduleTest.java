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
        assertThat(s.next(0, BUCKETS)).containsExactly(1, 2, 3, 4);
        assertThat(s.next(0, BUCKETS)).isEmpty();
        assertThat(s.next(250, BUCKETS)).containsExactly(5);
        assertThat(s.next(1_250, BUCKETS)).containsExactly(6, 7, 8, 9);
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
    }

    @Test
    void bucketsThatLeftAreSkippedAndNoneIsRepeatedWithinABatch() {
        SelfCheckSchedule s = new SelfCheckSchedule(10, 10);
        assertThat(s.next(0, List.of(3, 7))).containsExactly(3, 7);
    }
}
