package io.cairn.core.move;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of the rebalancer's problems appeared or cleared since the last look, so an operator's
 * log gets one line per change rather than one per round. A problem's kind is its text before
 * the first colon (STALLED_MOVE, DOUBLED_BUCKETS, ...), or the whole text; its details (seconds
 * waited, counts) change from round to round without making it new.
 */
public final class ProblemChanges {
    private Map<String, String> current = Map.of();

    public record Change(String kind, String text, boolean appeared) {}

    public List<Change> update(List<String> problems) {
        Map<String, String> next = new LinkedHashMap<>();
        for (String p : problems) next.putIfAbsent(kind(p), p);
        List<Change> changes = new ArrayList<>();
        next.forEach((kind, text) -> {
            if (!current.containsKey(kind)) changes.add(new Change(kind, text, true));
        });
        current.forEach((kind, text) -> {
            if (!next.containsKey(kind)) changes.add(new Change(kind, text, false));
        });
        current = next;
        return changes;
    }

    static String kind(String problem) {
        int colon = problem.indexOf(':');
        return colon < 0 ? problem : problem.substring(0, colon);
    }
}
