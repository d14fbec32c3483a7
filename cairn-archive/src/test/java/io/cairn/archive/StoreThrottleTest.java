package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The throttle on a simulated clock: sleeping advances the clock, so rates are checked exactly, without waiting. */
class StoreThrottleTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MB = 1_000_000L;

    /** A clock that only moves when a throttled caller "sleeps". */
    private static final class SimulatedClock {
        long nanos;

        StoreThrottle throttle(StoreThrottle.Rates rates) {
            return new StoreThrottle(rates, () -> nanos, n -> nanos += n);
        }
    }

    @Test
    void callsBeyondTheBurstWaitForTheirTokens() {
        SimulatedClock clock = new SimulatedClock();
        StoreThrottle t = clock.throttle(new StoreThrottle.Rates(10, 0));
        for (int i = 0; i < 10; i++) t.acquire(1, 0);
        assertThat(clock.nanos).as("a full bucket admits one second's burst at once").isZero();
        for (int i = 0; i < 20; i++) t.acquire(1, 0);
        assertThat(clock.nanos).isBetween(2 * SECOND - 1000, 2 * SECOND + 1000);
        assertThat(t.stats().calls()).isEqualTo(30);
        assertThat(t.stats().throttledCalls()).isEqualTo(20);
    }

    @Test
    void aLargeObjectPassesOnDebtAndDelaysTheNextCaller() {
        SimulatedClock clock = new SimulatedClock();
        StoreThrottle t = clock.throttle(new StoreThrottle.Rates(0, 10 * MB));
        assertThat(t.reserve(1, 100 * MB)).as("90 MB of debt at 10 MB/s").isEqualTo(9 * SECOND);
        clock.nanos += 9 * SECOND; // the first caller waited out its debt
        assertThat(t.reserve(1, MB)).isEqualTo(SECOND / 10);
    }

    @Test
    void idleTimeRefillsOnlyUpToTheBurst() {
        SimulatedClock clock = new SimulatedClock();
        StoreThrottle t = clock.throttle(new StoreThrottle.Rates(5, 0));
        for (int i = 0; i < 5; i++) t.acquire(1, 0);
        clock.nanos += 3600 * SECOND;
        for (int i = 0; i < 5; i++) assertThat(t.reserve(1, 0)).isZero();
        assertThat(t.reserve(1, 0)).as("an hour idle still buys only one second of burst").isPositive();
    }

    @Test
    void ratesChangeAtRunTime() {
        SimulatedClock clock = new SimulatedClock();
        StoreThrottle t = clock.throttle(StoreThrottle.Rates.UNLIMITED);
        for (int i = 0; i < 1000; i++) assertThat(t.reserve(1, 10 * MB)).isZero();
        t.setRates(new StoreThrottle.Rates(2, 0));
        t.reserve(1, 0);
        t.reserve(1, 0);
        assertThat(t.reserve(1, 0)).isEqualTo(SECOND / 2);
        t.setRates(new StoreThrottle.Rates(1000, 0));
        clock.nanos += SECOND;
        assertThat(t.reserve(1, 0)).as("the faster rate applies at once").isZero();
        t.setRates(StoreThrottle.Rates.UNLIMITED);
        assertThat(t.reserve(1_000_000, 0)).isZero();
    }

    @Test
    void negativeRatesAreAConfigError() {
        assertThatThrownBy(() -> new StoreThrottle.Rates(-1, 0))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_CONFIG));
    }

    @Test
    void theStoreDecoratorThrottlesUploadsAndDownloadsAndCountsByKind(@TempDir Path root) throws IOException {
        SimulatedClock clock = new SimulatedClock();
        StoreThrottle t = clock.throttle(new StoreThrottle.Rates(0, MB));
        try (ThrottledObjectStore store = new ThrottledObjectStore(new LocalFolderObjectStore(root), t)) {
            byte[] body = new byte[(int) (2 * MB)];
            store.put("t/a", ObjectBody.of(body), Map.of());
            assertThat(clock.nanos).as("2 MB on a 1 MB/s budget: 1 s of debt").isEqualTo(SECOND);
            store.copy("t/a", "t/b");
            store.head("t/b");
            long beforeRead = clock.nanos;
            try (InputStream in = store.get("t/b")) {
                assertThat(in.readAllBytes()).hasSize(body.length);
            }
            assertThat(clock.nanos - beforeRead).as("reading 2 MB costs 2 s").isBetween(2 * SECOND - 1000, 2 * SECOND + 1000);
            assertThat(store.calls(StoreOperation.PUT)).isEqualTo(1);
            assertThat(store.calls(StoreOperation.COPY)).isEqualTo(1);
            assertThat(store.calls(StoreOperation.HEAD)).isEqualTo(1);
            assertThat(store.calls(StoreOperation.GET)).isEqualTo(1);
            assertThat(store.bytesWritten()).isEqualTo(2 * MB);
            assertThat(store.bytesRead()).isEqualTo(2 * MB);
            assertThat(t.stats().bytes()).as("the copy is charged no bytes").isEqualTo(4 * MB);
        }
    }

    @Test
    void theRealClockThrottleWaitsAtLeastTheDebt() {
        StoreThrottle t = StoreThrottle.system(new StoreThrottle.Rates(100, 0));
        long start = System.nanoTime();
        for (int i = 0; i < 105; i++) t.acquire(1, 0);
        assertThat(System.nanoTime() - start).as("5 calls over the burst at 100/s").isGreaterThanOrEqualTo(50_000_000L - 1_000_000L);
    }
}
