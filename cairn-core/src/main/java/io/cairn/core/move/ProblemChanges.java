package io.cairn.core.move;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which of the rebalancer's problems appeared or cleared, so an operator's log gets one line per
 * change rather than one per round. A problem's kind is its text before the first colon
 * (STALLED_MOVE, DOUBLED_BUCKETS, ...), or the whole text; its details (seconds waited, counts)
 * change from round to round without making it new. A problem counts as appeared once it has
 * lasted {@code minAgeMs}: a replicaset that does not answer for one round while it elects a
 * leader, or while the cluster shuts down, is not worth a line. Plain object: time passed in.
 */
public final class ProblemChanges {
    private final long minAgeMs;
    /** kind -> when it was first seen (in a row). */
    private final Map<String, Long> firstSeenMs = new LinkedHashMap<>();
    private final Set<String> reported = new HashSet<>();

    public record Change(String kind, String text, boolean appeared) {}

    public ProblemChanges(long minAgeMs) {
        this.minAgeMs = minAgeMs;
    }

    public List<Change> update(List<String> problems, long nowMs) {
        Map<String, String> now = new LinkedHashMap<>();
        for (String p : problems) now.putIfAbsent(kind(p), p);
        List<Change> changes = new ArrayList<>();
        firstSeenMs.keySet().removeIf(kind -> !now.containsKey(kind));
        for (var it = reported.iterator(); it.hasNext(); ) {
            String kind = it.next();
            if (!now.containsKey(kind)) {
                it.remove();
                changes.add(new Change(kind, kind, false));
            }
        }
        now.forEach((kind, text) -> {
            long since = firstSeenMs.computeIfAbsent(kind, k -> nowMs);
            if (nowMs - since >= minAgeMs && reported.add(kind)) changes.add(new Change(kind, text, true));
        });
        return changes;
    }

    static String kind(String problem) {
        int colon = problem.indexOf(':');
        return colon < 0 ? problem : problem.substring(0, colon);
    }
}
