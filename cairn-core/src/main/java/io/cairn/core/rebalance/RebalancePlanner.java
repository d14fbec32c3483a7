package io.cairn.core.rebalance;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * How many buckets each replicaset should hold, and which bounded batch of moves brings the
 * cluster closer to that (SYSTEM.md "Online bucket moves and the rebalancer"; DOMAIN.md 1.6).
 * Pure and deterministic: same loads in any order, same plan.
 *
 * <p><b>Targets</b> follow vshard's etalon: bucketCount split by weight, rounded by largest
 * remainder (ties to the smaller id) so the targets always sum to bucketCount. PINNED buckets
 * count toward their replicaset's share but never move, so a replicaset pinned above its share
 * is frozen at its pinned count and the others split the rest, until nothing new freezes.
 * Freezing only shrinks the others' shares, so that takes at most one pass per replicaset.
 * Weight 0 drains a replicaset down to its pinned buckets.
 *
 * <p><b>Moves in flight</b> are counted where they are going: a replicaset is credited with
 * ACTIVE + PINNED + RECEIVING ({@link ReplicasetLoad#expectedCount()}); its SENDING buckets are
 * already on their way out. Disbalance and routes both use that count, so a round planned while
 * moves run never sends a donor's surplus twice. (Counting SENDING at the donor would: with send
 * capacity left, the surplus it is already sending gets planned again and later moved back.)
 * The price: a bucket that is SENDING but not yet RECEIVING at its destination (before the first
 * chunk lands) counts nowhere for a moment, so a round may under-send; the next one catches up.
 * Whether to plan at all when the counts don't add up to bucketCount (doubled buckets,
 * unfinished bootstrap) is the driver's call, as in vshard.
 *
 * <p><b>Routes</b> are bounded (vshard #282): a donor sends at most maxSending minus what it is
 * sending now, and never more than its ACTIVE buckets; a receiver takes at most maxReceiving minus
 * what it is receiving; a plan moves at most maxMovesPerPlan. Nothing moves while the disbalance
 * is within the threshold; above it, every surplus is routed (up to the limits), so repeated
 * rounds reach the exact targets without moving any bucket twice.
 */
public final class RebalancePlanner {
    private static final Comparator<ReplicasetLoad> BY_ID = Comparator.comparing(ReplicasetLoad::replicasetId);

    private RebalancePlanner() {}

    /** Ideal bucket count per replicaset, in id order. */
    public static Map<String, Integer> targets(List<ReplicasetLoad> loads, int bucketCount) {
        List<ReplicasetLoad> free = validated(loads, bucketCount);
        Map<String, Integer> targets = new TreeMap<>();
        int remaining = bucketCount;
        while (true) {  // bounded: every pass but the last freezes at least one replicaset
            Map<String, Integer> shares = shares(free, remaining);
            List<ReplicasetLoad> frozen = free.stream().filter(l -> l.pinnedCount() > shares.get(l.replicasetId())).toList();
            if (frozen.isEmpty()) {
                if (free.stream().mapToDouble(ReplicasetLoad::weight).sum() == 0 && remaining > 0) {
                    throw new IllegalArgumentException("no replicaset has a positive weight to hold the " + remaining
                            + " buckets that are not pinned");
                }
                targets.putAll(shares);
                return Collections.unmodifiableMap(new LinkedHashMap<>(targets));
            }
            for (ReplicasetLoad l : frozen) {
                targets.put(l.replicasetId(), l.pinnedCount());
                remaining -= l.pinnedCount();
            }
            free.removeAll(frozen);
        }
    }

    /**
     * max over replicasets of |target - expected| / target * 100, where expected is
     * {@link ReplicasetLoad#expectedCount()}; infinite when a target is 0 and buckets remain there.
     */
    public static double disbalancePercent(List<ReplicasetLoad> loads, Map<String, Integer> targets) {
        double worst = 0;
        for (ReplicasetLoad l : loads) {
            int gap = Math.abs(l.expectedCount() - targetOf(targets, l));
            if (gap == 0) continue;
            if (targetOf(targets, l) == 0) return Double.POSITIVE_INFINITY;
            worst = Math.max(worst, gap * 100.0 / targetOf(targets, l));
        }
        return worst;
    }

    public static Plan plan(List<ReplicasetLoad> loads, int bucketCount, PlanLimits limits) {
        Map<String, Integer> targets = targets(loads, bucketCount);
        List<ReplicasetLoad> sorted = loads.stream().sorted(BY_ID).toList();
        double disbalance = disbalancePercent(sorted, targets);
        int toMove = sorted.stream().mapToInt(l -> Math.max(0, l.expectedCount() - targetOf(targets, l))).sum();
        List<Route> routes = disbalance <= limits.thresholdPercent() ? List.of() : routes(sorted, targets, limits);
        return new Plan(targets, disbalance, toMove, routes);
    }

    /** Nothing left to plan: the expected counts are within the threshold of the targets. */
    public static boolean converged(Plan plan, PlanLimits limits) {
        return plan.disbalancePercent() <= limits.thresholdPercent();
    }

    /** A donor's surplus or a receiver's deficit, and how much of it this plan may still route. */
    private static final class Gap {
        final String id;
        final int size;
        int left;

        Gap(String id, int size, int left) {
            this.id = id;
            this.size = size;
            this.left = Math.max(0, left);
        }
    }

    /** Greedy: the largest surplus fills the largest deficits first; ties in id order. */
    private static List<Route> routes(List<ReplicasetLoad> sorted, Map<String, Integer> targets, PlanLimits limits) {
        List<Gap> donors = new ArrayList<>();
        List<Gap> receivers = new ArrayList<>();
        for (ReplicasetLoad l : sorted) {
            int gap = l.expectedCount() - targetOf(targets, l);
            if (gap > 0) {
                int canSend = Math.min(l.activeCount(), limits.maxSendingPerReplicaset() - l.sendingCount());
                donors.add(new Gap(l.replicasetId(), gap, Math.min(gap, canSend)));
            } else if (gap < 0) {
                receivers.add(new Gap(l.replicasetId(), -gap, Math.min(-gap, limits.maxReceivingPerReplicaset() - l.receivingCount())));
            }
        }
        Comparator<Gap> largestFirst = Comparator.comparingInt((Gap g) -> -g.size).thenComparing(g -> g.id);
        donors.sort(largestFirst);
        receivers.sort(largestFirst);
        List<Route> routes = new ArrayList<>();
        int budget = limits.maxMovesPerPlan();
        int d = 0;
        int r = 0;
        while (budget > 0 && d < donors.size() && r < receivers.size()) {
            Gap donor = donors.get(d);
            Gap receiver = receivers.get(r);
            int n = Math.min(budget, Math.min(donor.left, receiver.left));
            if (n > 0) {
                routes.add(new Route(donor.id, receiver.id, n));
                donor.left -= n;
                receiver.left -= n;
                budget -= n;
            }
            if (donor.left == 0) d++;
            if (receiver.left == 0) r++;
        }
        return routes;
    }

    /** Largest-remainder split of {@code buckets} over {@code free} by weight; all 0 when no weight. */
    private static Map<String, Integer> shares(List<ReplicasetLoad> free, int buckets) {
        double totalWeight = free.stream().mapToDouble(ReplicasetLoad::weight).sum();
        Map<String, Integer> shares = new LinkedHashMap<>();
        if (totalWeight == 0) {
            free.forEach(l -> shares.put(l.replicasetId(), 0));
            return shares;
        }
        int assigned = 0;
        List<ReplicasetLoad> byRemainder = new ArrayList<>();
        Map<String, Double> remainders = new LinkedHashMap<>();
        for (ReplicasetLoad l : free) {
            double exact = buckets * (l.weight() / totalWeight);
            int whole = (int) Math.floor(exact);
            shares.put(l.replicasetId(), whole);
            remainders.put(l.replicasetId(), exact - whole);
            assigned += whole;
            if (l.weight() > 0) byRemainder.add(l);
        }
        // Stable sort over id order: equal remainders go to the smaller id.
        byRemainder.sort(Comparator.comparingDouble((ReplicasetLoad l) -> -remainders.get(l.replicasetId())));
        for (int i = 0; assigned < buckets; i++, assigned++) {
            shares.merge(byRemainder.get(i % byRemainder.size()).replicasetId(), 1, Integer::sum);
        }
        return shares;
    }

    private static List<ReplicasetLoad> validated(List<ReplicasetLoad> loads, int bucketCount) {
        if (bucketCount < 0) throw new IllegalArgumentException("bucketCount must not be negative: " + bucketCount);
        Set<String> ids = new HashSet<>();
        long pinned = 0;
        double totalWeight = 0;
        for (ReplicasetLoad l : loads) {
            if (!ids.add(l.replicasetId())) throw new IllegalArgumentException("replicaset " + l.replicasetId() + " appears twice");
            pinned += l.pinnedCount();
            totalWeight += l.weight();
        }
        if (pinned > bucketCount) throw new IllegalArgumentException(pinned + " pinned buckets exceed bucketCount " + bucketCount);
        if (!Double.isFinite(totalWeight)) throw new IllegalArgumentException("the sum of weights overflows: " + totalWeight);
        List<ReplicasetLoad> sorted = new ArrayList<>(loads);
        sorted.sort(BY_ID);
        return sorted;
    }

    private static int targetOf(Map<String, Integer> targets, ReplicasetLoad l) {
        Integer target = targets.get(l.replicasetId());
        if (target == null) throw new IllegalArgumentException("no target for replicaset " + l.replicasetId());
        return target;
    }
}
