package io.cairn.core.rebalance;

import io.cairn.core.testing.SeededRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random clusters, rebalanced round after round: each round starts the planned moves and lets a
 * random part of the moves in flight finish, so plans are made while buckets are SENDING and
 * RECEIVING. A failure names its seed and cluster; replay it with -Dcairn.seed=N ({@link SeededRandom}).
 */
@ExtendWith(SeededRandom.class)
class RebalanceConvergenceTest {
    private static final int CLUSTERS = 1_000;
    private static final double[] THRESHOLDS = {0, 0, 0.5, 1, 5, 25};

    /** Mutable cluster state; a move in flight is one batch from -> to. */
    private static final class Cluster {
        final int bucketCount;
        final String[] ids;
        final double[] weights;
        final int[] active;
        final int[] pinned;
        final List<int[]> inFlight = new ArrayList<>();  // {from, to, count}

        Cluster(int bucketCount, double[] weights, int[] active, int[] pinned) {
            this.bucketCount = bucketCount;
            this.weights = weights;
            this.active = active;
            this.pinned = pinned;
            this.ids = new String[weights.length];
            for (int i = 0; i < ids.length; i++) ids[i] = "rs" + i;
        }

        List<ReplicasetLoad> loads() {
            int[] sending = new int[ids.length];
            int[] receiving = new int[ids.length];
            for (int[] move : inFlight) {
                sending[move[0]] += move[2];
                receiving[move[1]] += move[2];
            }
            List<ReplicasetLoad> loads = new ArrayList<>();
            for (int i = 0; i < ids.length; i++) {
                loads.add(new ReplicasetLoad(ids[i], weights[i], active[i], pinned[i], sending[i], receiving[i]));
            }
            return loads;
        }

        int index(String id) {
            return Integer.parseInt(id.substring(2));
        }

        void start(Route route) {
            active[index(route.from())] -= route.count();
            inFlight.add(new int[] {index(route.from()), index(route.to()), route.count()});
        }

        /** Finishes a random part of every move in flight, and at least one bucket when any is in flight. */
        void finishSome(Random random) {
            int finished = 0;
            for (int[] move : inFlight) {
                int n = random.nextInt(move[2] + 1);
                if (finished == 0 && n == 0 && move == inFlight.get(inFlight.size() - 1)) n = move[2];
                active[move[1]] += n;
                move[2] -= n;
                finished += n;
            }
            inFlight.removeIf(move -> move[2] == 0);
        }
    }

    @Test
    void randomClustersConvergeToTheirTargetsWithoutMovingABucketTwice(Random random) {
        for (int i = 0; i < CLUSTERS; i++) {
            String where = "cluster " + i;
            Cluster cluster = randomCluster(random);
            PlanLimits limits = new PlanLimits(THRESHOLDS[random.nextInt(THRESHOLDS.length)],
                    1 + random.nextInt(15), 1 + random.nextInt(100), 1 + random.nextInt(500));
            try {
                rebalance(cluster, limits, random, where);
            } catch (RuntimeException e) {
                throw new AssertionError(where + ": " + e, e);
            }
        }
    }

    private static Cluster randomCluster(Random random) {
        int n = 1 + random.nextInt(8);
        int bucketCount = random.nextBoolean() ? random.nextInt(20) : random.nextInt(3001);
        double[] weights = new double[n];
        int[] pinned = new int[n];
        int[] active = new int[n];
        for (int i = 0; i < n; i++) {
            int kind = random.nextInt(6);
            weights[i] = kind == 0 ? 0 : kind <= 3 ? kind : kind == 4 ? random.nextDouble() * 10 : 1000;
        }
        if (Arrays.stream(weights).allMatch(w -> w == 0)) weights[random.nextInt(n)] = 1;
        int free = bucketCount;
        for (int i = 0; i < n; i++) {
            if (random.nextInt(4) == 0) {
                pinned[i] = random.nextInt(free / 2 + 1);
                free -= pinned[i];
            }
        }
        switch (random.nextInt(3)) {
            case 0 -> active[random.nextInt(n)] = free;  // e.g. replicasets just added
            case 1 -> {
                for (int b = 0; b < free; b++) active[random.nextInt(n)]++;
            }
            default -> {  // already balanced
                Cluster probe = new Cluster(bucketCount, weights, new int[n], pinned);
                Map<String, Integer> targets = RebalancePlanner.targets(probe.loads(), bucketCount);
                for (int i = 0; i < n; i++) active[i] = targets.get(probe.ids[i]) - pinned[i];
            }
        }
        return new Cluster(bucketCount, weights, active, pinned);
    }

