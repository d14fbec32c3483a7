package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The coordinator itself refuses to remove a replicaset that still holds buckets: its leader asks
 * (through {@link RemovalCheck}) before the change enters the log, on three real nodes, whatever
 * client proposes the change.
 */
class ReplicasetRemovalTest {
    @TempDir
    Path dir;

    /** Replicaset id -> what the check reports for it (absent: nothing held). */
    private final Map<String, List<String>> held = new ConcurrentHashMap<>();
    private final List<String> asked = new CopyOnWriteArrayList<>();

    private List<String> check(ReplicasetSpec rs) {
        asked.add(rs.id());
        return held.getOrDefault(rs.id(), List.of());
    }

    @Test
    void aReplicasetThatStillHoldsBucketsIsNotRemovedUnlessForced() throws IOException {
        try (CoordinatorCluster cluster = CoordinatorCluster.start(3, dir, this::check);
             CoordinatorClient client = cluster.client()) {
            cluster.awaitLeader();
            CoordinatorState drained = client.propose(client.init(Topologies.initial(cluster.addresses())).epoch(),
                    Topologies.withWeight(Topologies.initial(cluster.addresses()), "rs2", 0), false, "drain rs2");
            assertThat(asked).as("a change that removes nothing asks nothing").isEmpty();

            held.put("rs2", List.of("replicaset 'rs2' still holds 7 buckets"));
            Topology withoutRs2 = without(drained.topology(), "rs2");
            assertThatThrownBy(() -> client.propose(drained.epoch(), withoutRs2, false, "remove rs2"))
                    .isInstanceOfSatisfying(CairnException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.GUARDRAIL);
                        assertThat(e.getMessage()).contains("still holds 7 buckets");
                    });
            assertThat(asked).containsExactly("rs2");
            assertThat(client.get().topology().replicaset("rs2")).as("rs2 at the same epoch").isPresent();

            CoordinatorState forced = client.propose(drained.epoch(), withoutRs2, true, "rs2's hosts are gone");
            assertThat(forced.topology().replicaset("rs2")).isEmpty();
            assertThat(forced.forcedChanges()).last().satisfies(f -> {
                assertThat(f.epoch()).isEqualTo(forced.epoch());
                assertThat(f.overriddenProblems()).containsExactly("replicaset 'rs2' still holds 7 buckets");
            });
        }
    }

    @Test
    void anEmptyWeightZeroReplicasetIsRemovedOnEveryNode() throws IOException {
        try (CoordinatorCluster cluster = CoordinatorCluster.start(3, dir, this::check);
             CoordinatorClient client = cluster.client()) {
            int leader = cluster.awaitLeader();
            Topology initial = Topologies.initial(cluster.addresses());
            CoordinatorState drained = client.propose(client.init(initial).epoch(), Topologies.withWeight(initial, "rs1", 0), false, "drain rs1");

            CoordinatorState removed = client.propose(drained.epoch(), without(drained.topology(), "rs1"), false, "remove rs1");

            assertThat(asked).containsExactly("rs1");
            assertThat(removed.topology().replicasets()).extracting(ReplicasetSpec::id).containsExactly("rs2");
            assertThat(removed.forcedChanges()).isEmpty();
            // The decision is in the log: a new leader has it too.
            cluster.stop(leader);
            assertThat(cluster.awaitLeader()).isNotEqualTo(leader);
            assertThat(client.get().topology()).isEqualTo(removed.topology());
        }
    }

    private static Topology without(Topology t, String id) {
        return new Topology(t.epoch(), t.bucketCount(), t.coordinators(),
                t.replicasets().stream().filter(rs -> !rs.id().equals(id)).toList(), t.routers());
    }
}
