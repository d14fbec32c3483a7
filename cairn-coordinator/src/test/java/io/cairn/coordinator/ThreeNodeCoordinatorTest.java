package io.cairn.coordinator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ThreeNodeCoordinatorTest {
    @TempDir
    Path dir;

    @Test
    void threeNodeCoordinatorKeepsServingAndPushingAfterItsLeaderIsClosed() throws IOException {
        try (CoordinatorCluster cluster = CoordinatorCluster.start(3, dir);
             CoordinatorClient client = cluster.client();
             CoordinatorClient watcher = cluster.client()) {
            int oldLeader = cluster.awaitLeader();
            CoordinatorState initial = client.init(Topologies.initial(cluster.addresses()));
            assertThat(client.claimBootstrap("rs1", 1).granted()).isTrue();
            List<Long> seen = new CopyOnWriteArrayList<>();
            watcher.watch(state -> seen.add(state.epoch()));
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains(1L));

            cluster.stop(oldLeader);
            CoordinatorState next = client.propose(initial.epoch(),
                    Topologies.withWeight(initial.topology(), "rs2", 300), false, "after failover");

            assertThat(next.epoch()).isEqualTo(2);
            assertThat(cluster.awaitLeader()).isNotEqualTo(oldLeader);
            assertThat(client.claimBootstrap("rs1", 2).granted()).isFalse();
            assertThat(client.get().topology()).isEqualTo(next.topology());
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains(2L));
        }
    }
}
