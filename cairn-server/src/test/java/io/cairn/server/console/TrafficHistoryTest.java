package io.cairn.server.console;

import io.cairn.router.ReplicasetTraffic;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Rates and mean answer times from two readings of a router's counters, and a history that stays bounded. */
class TrafficHistoryTest {
    private static ReplicasetTraffic traffic(long writeOps, long readOps, long writesAnswered, long writeNanos, long readsAnswered, long readNanos) {
        return new ReplicasetTraffic(writeOps, readOps, writesAnswered, readsAnswered, writesAnswered, writeNanos, readsAnswered, readNanos);
    }

    @Test
    void aPointIsTheRateAndMeanAnswerTimeSinceTheLastSample() {
        TrafficHistory history = new TrafficHistory();
        history.sample(Map.of("rs1", traffic(0, 0, 0, 0, 0, 0)), 10_000);
        assertThat(history.columns()).isEmpty(); // one reading is no rate yet
        history.sample(Map.of("rs1", traffic(400, 50, 10, 10 * 2_500_000L, 0, 0)), 12_000);
        Map<String, List<Number>> rs1 = history.columns().get("rs1");
        assertThat(rs1.get("t")).containsExactly(12_000L);
        assertThat(rs1.get("writes")).containsExactly(200L);
        assertThat(rs1.get("reads")).containsExactly(25L);
        assertThat(rs1.get("writeMs")).containsExactly(2.5);
        assertThat(rs1.get("readMs")).containsExactly(-1.0); // no read batch answered in that interval
    }

    @Test
    void afterCutsEveryColumnToThePointsAfterATime() {
        TrafficHistory history = new TrafficHistory();
        for (int s = 0; s <= 5; s++) history.sample(Map.of("rs1", traffic(s * 10L, s * 20L, s, s * 1_000_000L, 0, 0)), s * 1000L);
        Map<String, Map<String, List<Number>>> recent = TrafficHistory.after(history.columns(), 3000);
        assertThat(recent.get("rs1").get("t")).containsExactly(4000L, 5000L);
        assertThat(recent.get("rs1").get("reads")).containsExactly(20L, 20L);
        assertThat(TrafficHistory.after(history.columns(), 5000).get("rs1").get("writes")).isEmpty();
    }

    @Test
    void theHistoryKeepsTwoMinutesAndForgetsARemovedReplicaset() {
        TrafficHistory history = new TrafficHistory();
        for (int s = 0; s <= 300; s++) {
            history.sample(Map.of("rs1", traffic(s * 10L, 0, s, s * 1_000_000L, 0, 0), "rs2", traffic(0, 0, 0, 0, 0, 0)), s * 1000L);
        }
        assertThat(history.columns().get("rs1").get("t")).hasSize(TrafficHistory.POINTS);
        assertThat(history.columns().get("rs1").get("t").get(0)).isEqualTo((300L - TrafficHistory.POINTS + 1) * 1000);
        assertThat(history.columns().get("rs1").get("writeMs")).containsOnly(1.0);
        history.sample(Map.of("rs1", traffic(3010, 0, 301, 301_000_000L, 0, 0)), 301_000);
        assertThat(history.columns()).containsOnlyKeys("rs1");
    }
}
