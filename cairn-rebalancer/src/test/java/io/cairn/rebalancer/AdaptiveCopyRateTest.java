package io.cairn.rebalancer;

import org.junit.jupiter.api.Test;

import static io.cairn.rebalancer.AdaptiveCopyRate.WINDOW_MS;
import static org.assertj.core.api.Assertions.assertThat;

/** The copy rate follows the delay the copy adds to move steps (LEDBAT-like), between a floor and the cap. */
class AdaptiveCopyRateTest {
    private static final long MB = 1_000_000;
    private long now;

    /** One window: {@code bytes} copied and {@code steps} answered after {@code latencyMs} each, spread over it. */
    private void window(AdaptiveCopyRate rate, long bytes, long latencyMs, int steps) {
        long start = now;
        for (int i = 0; i < steps; i++) {
            rate.copied(bytes / steps, start + i * WINDOW_MS / steps);
            rate.stepAnswered(latencyMs, start + i * WINDOW_MS / steps);
        }
        now = start + WINDOW_MS;
    }

    /** Closes the last window with one more sample at its end. */
    private void close(AdaptiveCopyRate rate, long latencyMs) {
        rate.stepAnswered(latencyMs, now);
    }

    @Test
    void theCopyIsNotLimitedUntilItSlowsTheSteps() {
        AdaptiveCopyRate rate = new AdaptiveCopyRate(10, 0);
        assertThat(rate.lastMedianMs()).as("no window yet").isEqualTo(-1);
        assertThat(rate.baseMs()).isEqualTo(-1);
        for (int i = 0; i < 20; i++) window(rate, 2 * MB, 5, 8); // 8 MB/s, steps at their 5 ms base
        close(rate, 5);
        assertThat(rate.bytesPerSecond()).as("no limit while steps stay at the base").isZero();

        window(rate, 2 * MB, 30, 8); // the copy adds 25 ms to each step
        close(rate, 30);
        assertThat(rate.bytesPerSecond()).as("0.7 of the 8 MB/s actually copied").isBetween(5_500_000L, 5_700_000L);
        assertThat(rate.lastMedianMs()).isEqualTo(30);
        assertThat(rate.baseMs()).isEqualTo(5);
    }

    @Test
    void aMachineWhoseStepsAreAlwaysSlowIsNotThrottled() {
        AdaptiveCopyRate rate = new AdaptiveCopyRate(10, 0);
        for (int i = 0; i < 20; i++) window(rate, 2 * MB, 80, 8);
        close(rate, 80);
        assertThat(rate.bytesPerSecond()).as("80 ms is this machine's base, not the copy's doing").isZero();
    }

    @Test
    void oneSlowStepInAWindowIsNotEnough() {
        AdaptiveCopyRate rate = new AdaptiveCopyRate(10, 0);
        window(rate, 2 * MB, 5, 8);
        rate.stepAnswered(500, now + 1); // a GC pause, say
        window(rate, 2 * MB, 5, 8);
        close(rate, 5);
        assertThat(rate.bytesPerSecond()).isZero();
    }

    @Test
    void itBacksOffToTheFloorAtMostAndGrowsBackWhileTheRateLimitsTheCopy() {
        AdaptiveCopyRate rate = new AdaptiveCopyRate(10, 0);
        window(rate, 2 * MB, 5, 8);
        for (int i = 0; i < 30; i++) window(rate, 2 * MB, 100, 8);
        close(rate, 100);
        assertThat(rate.bytesPerSecond()).isEqualTo(AdaptiveCopyRate.FLOOR_BYTES_PER_SECOND);

        // Steps are back at their base and the copy uses all it may: the rate grows window after window.
        long before = rate.bytesPerSecond();
        for (int i = 0; i < 10; i++) {
            window(rate, rate.bytesPerSecond() * WINDOW_MS / 1000, 5, 8);
        }
        close(rate, 5);
        assertThat(rate.bytesPerSecond()).isGreaterThan(3 * before);

        // The copy uses little of what it may (the moves wait for something else): no growth.
        long reached = rate.bytesPerSecond();
        for (int i = 0; i < 10; i++) window(rate, 1_000, 5, 8);
        close(rate, 5);
        assertThat(rate.bytesPerSecond()).isEqualTo(reached);
    }

    @Test
    void theCapBoundsTheRateAndIsWhereItStarts() {
        AdaptiveCopyRate rate = new AdaptiveCopyRate(10, 4 * MB);
        assertThat(rate.bytesPerSecond()).isEqualTo(4 * MB);
        window(rate, MB, 5, 8);
        for (int i = 0; i < 20; i++) window(rate, MB, 5, 8);
        close(rate, 5);
        assertThat(rate.bytesPerSecond()).isEqualTo(4 * MB);

        AdaptiveCopyRate low = new AdaptiveCopyRate(10, 100_000);
        window(low, 25_000, 5, 8);
        for (int i = 0; i < 20; i++) window(low, 25_000, 200, 8);
        close(low, 200);
        assertThat(low.bytesPerSecond()).as("a cap under the floor is the floor").isEqualTo(100_000);
    }

    @Test
    void windowsWithoutStepsKeepTheRate() {
        AdaptiveCopyRate rate = new AdaptiveCopyRate(10, 0);
        window(rate, 2 * MB, 5, 8);
        window(rate, 2 * MB, 40, 8);
        rate.copied(MB, now); // closes the slow window
        long slowed = rate.bytesPerSecond();
        assertThat(slowed).isPositive();
        for (int i = 0; i < 10; i++) {
            now += WINDOW_MS;
            rate.copied(MB, now);
        }
        assertThat(rate.bytesPerSecond()).isEqualTo(slowed);
    }

    @Test
    void anAdaptiveBudgetMakesChunksWaitOnceStepsSlowDown() {
        TransferBudget budget = new TransferBudget(0, 10);
        budget.spend(2 * MB, 0);
        budget.stepAnswered(5, 0);
        assertThat(budget.waitMs(0)).as("not limited yet").isZero();
        budget.spend(2 * MB, 200);
        budget.stepAnswered(60, 260); // closes the first window (base 5 ms) ...
        budget.stepAnswered(60, 300);
        budget.spend(MB, 520); // ... and this the second, whose steps took 55 ms longer
        assertThat(budget.bytesPerSecond()).isPositive();
        assertThat(budget.waitMs(520)).as("the chunk that just left is owed at the new rate").isPositive();
    }

    @Test
    void aBudgetReconfiguredAtRunTimePacesAtTheNewCapAndUnlimitsAgainAtZero() {
        TransferBudget budget = new TransferBudget(0, 0);
        budget.spend(4 * MB, 0);
        assertThat(budget.waitMs(0)).as("no cap yet").isZero();
        budget.reconfigure(MB, 0, 1_000); // 1 MB/s from t = 1 s (cairn config set rebalancer.maxBytesPerSecond)
        assertThat(budget.bytesPerSecond()).isEqualTo(MB);
        budget.spend(MB, 1_000);
        assertThat(budget.waitMs(1_000)).as("a 1 MB chunk is owed for about a second at 1 MB/s").isBetween(900L, 1_000L);
        budget.reconfigure(0, 0, 1_100);
        assertThat(budget.waitMs(1_100)).as("0: no limit again").isZero();
        budget.reconfigure(MB, 10, 1_200);
        assertThat(budget.bytesPerSecond()).as("an adaptive rate starts at its cap").isEqualTo(MB);
    }
}