    private static void rebalance(Cluster cluster, PlanLimits limits, Random random, String where) {
        List<ReplicasetLoad> initial = cluster.loads();
        Map<String, Integer> targets = RebalancePlanner.targets(initial, cluster.bucketCount);
        assertThat(targets.values().stream().mapToInt(Integer::intValue).sum()).as(where).isEqualTo(cluster.bucketCount);
        for (ReplicasetLoad l : initial) {
            assertThat(targets.get(l.replicasetId())).as(where + " " + l).isGreaterThanOrEqualTo(l.pinnedCount());
            if (l.weight() == 0) assertThat(targets.get(l.replicasetId())).as(where + " " + l).isEqualTo(l.pinnedCount());
        }
        int toMove = RebalancePlanner.plan(initial, cluster.bucketCount, limits).bucketsToMove();
        int maxRounds = toMove + 1;  // every round but the last finishes at least one move
        int moved = 0;
        for (int round = 0; ; round++) {
            int rounds = round;
            check(round <= maxRounds, () -> where + ": still not converged after " + rounds + " rounds");
            List<ReplicasetLoad> loads = cluster.loads();
            Plan plan = RebalancePlanner.plan(loads, cluster.bucketCount, limits);
            check(plan.targets().equals(targets), () -> where + ": targets changed " + plan);
            checkRoutes(plan, loads, limits, where);
            if (round == 0) {
                List<ReplicasetLoad> shuffled = new ArrayList<>(loads);
                Collections.shuffle(shuffled, random);
                assertThat(RebalancePlanner.plan(shuffled, cluster.bucketCount, limits)).as(where + ": input order").isEqualTo(plan);
            }
            boolean converged = RebalancePlanner.converged(plan, limits);
            if (converged && cluster.inFlight.isEmpty()) break;
            check(converged || !cluster.inFlight.isEmpty() || !plan.routes().isEmpty(), () -> where + ": no progress " + plan);
            plan.routes().forEach(cluster::start);
            moved += plan.plannedMoves();
            cluster.finishSome(random);
        }
        Plan last = RebalancePlanner.plan(cluster.loads(), cluster.bucketCount, limits);
        assertThat(last.disbalancePercent()).as(where).isLessThanOrEqualTo(limits.thresholdPercent());
        assertThat(moved).as(where + ": buckets moved").isLessThanOrEqualTo(toMove);
        if (limits.thresholdPercent() == 0) {
            assertThat(moved).as(where + ": buckets moved").isEqualTo(toMove);
            for (ReplicasetLoad l : cluster.loads()) {
                assertThat(l.activeCount() + l.pinnedCount()).as(where + " " + l).isEqualTo(targets.get(l.replicasetId()));
            }
        }
    }

    private static void checkRoutes(Plan plan, List<ReplicasetLoad> loads, PlanLimits limits, String where) {
        check(!RebalancePlanner.converged(plan, limits) || plan.routes().isEmpty(), () -> where + ": routes within threshold " + plan);
        check(plan.plannedMoves() <= limits.maxMovesPerPlan(), () -> where + ": more than maxMovesPerPlan " + plan);
        Map<String, Integer> sent = new HashMap<>();
        Map<String, Integer> received = new HashMap<>();
        plan.routes().forEach(r -> {
            sent.merge(r.from(), r.count(), Integer::sum);
            received.merge(r.to(), r.count(), Integer::sum);
        });
        for (ReplicasetLoad l : loads) {
            int gap = l.expectedCount() - plan.targets().get(l.replicasetId());
            int out = sent.getOrDefault(l.replicasetId(), 0);
            int in = received.getOrDefault(l.replicasetId(), 0);
            Supplier<String> what = () -> where + ": " + l + " sends " + out + " receives " + in + " in " + plan;
            check(out == 0 || in == 0, what);
            check(out <= Math.max(0, gap) && out <= l.activeCount()
                    && out <= Math.max(0, limits.maxSendingPerReplicaset() - l.sendingCount()), what);
            check(in <= Math.max(0, -gap) && in <= Math.max(0, limits.maxReceivingPerReplicaset() - l.receivingCount()), what);
        }
    }

    /** Plain check for the per-round hot path: the message is built only on failure. */
    private static void check(boolean condition, Supplier<String> message) {
        if (!condition) throw new AssertionError(message.get());
    }
}
