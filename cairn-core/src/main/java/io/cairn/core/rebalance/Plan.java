package io.cairn.core.rebalance;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One planning round.
 *
 * @param targets           ideal bucket count per replicaset, in id order; sums to bucketCount
 * @param disbalancePercent worst relative gap between expected count and target (infinite when a
 *                          replicaset with target 0 still holds buckets)
 * @param bucketsToMove     buckets that still have to leave their replicaset to reach the targets,
 *                          not counting moves already in flight; may exceed what {@code routes} move
 * @param routes            this round's bounded moves; empty within the threshold
 */
public record Plan(Map<String, Integer> targets, double disbalancePercent, int bucketsToMove, List<Route> routes) {
    public Plan {
        targets = Collections.unmodifiableMap(new LinkedHashMap<>(targets));
        routes = List.copyOf(routes);
        if (bucketsToMove < 0) throw new IllegalArgumentException("bucketsToMove must not be negative: " + bucketsToMove);
    }

    /** Buckets this round's routes move. */
    public int plannedMoves() {
        return routes.stream().mapToInt(Route::count).sum();
    }
}
