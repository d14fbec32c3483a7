package io.cairn.server.console;

import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The topology part of the console's state: each replicaset with its rebalancer state, weight,
 * buckets and members (role, up or down), from the topology the router uses and the members'
 * {@code /info} (null: no answer, shown as down).
 */
final class ConsoleTopology {
    private ConsoleTopology() {}

    static List<Map<String, Object>> replicasets(Topology topology, Map<String, Map<String, Object>> infos,
                                                 Map<String, Object> rebalancer, Map<String, Integer> routedBuckets) {
        Map<?, ?> phases = rebalancer.get("replicasets") instanceof Map<?, ?> p ? p : Map.of();
        List<Map<String, Object>> out = new ArrayList<>();
        for (ReplicasetSpec rs : topology.replicasets()) {
            Map<String, Object> set = new LinkedHashMap<>();
            set.put("id", rs.id());
            set.put("weight", rs.weight());
            Map<?, ?> phase = phases.get(rs.id()) instanceof Map<?, ?> p ? p : Map.of();
            set.put("state", phase.get("state") == null ? "UNKNOWN" : phase.get("state"));
            set.put("bucketsLeft", phase.get("bucketsLeft") == null ? 0 : phase.get("bucketsLeft"));
            set.put("buckets", routedBuckets.getOrDefault(rs.id(), 0));
            String leader = null;
            Object keys = null;
            List<Map<String, Object>> members = new ArrayList<>();
            for (NodeAddress n : rs.nodes()) {
                Map<String, Object> i = infos.get(n.id());
                members.add(member(n, i));
                if (i != null && "LEADER".equals(i.get("raftRole"))) {
                    leader = n.id();
                    keys = i.get("keys");
                }
            }
            set.put("leader", leader);
            set.put("keys", keys);
            set.put("members", members);
            out.add(set);
        }
        return out;
    }

    private static Map<String, Object> member(NodeAddress n, Map<String, Object> info) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", n.id());
        m.put("address", n.host() + ":" + n.adminPort());
        m.put("up", info != null);
        m.put("role", info == null ? "DOWN" : String.valueOf(info.get("raftRole")));
        if (info != null) {
            m.put("rejoining", Boolean.TRUE.equals(info.get("rejoining")));
            m.put("appliedIndex", info.get("appliedIndex"));
            m.put("term", info.get("term"));
            m.put("keys", info.get("keys"));
        }
        return m;
    }

    /** Coordinators or routers: id, up, and for coordinators whether it leads. */
    static List<Map<String, Object>> processes(List<String> ids, Map<String, Map<String, Object>> infos, String self) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String id : ids) {
            Map<String, Object> i = infos.get(id);
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("id", id);
            p.put("up", id.equals(self) || i != null);
            p.put("self", id.equals(self));
            if (i != null && i.get("leader") instanceof Boolean leads) p.put("leader", leads);
            out.add(p);
        }
        return out;
    }
}
