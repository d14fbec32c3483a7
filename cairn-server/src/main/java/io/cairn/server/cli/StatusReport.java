package io.cairn.server.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.RouterSpec;
import io.cairn.server.admin.AdminAccess;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.config.ClusterConfig;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code cairn status}: asks every process of the config for its {@code /info} (in parallel,
 * bounded by a short timeout) and assembles replicasets, members, leaders, bucket counts and
 * the epoch. A process that does not answer is shown as DOWN.
 */
final class StatusReport {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private StatusReport() {}

    static Map<String, Object> collect(ClusterConfig config) {
        Map<String, CompletableFuture<Map<String, Object>>> calls = new LinkedHashMap<>();
        for (ReplicasetSpec rs : config.topology().replicasets()) {
            for (NodeAddress n : rs.nodes()) calls.put(n.id(), info(n.host(), n.adminPort()));
        }
        for (RouterSpec r : config.topology().routers()) calls.put(r.id(), info(r.host(), r.adminPort()));
        Map<String, Object> status = new LinkedHashMap<>();
        long epoch = 0;
        List<Object> sets = new ArrayList<>();
        for (ReplicasetSpec rs : config.topology().replicasets()) {
            Map<String, Object> set = new LinkedHashMap<>();
            set.put("id", rs.id());
            set.put("weight", rs.weight());
            String leader = null;
            long buckets = 0;
            long keys = 0;
            Object archived = null;
            List<Object> members = new ArrayList<>();
            for (NodeAddress n : rs.nodes()) {
                Map<String, Object> i = calls.get(n.id()).join();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", n.id());
                m.put("address", n.raftAddress());
                m.put("raftRole", i == null ? "DOWN" : i.get("raftRole"));
                if (i != null && Boolean.TRUE.equals(i.get("rejoining"))) m.put("rejoining", true);
                // a node back on a new disk is a new Raft member (MemberIds): a learner until caught up and promoted
                if (i != null && i.get("raftMember") instanceof String member && !member.equals(n.id())) m.put("raftMember", member);
                if (i != null && i.get("alerts") instanceof List<?> alerts && !alerts.isEmpty()) m.put("alerts", alerts);
                if (i != null) {
                    m.put("term", i.get("term"));
                    m.put("appliedIndex", i.get("appliedIndex"));
                    epoch = Math.max(epoch, ((Number) i.get("epoch")).longValue());
                    if ("LEADER".equals(i.get("raftRole"))) {
                        leader = n.id();
                        buckets = ((Number) i.get("bucketsOwned")).longValue();
                        keys = ((Number) i.get("keys")).longValue();
                        if (i.get("archive") instanceof Map<?, ?> a) archived = a.get("archivedBuckets");
                    }
                }
                members.add(m);
            }
            set.put("leader", leader);
            set.put("buckets", leader == null ? null : buckets);
            set.put("keys", leader == null ? null : keys);
            set.put("archivedBuckets", archived); // of the buckets above, those whose data is in the archive tier (keys: local only)
            set.put("members", members);
            sets.add(set);
        }
        List<Object> routers = new ArrayList<>();
        for (RouterSpec r : config.topology().routers()) {
            Map<String, Object> i = calls.get(r.id()).join();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", r.id());
            m.put("resp", r.host() + ":" + r.respPort());
            m.put("admin", AdminHttps.base(r.host(), r.adminPort()));
            m.put("up", i != null);
            if (i != null) {
                m.put("unknownBuckets", i.get("unknownBuckets"));
                m.put("alerts", i.get("alerts"));
                epoch = Math.max(epoch, ((Number) i.get("epoch")).longValue());
            }
            routers.add(m);
        }
        Map<String, Object> rebalancer = null;
        for (NodeAddress c : config.topology().coordinators()) {
            Map<String, Object> i = info(c.host(), c.adminPort()).join();
            if (i != null && Boolean.TRUE.equals(i.get("leader")) && i.get("rebalancer") instanceof Map<?, ?> r) {
                @SuppressWarnings("unchecked") Map<String, Object> progress = (Map<String, Object>) r;
                rebalancer = progress;
            }
        }
        status.put("epoch", epoch);
        status.put("bucketCount", config.topology().bucketCount());
        status.put("rebalancer", rebalancer);
        status.put("replicasets", sets);
        status.put("routers", routers);
        List<StatusHealth.Finding> findings = StatusHealth.findings(status);
        StatusHealth.Level level = StatusHealth.level(findings);
        status.put("health", level.name());
        status.put("exitCode", level.exitCode);
        status.put("attention", findings.stream().map(f -> Map.of("level", f.level().name(), "text", f.text())).toList());
        return status;
    }

