package io.cairn.coordinator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CoordinatorRestartTest {
    @TempDir
    Path dir;

    @Test
    void stateSurvivesARestartOfASingleNodeCoordinatorOnTheSameFolder() throws IOException {
        try (CoordinatorCluster cluster = CoordinatorCluster.start(1, dir)) {
            cluster.awaitLeader();
            CoordinatorState before;
            List<io.cairn.core.topology.Topology> historyBefore;
            try (CoordinatorClient client = cluster.client()) {
                CoordinatorState s = client.init(Topologies.initial(cluster.addresses()));
                s = client.propose(s.epoch(), Topologies.withWeight(s.topology(), "rs1", 10), false, "before snapshot");
                client.claimBootstrap("rs1", 11);
                client.snapshot("c1"); // what follows lives only in the log and must be replayed
                s = client.propose(s.epoch(), Topologies.withBucketCount(s.topology(), 5000), true, "after snapshot");
                client.claimBootstrap("rs2", 12);
                before = client.get();
                historyBefore = client.history();
            }
            assertThat(before.epoch()).isEqualTo(3);

            cluster.stop(0);
            cluster.restart(0);
            cluster.awaitLeader();

            try (CoordinatorClient client = cluster.client()) {
                assertThat(client.get()).isEqualTo(before);
                assertThat(client.history()).isEqualTo(historyBefore);
                assertThat(client.claimBootstrap("rs1", 99).granted()).isFalse();
                assertThat(client.claimBootstrap("rs2", 12).granted()).isTrue();
            }
        }
    }
}
