package io.cairn.storage;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The one driver thread of the rebalancer and the doubled-bucket verifier ({@link DriverLoop}). */
class DriverLoopTest {
    @Test
    void aTickThatThrowsIsLoggedAndTheNextTickStillRuns() {
        AtomicInteger ticks = new AtomicInteger();
        try (DriverLoop loop = new DriverLoop("test-driver", "test")) {
            loop.every(10, () -> {
                if (ticks.incrementAndGet() == 1) throw new IllegalStateException("a bug in the first tick");
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> ticks.get() >= 3);
        }
    }

    @Test
    void tasksRunOneAtATimeOnTheLoopsThreadAndNothingRunsOnceItIsClosed() {
        DriverLoop loop = new DriverLoop("test-driver", "test");
        AtomicReference<String> thread = new AtomicReference<>();
        assertThat(loop.offer(() -> thread.set(Thread.currentThread().getName()))).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> thread.get() != null);
        assertThat(thread.get()).isEqualTo("test-driver");
        loop.close();
        assertThat(loop.isTerminated()).isTrue();
        assertThat(loop.offer(() -> thread.set("ran after close"))).isFalse();
        assertThat(thread.get()).isEqualTo("test-driver");
    }
}
