package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.Topology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.awaitility.Awaitility.await;

/** One real single-node coordinator shared by the tests of this class; each test starts from the current epoch. */
class SingleNodeCoordinatorTest {
    @TempDir
    static Path dir;
    static CoordinatorCluster cluster;
    static CoordinatorClient client;
    static CoordinatorState initialized;

    @BeforeAll
    static void startCoordinator() throws IOException {
        cluster = CoordinatorCluster.start(1, dir);
        cluster.awaitLeader();
        client = cluster.client();
        initialized = client.init(Topologies.initial(cluster.addresses()));
    }

    @AfterAll
    static void stopCoordinator() {
        if (client != null) client.close();
        if (cluster != null) cluster.close();
    }

    @Test
    void initIsIdempotentAndTheFirstTopologyWins() {
        assertThat(initialized.topology()).isEqualTo(Topologies.initial(cluster.addresses()).withEpoch(1));
        CoordinatorState before = client.get();

        CoordinatorState again = client.init(Topologies.withWeight(Topologies.initial(cluster.addresses()), "rs1", 3));

        assertThat(again.topology()).isEqualTo(before.topology());
        assertThat(client.get().epoch()).isEqualTo(before.epoch());
    }

    @Test
    void validChangeIsPublishedAsTheNextEpoch() {
        CoordinatorState current = client.get();
        Topology next = Topologies.withWeight(current.topology(), "rs2", 250);

        CoordinatorState published = client.propose(current.epoch(), next, false, "more weight to rs2");

        assertThat(published.epoch()).isEqualTo(current.epoch() + 1);
        assertThat(published.topology()).isEqualTo(next.withEpoch(current.epoch() + 1));
        assertThat(client.get()).isEqualTo(published);
    }

    @Test
    void proposeWithAStaleEpochIsRefusedWithStaleEpoch() {
        CoordinatorState current = client.get();
        Topology next = Topologies.withWeight(current.topology(), "rs1", 1);

        assertThatThrownBy(() -> client.propose(current.epoch() - 1, next, false, "late"))
                .isInstanceOfSatisfying(CairnException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.STALE_EPOCH));
        assertThat(client.get().epoch()).isEqualTo(current.epoch());
    }

    @Test
    void bucketCountChangeIsRefusedByAGuardrailAndAcceptedWithForce() {
        CoordinatorState current = client.get();
        Topology resharded = Topologies.withBucketCount(current.topology(), current.topology().bucketCount() + 1);

        assertThatThrownBy(() -> client.propose(current.epoch(), resharded, false, "oops"))
                .isInstanceOfSatisfying(CairnException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.GUARDRAIL);
                    assertThat(e.getMessage()).contains("bucketCount is fixed");
                });
        CoordinatorState forced = client.propose(current.epoch(), resharded, true, "disaster recovery drill");

        assertThat(forced.epoch()).isEqualTo(current.epoch() + 1);
        assertThat(forced.topology().bucketCount()).isEqualTo(resharded.bucketCount());
        assertThat(forced.forcedChanges()).last().satisfies(f -> {
            assertThat(f.epoch()).isEqualTo(forced.epoch());
            assertThat(f.reason()).isEqualTo("disaster recovery drill");
            assertThat(f.actor()).isNotBlank();
            assertThat(f.overriddenProblems()).anyMatch(p -> p.contains("bucketCount"));
        });
    }

    @Test
    void bootstrapClaimIsRefusedToASecondIncarnation() {
        assertThat(client.claimBootstrap("rs1", 1).granted()).isTrue();
        assertThat(client.claimBootstrap("rs1", 2).granted()).isFalse();
        assertThat(client.get().bootstrapped("rs1")).isTrue();
    }

    @Test
    void watchDeliversANewEpochToTheListenerPromptly() {
        List<Long> seen = new CopyOnWriteArrayList<>();
        try (CoordinatorClient watcher = cluster.client()) {
            watcher.watch(state -> seen.add(state.epoch()));
            CoordinatorState current = client.get();
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains(current.epoch()));

            client.propose(current.epoch(), Topologies.withWeight(current.topology(), "rs1", 42), false, "watch me");

            await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains(current.epoch() + 1));
        }
    }

    @Test
    void watchOnceAnswersWithTheUnchangedStateWhenNothingHappens() {
        CoordinatorState current = client.get();

        CoordinatorState answered = client.watchOnce(current.epoch() + 100, Duration.ofMillis(200));

        assertThat(answered.epoch()).isEqualTo(client.get().epoch());
    }

    @Test
    void historyListsConsecutiveEpochsEndingWithTheCurrentTopology() {
        CoordinatorState current = client.get();
        client.propose(current.epoch(), Topologies.withWeight(current.topology(), "rs2", 77), false, "history");

        List<Topology> history = client.history();

        assertThat(history.get(0).epoch()).isEqualTo(1);
        for (int i = 1; i < history.size(); i++) {
            assertThat(history.get(i).epoch()).isEqualTo(history.get(i - 1).epoch() + 1);
        }
        assertThat(history.get(history.size() - 1)).isEqualTo(client.get().topology());
    }

    @Test
    void callsFailWithUnavailableInBoundedTimeWhenNoCoordinatorAnswers() throws IOException {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = s.getLocalPort();
        }
        List<NodeAddress> nowhere = List.of(new NodeAddress("c1", "127.0.0.1", deadPort, deadPort + 1));
        Duration callDeadline = Duration.ofSeconds(1);
        // A call ends within its deadline plus one request timeout (CoordinatorClient); the rest is slack for a
        // loaded machine. A call that kept retrying would never end: it fails at this bound instead of hanging.
        Duration bound = callDeadline.plus(CoordinatorLimits.CLIENT_REQUEST_TIMEOUT).plus(Duration.ofSeconds(10));
        try (CoordinatorClient lost = new CoordinatorClient(nowhere, "tester", callDeadline)) {
            long start = System.nanoTime();
            assertTimeoutPreemptively(bound, () -> assertThatThrownBy(lost::get).isInstanceOfSatisfying(CairnException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE)), "a read with no coordinator");
            long readMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
            start = System.nanoTime();
            assertTimeoutPreemptively(bound, () -> assertThatThrownBy(() -> lost.claimBootstrap("rs1", 1)).isInstanceOfSatisfying(CairnException.class,
                    e -> assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE)), "a write with no coordinator");
            System.out.printf("no coordinator: read failed after %d ms, write after %d ms (call deadline %d ms)%n",
                    readMs, Duration.ofNanos(System.nanoTime() - start).toMillis(), callDeadline.toMillis());
        }
    }
}
