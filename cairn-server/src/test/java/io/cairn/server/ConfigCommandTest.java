package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.CoordinatorProcess;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code cairn config show|set} on a cluster of three coordinator nodes: a value set takes effect in
 * the running rebalancer with no restart, bad input changes nothing, and a new coordinator leader
 * runs with the values set (they are in the coordinator group's log, not in the old leader's memory).
 */
class ConfigCommandTest {
    private static final Duration SLOW = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void aSettingSetAtRunTimeIsLiveAndSurvivesACoordinatorLeaderChange() throws Exception {
        try (LocalCluster cluster = new LocalCluster(threeCoordinators(TestClusters.config(dir, 2, 1, 300, Map.of()))).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(90))).isTrue();
            Cli shown = Cli.run("config", "show", "--dir", dir.toString());
            assertThat(shown.exitCode()).as(shown.err()).isZero();
            assertThat(shown.out()).containsPattern("rebalancer.maxBytesPerSecond +0 +\\(config file\\)");

            Cli set = Cli.run("config", "set", "rebalancer.maxBytesPerSecond=5000000", "rebalancer.maxSendingPerReplicaset=4", "--dir", dir.toString());
            assertThat(set.exitCode()).as(set.err()).isZero();
            assertThat(set.out()).containsPattern("rebalancer.maxBytesPerSecond +5000000 +\\(set at run time; file: 0\\)");
            CoordinatorProcess first = cluster.coordinatorLeader();
            // the copy budget in force (the adaptive rate starts at its cap) and the plan limits, with no restart
            await().atMost(SLOW).until(() -> first.mover().progress().get("copyBytesPerSecond") instanceof Number n && n.longValue() == 5_000_000);
            assertThat(first.mover().settings().planLimits().maxSendingPerReplicaset()).isEqualTo(4);
            Cli discovery = Cli.run("config", "set", "router.discoveryIntervalMs=250", "--dir", dir.toString());
            assertThat(discovery.exitCode()).as(discovery.err()).isZero();
            await("the router follows").atMost(SLOW).until(() -> cluster.router().router().discoveryInterval().toMillis() == 250);
            Cli archive = Cli.run("config", "set", "archive.bytesPerSecond=2000000", "archive.callsPerSecond=50", "--dir", dir.toString());
            assertThat(archive.exitCode()).as(archive.err()).isZero();
            io.cairn.archive.StoreThrottle.Rates limited = new io.cairn.archive.StoreThrottle.Rates(50, 2_000_000);
            await("every storage node's archive store follows").atMost(SLOW).until(() -> cluster.config().topology().replicasets().stream()
                    .flatMap(rs -> rs.nodes().stream()).map(io.cairn.core.topology.NodeAddress::id).allMatch(id -> limited.equals(cluster.storage(id).archiveStore().throttle().rates())));

            assertRefused(cluster, "unknown run-time setting 'rebalancer.nope'", "rebalancer.nope=1");
            assertRefused(cluster, "move limits must be at least 1", "rebalancer.maxReceivingPerReplicaset=0");
            assertRefused(cluster, "rebalancer.auto must be true or false, was 'yes'", "rebalancer.auto=yes", "rebalancer.maxBytesPerSecond=1");
            assertRefused(cluster, "object store rates must be >= 0", "archive.bytesPerSecond=-1");
            assertThat(Cli.run("config", "show", "--dir", dir.toString()).out())
                    .as("nothing changed by the refused sets").containsPattern("rebalancer.maxBytesPerSecond +5000000 ");

            cluster.stopCoordinator(first);
            await("another coordinator leads").atMost(SLOW).until(() -> cluster.coordinatorLeader() != null);
            CoordinatorProcess second = cluster.coordinatorLeader();
            assertThat(second).isNotSameAs(first);
            await().atMost(SLOW).untilAsserted(() -> {
                assertThat(second.mover().settings().maxBytesPerSecond()).isEqualTo(5_000_000);
                assertThat(second.mover().settings().planLimits().maxSendingPerReplicaset()).isEqualTo(4);
            });

            Cli reset = Cli.run("config", "set", "rebalancer.maxBytesPerSecond=default", "--dir", dir.toString());
            assertThat(reset.exitCode()).as(reset.err()).isZero();
            assertThat(reset.out()).containsPattern("rebalancer.maxBytesPerSecond +0 +\\(config file\\)");
            await().atMost(SLOW).until(() -> second.mover().settings().maxBytesPerSecond() == 0);
        }
    }

    private void assertRefused(LocalCluster cluster, String message, String... assignments) {
        List<String> args = new ArrayList<>(List.of("config", "set"));
        args.addAll(List.of(assignments));
        args.addAll(List.of("--dir", dir.toString()));
        Cli refused = Cli.run(args.toArray(String[]::new));
        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(refused.err()).startsWith("cairn: ").contains(message).contains("nothing changed").doesNotContain("Exception");
    }

    /** The config file rewritten with coordinators c1..c3 (c2, c3 on free ports of the test's range, as TopologyChangeTest does). */
    private static ClusterConfig threeCoordinators(ClusterConfig config) throws Exception {
        Map<String, Object> tree = ConfigLoader.readTree(config.source());
        int base = config.topology().coordinators().get(0).raftPort(); // c1: base, base + 1; router admin: base + 2; nodes from base + 10
        List<Object> coordinators = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int raft = i == 0 ? base : base + 1 + 2 * i;
            coordinators.add(Map.of("id", "c" + (i + 1), "host", "127.0.0.1", "raftPort", raft, "adminPort", raft + 1));
        }
        tree.put("coordinators", coordinators);
        ConfigLoader.write(config.source(), tree);
        return ConfigLoader.load(config.source());
    }
}
