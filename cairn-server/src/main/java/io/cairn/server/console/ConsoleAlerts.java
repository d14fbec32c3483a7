package io.cairn.server.console;

import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every alert the cluster raises, from where it is raised (this router, the coordinator leader's
 * rebalancer, each storage node's {@code /info}), plus what the console itself sees: a process
 * that does not answer, a replicaset with no leader. Each alert is {code, source, text}; the page
 * explains each code (meaning and what to do, as docs/operations.md's alert table).
 */
final class ConsoleAlerts {
    private ConsoleAlerts() {}

    static List<Map<String, String>> gather(Topology topology, Map<String, Map<String, Object>> infos, Map<String, Object> rebalancer,
                                            String routerId, List<String> routerAlerts) {
        List<Map<String, String>> out = new ArrayList<>();
        routerAlerts.forEach(a -> out.add(alert("router " + routerId, a)));
        if (rebalancer.get("problems") instanceof List<?> problems) problems.forEach(p -> out.add(alert("coordinator leader", String.valueOf(p))));
        boolean anyCoordinator = false;
        for (NodeAddress c : topology.coordinators()) {
            if (infos.get(c.id()) == null) out.add(alert("console", "PROCESS_DOWN: coordinator " + c.id() + " does not answer on " + c.host() + ":" + c.adminPort()));
            else anyCoordinator = true;
        }
        if (anyCoordinator && !Boolean.TRUE.equals(rebalancer.get("running"))) {
            out.add(alert("console", "NO_REBALANCER: no coordinator answers as the leader running the rebalancer"));
        }
        for (ReplicasetSpec rs : topology.replicasets()) {
            boolean leader = false;
            for (NodeAddress n : rs.nodes()) {
                Map<String, Object> i = infos.get(n.id());
                if (i == null) {
                    out.add(alert("console", "PROCESS_DOWN: storage node " + n.id() + " of " + rs.id() + " does not answer on " + n.host() + ":" + n.adminPort()));
                    continue;
                }
                leader |= "LEADER".equals(i.get("raftRole"));
                if (i.get("alerts") instanceof List<?> l) l.forEach(a -> out.add(alert("storage " + n.id(), String.valueOf(a))));
            }
            if (!leader) out.add(alert("console", "NO_LEADER: replicaset " + rs.id() + " has no member that answers as its leader"));
        }
        return out;
    }

    /** The code is the text's leading upper-case word before a colon ("STALLED_MOVE: ..."), else OTHER. */
    static Map<String, String> alert(String source, String text) {
        int colon = text.indexOf(':');
        String head = colon > 0 ? text.substring(0, colon) : "";
        String code = head.matches("[A-Z][A-Z_]+") ? head : "OTHER";
        Map<String, String> a = new LinkedHashMap<>();
        a.put("code", code);
        a.put("source", source);
        a.put("text", text);
        return a;
    }
}
