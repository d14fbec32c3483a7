package io.cairn.server.process;

import io.cairn.core.rebalance.ReplicasetPhase;
import io.cairn.rebalancer.MoverService;
import io.cairn.rebalancer.RebalancerProgress;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.function.ToDoubleFunction;

/**
 * The coordinator's {@code cairn_rebalancer_*} gauges, read from {@link MoverService#running()} (the
 * figures {@code cairn status} and {@code /rebalancer} show), each with its help text; 0 while this
 * node runs no rebalancer. Durations are in seconds, as Prometheus asks ({@code promtool check
 * metrics}); -1 ("not measured yet") stays -1.
 */
final class RebalancerMetrics {
    private RebalancerMetrics() {}

    static void register(MeterRegistry r, MoverService mover) {
        gauge(r, mover, "cairn_rebalancer_buckets_to_move", "buckets the current plan still has to move", p -> p.plan().bucketsToMove());
        gauge(r, mover, "cairn_rebalancer_in_flight", "bucket moves in flight now", p -> p.plan().inFlight());
        gauge(r, mover, "cairn_rebalancer_moved", "buckets moved while this node has led", p -> p.plan().moved());
        gauge(r, mover, "cairn_rebalancer_rolled_back", "bucket moves rolled back while this node has led", p -> p.plan().rolledBack());
        gauge(r, mover, "cairn_rebalancer_keys_moved", "keys copied by the moves while this node has led", p -> p.plan().keysMoved());
        gauge(r, mover, "cairn_rebalancer_copy_bytes_per_second",
                "the rate bucket data may be copied ahead at now, over all moves (0: not limited)", RebalancerProgress::copyBytesPerSecond);
        gauge(r, mover, "cairn_rebalancer_step_retries", "move steps tried again after retryDelayMs (no answer, or not yet)",
                p -> p.plan().stepRetries());
        gauge(r, mover, "cairn_rebalancer_buckets_per_second", "buckets moved per second, over the last 10 s", RebalancerProgress::bucketsPerSecond);
        gauge(r, mover, "cairn_rebalancer_eta_seconds", "time left to balance at the recent rate (0 when balanced, -1 while nothing moves yet)",
                RebalancerProgress::etaSeconds);
        gauge(r, mover, "cairn_rebalancer_unsent_bytes", "requests the mover wrote to storage members' connections that they have not taken yet",
                p -> p.backlog().unsentBytes());
        gauge(r, mover, "cairn_rebalancer_deferred_attempts", "mover attempts that waited because a connection held 4 MB unsent (a member not reading)",
                p -> p.backlog().deferredAttempts());
        gauge(r, mover, "cairn_rebalancer_step_median_seconds",
                "median latency of move steps in the adaptive copy rate's last window with steps (-1: off or no move yet)",
                p -> seconds(p.steps().medianMs()));
        gauge(r, mover, "cairn_rebalancer_step_base_seconds", "lowest such median of the last 10 s (-1: off or no move yet)",
                p -> seconds(p.steps().baseMs()));
        String held = "how long the last 1,024 moves refused writes to their bucket (SENDING until the destination activated it)";
        Gauge.builder("cairn_rebalancer_writes_held_seconds", mover, of(p -> seconds(p.plan().writesHeld().p50Ms()))).tag("stat", "p50")
                .description(held).register(r);
        Gauge.builder("cairn_rebalancer_writes_held_seconds", mover, of(p -> seconds(p.plan().writesHeld().p99Ms()))).tag("stat", "p99")
                .description(held).register(r);
        Gauge.builder("cairn_rebalancer_writes_held_seconds", mover, of(p -> seconds(p.plan().writesHeld().maxMs()))).tag("stat", "max")
                .description(held).register(r);
        for (ReplicasetPhase phase : ReplicasetPhase.values()) {
            Gauge.builder("cairn_rebalancer_replicasets", mover, of(p -> p.plan().phases().values().stream().filter(phase::equals).count()))
                    .tag("state", phase.name()).description("replicasets in each state (BOOTSTRAPPING, READY, DRAINING, DRAINED)")
                    .register(r);
        }
        gauge(r, mover, "cairn_rebalancer_replicaset_buckets_left", "buckets still to arrive at BOOTSTRAPPING replicasets or to leave DRAINING ones",
                p -> p.plan().phases().keySet().stream().mapToLong(p::bucketsLeft).sum());
        gauge(r, mover, "cairn_rebalancer_problems", "problems the rebalancer reports (DOUBLED_BUCKETS, unreachable replicasets)",
                p -> p.plan().problems().size());
    }

    private static void gauge(MeterRegistry r, MoverService mover, String name, String help, ToDoubleFunction<RebalancerProgress> value) {
        Gauge.builder(name, mover, of(value)).description(help).register(r);
    }

    /** The figure while this node runs the rebalancer, else 0. */
    private static ToDoubleFunction<MoverService> of(ToDoubleFunction<RebalancerProgress> value) {
        return m -> m.running().map(value::applyAsDouble).orElse(0.0);
    }

    /** Milliseconds as seconds; a negative "not measured" mark stays -1. */
    private static double seconds(double millis) {
        return millis < 0 ? -1 : millis / 1000.0;
    }
}
