package io.cairn.server.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code cairn status} puts first: the findings that need an operator, worst first, and the
 * exit code a script reads (docs/operations.md, "cairn status"). It reads only what
 * {@link StatusReport#collect} gathered, so it asks the cluster nothing itself.
 *
 * <p>Levels, worst last: HEALTHY (exit 0); DEGRADED (3: every bucket is served, but something needs
 * attention: a member or router down, an alert, a stalled move, no coordinator leader); UNAVAILABLE
 * (4: some buckets cannot be served: a replicaset without a leader, unknown buckets, no router up);
 * UNREACHABLE (5: no process of the config answers). Exit codes 1 and 2 stay picocli's and Cairn's
 * own (a failed command, a bad config file).
 */
final class StatusHealth {
    enum Level {
        HEALTHY(0), DEGRADED(3), UNAVAILABLE(4), UNREACHABLE(5);

        final int exitCode;

        Level(int exitCode) {
            this.exitCode = exitCode;
        }
    }

    record Finding(Level level, String text) {}

    private StatusHealth() {}

    /** The findings, worst first (in each level: down processes, then alerts, in the order found). */
    @SuppressWarnings("unchecked")
    static List<Finding> findings(Map<String, Object> status) {
        List<Finding> out = new ArrayList<>();
        List<Map<String, Object>> sets = (List<Map<String, Object>>) status.get("replicasets");
        List<Map<String, Object>> routers = (List<Map<String, Object>>) status.get("routers");
        boolean anyAnswer = status.get("rebalancer") != null || routers.stream().anyMatch(r -> Boolean.TRUE.equals(r.get("up")));
        Map<String, List<String>> storageAlerts = new LinkedHashMap<>();
        for (Map<String, Object> rs : sets) {
            List<Map<String, Object>> members = (List<Map<String, Object>>) rs.get("members");
            long up = members.stream().filter(m -> !"DOWN".equals(m.get("raftRole"))).count();
            anyAnswer |= up > 0;
            if (rs.get("leader") == null) {
                out.add(new Finding(Level.UNAVAILABLE, "replicaset " + rs.get("id") + " has no leader (" + up + " of " + members.size()
                        + " members answer): its buckets are not served"));
            }
            for (Map<String, Object> m : members) {
                if ("DOWN".equals(m.get("raftRole"))) out.add(new Finding(Level.DEGRADED, "storage node " + m.get("id") + " of replicaset " + rs.get("id") + " is DOWN"));
                else if ("STARTING".equals(m.get("raftRole"))) out.add(new Finding(Level.DEGRADED, "storage node " + m.get("id") + " is starting"));
                if (m.get("alerts") instanceof List<?> alerts) {
                    for (Object a : alerts) storageAlerts.computeIfAbsent(a.toString(), k -> new ArrayList<>()).add(m.get("id").toString());
                }
            }
        }
        if (!anyAnswer) return List.of(new Finding(Level.UNREACHABLE, "no process of the cluster answers (is it running? are --config/--dir right?)"));
        routerFindings(routers, out);
        if (!(status.get("rebalancer") instanceof Map<?, ?> rb) || !Boolean.TRUE.equals(rb.get("running"))) {
            out.add(new Finding(Level.DEGRADED, "no coordinator leader answers: topology changes and bucket moves wait"));
        } else if (rb.get("problems") instanceof List<?> problems) {
            for (Object p : problems) out.add(new Finding(Level.DEGRADED, "ALERT coordinator: " + p));
        }
        // a replicaset's members report the same replicated condition: one line per alert text, naming who raised it
        storageAlerts.forEach((text, nodes) -> out.add(new Finding(Level.DEGRADED, "ALERT " + String.join(", ", nodes) + ": " + text)));
        out.sort(Comparator.comparing((Finding f) -> f.level()).reversed());
        return out;
    }

    @SuppressWarnings("unchecked")
    private static void routerFindings(List<Map<String, Object>> routers, List<Finding> out) {
        if (!routers.isEmpty() && routers.stream().noneMatch(r -> Boolean.TRUE.equals(r.get("up")))) {
            out.add(new Finding(Level.UNAVAILABLE, "no router answers: clients cannot reach the data"));
        }
        for (Map<String, Object> r : routers) {
            if (!Boolean.TRUE.equals(r.get("up"))) {
                out.add(new Finding(Level.DEGRADED, "router " + r.get("id") + " is DOWN"));
                continue;
            }
            if (r.get("unknownBuckets") instanceof Number n && n.longValue() > 0) {
                out.add(new Finding(Level.UNAVAILABLE, "router " + r.get("id") + " knows no owner of " + n + " buckets: requests for them fail"));
            }
            if (r.get("alerts") instanceof List<?> alerts) {
                for (Object a : alerts) {
                    if (!a.toString().startsWith("UNKNOWN_BUCKETS")) out.add(new Finding(Level.DEGRADED, "ALERT router " + r.get("id") + ": " + a));
                }
            }
        }
    }

    static Level level(List<Finding> findings) {
        return findings.stream().map(Finding::level).max(Comparator.naturalOrder()).orElse(Level.HEALTHY);
    }
}
