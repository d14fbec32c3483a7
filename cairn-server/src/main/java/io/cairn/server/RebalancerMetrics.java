package io.cairn.server;

import io.cairn.core.rebalance.ReplicasetPhase;
import io.cairn.server.move.MoverService;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.List;
import java.util.Map;

/**
 * The coordinator's {@code cairn_rebalancer_*} gauges, read from {@link MoverService#progress()} (the
 * figures {@code cairn status} and {@code /rebalancer} show), each with its help text. Durations are in
 * seconds, as Prometheus asks ({@code promtool check metrics}); -1 ("not measured yet") stays -1.
 */
final class RebalancerMetrics {
    /** progress key, metric name, help text */
    private static final String[][] PLAIN = {
            {"bucketsToMove", "cairn_rebalancer_buckets_to_move", "buckets the current plan still has to move"},
            {"inFlight", "cairn_rebalancer_in_flight", "bucket moves in flight now"},
            {"moved", "cairn_rebalancer_moved", "buckets moved while this node has led"},
            {"rolledBack", "cairn_rebalancer_rolled_back", "bucket moves rolled back while this node has led"},
            {"keysMoved", "cairn_rebalancer_keys_moved", "keys copied by the moves while this node has led"},
            {"copyBytesPerSecond", "cairn_rebalancer_copy_bytes_per_second", "the rate bucket data may be copied ahead at now, over all moves (0: not limited)"},
            {"stepRetries", "cairn_rebalancer_step_retries", "move steps tried again after retryDelayMs (no answer, or not yet)"},
            {"bucketsPerSecond", "cairn_rebalancer_buckets_per_second", "buckets moved per second, over the last 10 s"},
            {"etaSeconds", "cairn_rebalancer_eta_seconds", "time left to balance at the recent rate (0 when balanced, -1 while nothing moves yet)"},
            {"unsentBytes", "cairn_rebalancer_unsent_bytes", "requests the mover wrote to storage members' connections that they have not taken yet"},
            {"deferredAttempts", "cairn_rebalancer_deferred_attempts", "mover attempts that waited because a connection held 4 MB unsent (a member not reading)"}};
    /** progress key in milliseconds, metric name in seconds, help text */
    private static final String[][] MILLIS = {
            {"stepMedianMs", "cairn_rebalancer_step_median_seconds",
                    "median latency of move steps in the adaptive copy rate's last window with steps (-1: off or no move yet)"},
            {"stepBaseMs", "cairn_rebalancer_step_base_seconds", "lowest such median of the last 10 s (-1: off or no move yet)"}};

    private RebalancerMetrics() {}

    static void register(MeterRegistry r, MoverService mover) {
        for (String[] m : PLAIN) {
            Gauge.builder(m[1], mover, s -> number(s.progress().get(m[0]))).description(m[2]).register(r);
        }
        for (String[] m : MILLIS) {
            Gauge.builder(m[1], mover, s -> seconds(number(s.progress().get(m[0])))).description(m[2]).register(r);
        }
        for (String stat : new String[] {"p50", "p99", "max"}) {
            Gauge.builder("cairn_rebalancer_writes_held_seconds", mover,
                            s -> s.progress().get("writesHeldMs") instanceof Map<?, ?> held ? seconds(number(held.get(stat))) : 0)
                    .tag("stat", stat)
                    .description("how long the last 1,024 moves refused writes to their bucket (SENDING until the destination activated it)")
                    .register(r);
        }
        for (ReplicasetPhase phase : ReplicasetPhase.values()) {
            Gauge.builder("cairn_rebalancer_replicasets", mover, s -> phases(s).values().stream()
                            .filter(p -> p instanceof Map<?, ?> rs && phase.name().equals(rs.get("state"))).count())
                    .tag("state", phase.name()).description("replicasets in each state (BOOTSTRAPPING, READY, DRAINING, DRAINED)")
                    .register(r);
        }
        Gauge.builder("cairn_rebalancer_replicaset_buckets_left", mover, s -> phases(s).values().stream()
                        .mapToLong(p -> p instanceof Map<?, ?> rs && rs.get("bucketsLeft") instanceof Number n ? n.longValue() : 0).sum())
                .description("buckets still to arrive at BOOTSTRAPPING replicasets or to leave DRAINING ones").register(r);
        Gauge.builder("cairn_rebalancer_problems", mover, s -> s.progress().get("problems") instanceof List<?> l ? l.size() : 0)
                .description("problems the rebalancer reports (DOUBLED_BUCKETS, unreachable replicasets)").register(r);
    }

    private static double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : 0;
    }

    /** Milliseconds as seconds; a negative "not measured" mark stays -1. */
    private static double seconds(double millis) {
        return millis < 0 ? -1 : millis / 1000.0;
    }

    private static Map<?, ?> phases(MoverService m) {
        return m.progress().get("replicasets") instanceof Map<?, ?> sets ? sets : Map.of();
    }
}
