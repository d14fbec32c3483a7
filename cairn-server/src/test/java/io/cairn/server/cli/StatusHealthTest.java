package io.cairn.server.cli;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link StatusHealth} on status maps as {@link StatusReport#collect} builds them. */
class StatusHealthTest {
    @Test
    void aHealthyClusterHasNoFindingsAndExitsZero() {
        List<StatusHealth.Finding> findings = StatusHealth.findings(status(true, true, List.of()));
        assertThat(findings).isEmpty();
        assertThat(StatusHealth.level(findings).exitCode).isZero();
    }

    @Test
    void aReplicasetWithoutLeaderComesBeforeADownMemberAndExitsUnavailable() {
        Map<String, Object> status = status(false, true, List.of("STALLED_MOVE: bucket 7 (rs1 -> rs2) has taken no step for 21 s"));
        List<StatusHealth.Finding> findings = StatusHealth.findings(status);
        assertThat(findings).extracting(StatusHealth.Finding::text).containsExactly(
                "replicaset rs1 has no leader (1 of 3 members answer): its buckets are not served",
                "storage node s1-2 of replicaset rs1 is DOWN",
                "storage node s1-3 of replicaset rs1 is DOWN",
                "ALERT coordinator: STALLED_MOVE: bucket 7 (rs1 -> rs2) has taken no step for 21 s");
        assertThat(StatusHealth.level(findings)).isEqualTo(StatusHealth.Level.UNAVAILABLE);
        assertThat(StatusHealth.level(findings).exitCode).isEqualTo(4);
    }

    @Test
    void anAlertAloneIsDegraded() {
        List<StatusHealth.Finding> findings = StatusHealth.findings(status(true, true, List.of("MISSING_BUCKETS: replicasets own 590 buckets")));
        assertThat(StatusHealth.level(findings).exitCode).isEqualTo(3);
    }

    @Test
    void nothingAnsweringIsUnreachable() {
        List<StatusHealth.Finding> findings = StatusHealth.findings(status(false, false, null));
        assertThat(findings).extracting(StatusHealth.Finding::level).containsExactly(StatusHealth.Level.UNREACHABLE);
        assertThat(StatusHealth.level(findings).exitCode).isEqualTo(5);
    }

    /** One replicaset of three members (all up with a leader, or one up without one, or none up), one router, the rebalancer's problems (null: no coordinator). */
    private static Map<String, Object> status(boolean healthy, boolean anyUp, List<String> problems) {
        List<Object> members = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            String role = healthy ? (i == 1 ? "LEADER" : "FOLLOWER") : (anyUp && i == 1 ? "FOLLOWER" : "DOWN");
            members.add(Map.of("id", "s1-" + i, "raftRole", role));
        }
        Map<String, Object> rs = new LinkedHashMap<>();
        rs.put("id", "rs1");
        rs.put("leader", healthy ? "s1-1" : null);
        rs.put("members", members);
        Map<String, Object> router = new LinkedHashMap<>(Map.of("id", "r1", "up", anyUp));
        if (anyUp) {
            router.put("unknownBuckets", 0);
            router.put("alerts", List.of());
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("rebalancer", problems == null ? null : Map.of("running", true, "problems", problems));
        status.put("replicasets", List.of(rs));
        status.put("routers", List.of(router));
        return status;
    }
}
