package io.cairn.router.resp;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AuthFailureLimiterTest {
    private long now;

    @Test
    void anAddressIsLimitedAfterMaxFailuresUntilItsWindowEnds() {
        AuthFailureLimiter limiter = new AuthFailureLimiter(2, Duration.ofSeconds(10), 100, () -> now);
        limiter.failed("10.0.0.1");
        assertThat(limiter.limited("10.0.0.1")).isFalse();
        now += Duration.ofSeconds(4).toNanos();
        limiter.failed("10.0.0.1");
        assertThat(limiter.limited("10.0.0.1")).isTrue();
        assertThat(limiter.limited("10.0.0.2")).isFalse();
        assertThat(limiter.nanosUntilAllowed("10.0.0.1")).isEqualTo(Duration.ofSeconds(6).toNanos());
        now += Duration.ofSeconds(6).toNanos();
        assertThat(limiter.limited("10.0.0.1")).isFalse();
        assertThat(limiter.trackedAddresses()).isZero();
    }

    @Test
    void theTableKeepsAtMostMaxAddressesForgettingTheLeastRecentlySeen() {
        AuthFailureLimiter limiter = new AuthFailureLimiter(1, Duration.ofMinutes(1), 3, () -> now);
        for (int i = 0; i < 10; i++) limiter.failed("10.0.0." + i);
        assertThat(limiter.trackedAddresses()).isEqualTo(3);
        assertThat(limiter.limited("10.0.0.9")).isTrue();
        assertThat(limiter.limited("10.0.0.0")).isFalse(); // forgotten: the bound costs the oldest entries
    }

    @Test
    void badLimitsAreRefusedWithTheirName() {
        assertThatThrownBy(() -> new AuthFailureLimiter(0, Duration.ofSeconds(1), 1, () -> now)).hasMessageContaining("maxFailures");
        assertThatThrownBy(() -> new AuthFailureLimiter(1, Duration.ZERO, 1, () -> now)).hasMessageContaining("window");
    }
}
