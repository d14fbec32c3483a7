package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.Topology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class WatchHubTest {
    private static final String HUB_THREAD = "test-watch-hub";

    private final ScheduledExecutorService executor =
            Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, HUB_THREAD));
    private final WatchHub hub = new WatchHub(executor, 3, 60_000);
    private final Topology topology = Topologies.initial(Topologies.ONE_COORDINATOR);

    @AfterEach
    void closeHub() {
        hub.close();
    }

    @Test
    void watchIsAnsweredAtOnceWhenTheEpochIsAlreadyNewer() {
        hub.publish(state(3));

        assertThat(hub.await(2, 60_000)).isCompletedWithValue(state(3));
        assertThat(hub.parkedCount()).isZero();
    }

    @Test
    void parkedWatchIsAnsweredByANewerEpochOffThePublisherThread() {
        hub.publish(state(1));
        CompletableFuture<String> completedOn = hub.await(1, 60_000).thenApply(s -> Thread.currentThread().getName());
        assertThat(completedOn).isNotDone();

        hub.publish(state(2));

        await().atMost(Duration.ofSeconds(5)).until(completedOn::isDone);
        assertThat(completedOn.join()).isEqualTo(HUB_THREAD);
    }

    @Test
    void stateChangeWithoutANewEpochDoesNotWakeWatches() {
        hub.publish(state(1));
        CompletableFuture<CoordinatorState> watch = hub.await(1, 60_000);

        hub.publish(new CoordinatorState(topology.withEpoch(1), Set.of("rs1"), List.of()));

        assertThat(watch).isNotDone();
        assertThat(hub.parkedCount()).isEqualTo(1);
    }

    @Test
    void parkedWatchIsAnsweredWithTheUnchangedStateWhenItsWaitExpires() {
        hub.publish(state(1));

        CompletableFuture<CoordinatorState> watch = hub.await(1, 100);

        await().atMost(Duration.ofSeconds(5)).until(watch::isDone);
        assertThat(watch.join().epoch()).isEqualTo(1);
        assertThat(hub.parkedCount()).isZero();
    }

    @Test
    void closeAnswersEveryParkedWatch() {
        hub.publish(state(1));
        CompletableFuture<CoordinatorState> a = hub.await(1, 60_000);
        CompletableFuture<CoordinatorState> b = hub.await(1, 60_000);

        hub.close();

        assertThat(a).isCompletedWithValue(state(1));
        assertThat(b).isCompletedWithValue(state(1));
        assertThat(hub.await(1, 60_000)).isCompletedWithValue(state(1));
    }

    @Test
    void watchesBeyondTheLimitAreRefusedWithUnavailable() {
        hub.publish(state(1));
        for (int i = 0; i < 3; i++) hub.await(1, 60_000);

        CompletableFuture<CoordinatorState> refused = hub.await(1, 60_000);

        assertThat(refused).isCompletedExceptionally();
        assertThat(refused.handle((s, e) -> ((CairnException) e).code()).join()).isEqualTo(ErrorCode.UNAVAILABLE);
    }

    private CoordinatorState state(long epoch) {
        return new CoordinatorState(topology.withEpoch(epoch), Set.of(), List.of());
    }
}
