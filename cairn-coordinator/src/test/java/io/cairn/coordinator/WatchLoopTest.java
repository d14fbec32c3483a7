package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.Topology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class WatchLoopTest {
    private static final CairnException DOWN = new CairnException(ErrorCode.UNAVAILABLE, "down");

    private final Topology topology = Topologies.initial(Topologies.ONE_COORDINATOR);
    /** Each poll takes the next answer: a state, or DOWN to fail. Blocks when empty. */
    private final BlockingQueue<Object> answers = new LinkedBlockingQueue<>();
    private final List<Long> askedAfter = new CopyOnWriteArrayList<>();
    private final List<Long> delivered = new CopyOnWriteArrayList<>();
    private WatchLoop loop;

    @AfterEach
    void stopLoop() {
        if (loop != null) loop.stop();
    }

    @Test
    void listenerSeesOnlyNewerEpochsAndThePollAsksAfterTheLastSeen() {
        answers.addAll(List.of(state(1), state(1), state(3), state(2), state(4)));

        start(s -> delivered.add(s.epoch()));

        await().atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == 3);
        assertThat(delivered).containsExactly(1L, 3L, 4L);
        assertThat(askedAfter).startsWith(0L, 1L, 1L, 3L, 3L);
    }

    @Test
    void loopKeepsGoingAfterUnreachableCoordinatorAndAFailingListener() {
        answers.addAll(List.of(DOWN, DOWN, DOWN, state(1), state(2)));

        start(s -> {
            delivered.add(s.epoch());
            if (s.epoch() == 1) throw new IllegalStateException("listener bug");
        });

        await().atMost(Duration.ofSeconds(5)).until(() -> delivered.size() == 2);
        assertThat(delivered).containsExactly(1L, 2L);
    }

    private void start(Consumer<CoordinatorState> listener) {
        loop = new WatchLoop("test-watch-loop", this::poll, listener, Duration.ofMillis(1), Duration.ofMillis(20));
        loop.start();
    }

    private CoordinatorState poll(long afterEpoch) {
        askedAfter.add(afterEpoch);
        try {
            Object answer = answers.take();
            if (answer instanceof CairnException e) throw e;
            return (CoordinatorState) answer;
        } catch (InterruptedException e) {
            throw new CairnException(ErrorCode.UNAVAILABLE, "stopped");
        }
    }

    private CoordinatorState state(long epoch) {
        return new CoordinatorState(topology.withEpoch(epoch), Set.of(), List.of());
    }
}