    @SuppressWarnings("unchecked")
    static String render(Map<String, Object> status) {
        StringBuilder out = new StringBuilder();
        if (status.get("attention") instanceof List<?> attention) out.append(attentionLines(status, attention));
        out.append(String.format("epoch %s, %s buckets%n", status.get("epoch"), status.get("bucketCount")));
        for (Object o : (List<Object>) status.get("replicasets")) {
            Map<String, Object> rs = (Map<String, Object>) o;
            out.append(String.format("%nreplicaset %-8s weight %-3s buckets %-6s keys %-9s leader %-8s %s%s%n", rs.get("id"), rs.get("weight"),
                    orDash(rs.get("buckets")), orDash(rs.get("keys")), rs.get("leader") == null ? "NONE" : rs.get("leader"),
                    phaseOf(status, (String) rs.get("id")),
                    rs.get("archivedBuckets") instanceof Number a && a.longValue() > 0 ? "  (" + a + " archived)" : ""));
            for (Object mo : (List<Object>) rs.get("members")) {
                Map<String, Object> m = (Map<String, Object>) mo;
                out.append(String.format("  %-10s %-21s %-10s term %-4s applied %s%s%n", m.get("id"), m.get("address"), m.get("raftRole"),
                        orDash(m.get("term")), orDash(m.get("appliedIndex")),
                        !Boolean.TRUE.equals(m.get("rejoining")) ? m.get("raftMember") != null ? "  (member " + m.get("raftMember") + ")" : ""
                                : "LEARNER".equals(m.get("raftRole")) ? "  REPLACED_DISK: new member " + m.get("raftMember")
                                        + " catching up as a learner, promoted to voter once caught up"
                                : "  REPLACED_DISK: rejoining, neither votes nor serves until caught up"));
            }
        }
        out.append('\n');
        Map<String, Object> rb = (Map<String, Object>) status.get("rebalancer");
        if (rb == null || !Boolean.TRUE.equals(rb.get("running"))) {
            out.append("rebalancer: not running (no coordinator leader answers)\n");
        } else {
            out.append(String.format("rebalancer: disbalance %s%%, %s buckets to move, %s in flight, %s moved (%s keys), %s buckets/s, ETA %s s%n",
                    rb.get("disbalancePercent"), rb.get("bucketsToMove"), rb.get("inFlight"), rb.get("moved"), rb.get("keysMoved"),
                    rb.get("bucketsPerSecond"), rb.get("etaSeconds")));
            if (rb.get("writesHeldMs") instanceof Map<?, ?> held && held.get("moves") instanceof Number n && n.intValue() > 0) {
                out.append(String.format("  writes held per moved bucket (last %s moves): p50 %s ms, p99 %s ms, max %s ms%n",
                        n, held.get("p50"), held.get("p99"), held.get("max")));
            }
            if (rb.get("copyBytesPerSecond") instanceof Number rate && rate.longValue() > 0 && rb.get("inFlight") instanceof Number f && f.intValue() > 0) {
                out.append(String.format("  copy ahead paced at %,d bytes/s (move steps: median %s ms, base %s ms)%n", rate.longValue(),
                        rb.get("stepMedianMs"), rb.get("stepBaseMs")));
            }
            for (Object problem : (List<Object>) rb.get("problems")) out.append("  ALERT ").append(problem).append('\n');
        }
        for (Object o : (List<Object>) status.get("routers")) {
            Map<String, Object> r = (Map<String, Object>) o;
            out.append(String.format("router %-6s resp %-21s admin %-28s %s%n", r.get("id"), r.get("resp"), r.get("admin"),
                    Boolean.TRUE.equals(r.get("up")) ? "up, unknown buckets " + r.get("unknownBuckets") + ", alerts " + r.get("alerts") : "DOWN"));
        }
        return out.toString();
    }

    /** The replicaset's state as the rebalancer sees it: "READY", "DRAINING (12 buckets left)", or "" before its first round. */
    @SuppressWarnings("unchecked")
    static String phaseOf(Map<String, Object> status, String replicaset) {
        if (!(status.get("rebalancer") instanceof Map<?, ?> rb) || !(rb.get("replicasets") instanceof Map<?, ?> sets)
                || !(sets.get(replicaset) instanceof Map<?, ?> rs)) return "";
        Object left = rs.get("bucketsLeft");
        return rs.get("state") + (left instanceof Number n && n.intValue() > 0 ? " (" + n + " buckets left)" : "");
    }

    /** The health line and the findings, worst first, as collect() stored them. */
    private static String attentionLines(Map<String, Object> status, List<?> attention) {
        if (attention.isEmpty()) return "health: HEALTHY (exit 0): every member and router answers, no alerts\n\n";
        StringBuilder out = new StringBuilder(String.format("health: %s (exit %s): %d %s attention%n", status.get("health"), status.get("exitCode"),
                attention.size(), attention.size() == 1 ? "thing needs" : "things need"));
        for (Object a : attention) out.append("  ! ").append(a instanceof Map<?, ?> m ? m.get("text") : a).append('\n');
        return out.append('\n').toString();
    }

    private static Object orDash(Object o) {
        return o == null ? "-" : o;
    }

    private static CompletableFuture<Map<String, Object>> info(String host, int port) {
        HttpRequest req = AdminAccess.authorize(HttpRequest.newBuilder(URI.create(AdminHttps.base(host, port) + "/info"))).timeout(TIMEOUT).GET().build();
        return AdminHttps.client(TIMEOUT).sendAsync(req, HttpResponse.BodyHandlers.ofString()).<Map<String, Object>>thenApply(resp -> {
            if (resp.statusCode() != 200) return null;
            try {
                return AdminServer.JSON.readValue(resp.body(), new TypeReference<Map<String, Object>>() {});
            } catch (Exception e) {
                return null;
            }
        }).exceptionally(e -> null);
    }
}
