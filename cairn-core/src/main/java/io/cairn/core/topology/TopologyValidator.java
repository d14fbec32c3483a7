package io.cairn.core.topology;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks a topology on its own (ids, sizes, ports, weights) and a change from one epoch to
 * the next (the guardrails of SYSTEM.md, 002). Returns every problem at once so an operator
 * fixes a config file in one pass.
 */
public final class TopologyValidator {
    public static final int MAX_BUCKET_COUNT = 1 << 24;

    private TopologyValidator() {}

    public static List<String> problems(Topology t) {
        List<String> problems = new ArrayList<>();
        if (t.bucketCount() < 1 || t.bucketCount() > MAX_BUCKET_COUNT) {
            problems.add("bucketCount must be between 1 and " + MAX_BUCKET_COUNT + ", was " + t.bucketCount());
        }
        if (t.coordinators().isEmpty()) problems.add("at least one coordinator node is required");
        if (t.replicasets().isEmpty()) problems.add("at least one replicaset is required");
        Set<String> ids = new HashSet<>();
        Set<String> endpoints = new HashSet<>();
        long totalWeight = 0;
        for (NodeAddress c : t.coordinators()) checkNode("coordinator", c, ids, endpoints, problems);
        for (ReplicasetSpec rs : t.replicasets()) {
            if (!validId(rs.id())) problems.add("replicaset id '" + rs.id() + "' must match [A-Za-z0-9_-]{1,64}");
            if (!ids.add("rs:" + rs.id())) problems.add("duplicate replicaset id '" + rs.id() + "'");
            int size = rs.nodes().size();
            if (size < 1 || size > 5) {
                // 2 and 4 while a member is replaced (cairn node add, then remove); 3 or 5 to outlive failures
                problems.add("replicaset '" + rs.id() + "' has " + size + " nodes; a replicaset has 1 to 5 (3 or 5 to outlive a failure)");
            }
            if (rs.weight() < 0 || rs.weight() > 1_000_000) {
                problems.add("replicaset '" + rs.id() + "' weight must be between 0 and 1000000, was " + rs.weight());
            }
            totalWeight += Math.max(0, rs.weight());
            for (NodeAddress n : rs.nodes()) checkNode("storage", n, ids, endpoints, problems);
        }
        if (!t.replicasets().isEmpty() && totalWeight == 0) problems.add("at least one replicaset needs a positive weight");
        for (RouterSpec r : t.routers()) {
            if (!validId(r.id())) problems.add("router id '" + r.id() + "' must match [A-Za-z0-9_-]{1,64}");
            if (!ids.add(r.id())) problems.add("duplicate node id '" + r.id() + "'");
            checkPort("router " + r.id() + " respPort", r.host(), r.respPort(), endpoints, problems);
            checkPort("router " + r.id() + " adminPort", r.host(), r.adminPort(), endpoints, problems);
        }
        return problems;
    }

    /** Throws {@link CairnException} (INVALID_CONFIG) listing every problem. */
    public static void requireValid(Topology t) {
        List<String> problems = problems(t);
        if (!problems.isEmpty()) {
            throw new CairnException(ErrorCode.INVALID_CONFIG, "invalid topology: " + String.join("; ", problems));
        }
    }

    /** Guardrails for publishing {@code next} after {@code current}; empty when allowed. */
    public static List<String> changeProblems(Topology current, Topology next) {
        List<String> problems = new ArrayList<>(problems(next));
        if (current.bucketCount() != next.bucketCount()) {
            problems.add("bucketCount is fixed for the life of a cluster (" + current.bucketCount()
                    + "), refusing " + next.bucketCount());
        }
        for (ReplicasetSpec old : current.replicasets()) {
            // Buckets leave a replicaset only by moves, and the rebalancer drains only weight 0:
            // removing one that still had weight would orphan its buckets (the caller also checks it is empty).
            if (next.replicaset(old.id()).isEmpty() && old.weight() > 0) {
                problems.add("replicaset '" + old.id() + "' has weight " + old.weight()
                        + "; drain it first (set its weight to 0 and wait until it holds no buckets), then remove it");
            }
            next.replicaset(old.id()).ifPresent(now -> {
                Set<String> kept = new HashSet<>();
                now.nodes().forEach(n -> kept.add(n.id()));
                long stay = old.nodes().stream().filter(n -> kept.contains(n.id())).count();
                if (stay * 2 <= old.nodes().size()) {
                    problems.add("replicaset '" + old.id() + "' would keep " + stay + " of its "
                            + old.nodes().size() + " members; a change must keep a majority");
                }
            });
        }
        return problems;
    }

    private static void checkNode(String kind, NodeAddress n, Set<String> ids, Set<String> endpoints, List<String> problems) {
        if (!validId(n.id())) problems.add(kind + " node id '" + n.id() + "' must match [A-Za-z0-9_-]{1,64}");
        if (!ids.add(n.id())) problems.add("duplicate node id '" + n.id() + "'");
        if (n.host() == null || n.host().isBlank()) problems.add(kind + " node '" + n.id() + "' has no host");
        checkPort(kind + " node " + n.id() + " raftPort", n.host(), n.raftPort(), endpoints, problems);
        checkPort(kind + " node " + n.id() + " adminPort", n.host(), n.adminPort(), endpoints, problems);
        // 0: not named (a topology from before the port existed; coordinators have none)
        if (n.dataPort() != 0) checkPort(kind + " node " + n.id() + " dataPort", n.host(), n.dataPort(), endpoints, problems);
    }

    private static void checkPort(String what, String host, int port, Set<String> endpoints, List<String> problems) {
        if (port < 1 || port > 65535) {
            problems.add(what + " must be between 1 and 65535, was " + port);
        } else if (!endpoints.add(host + ":" + port)) {
            problems.add(what + " " + host + ":" + port + " is used twice");
        }
    }

    private static boolean validId(String id) {
        return id != null && id.matches("[A-Za-z0-9_-]{1,64}");
    }
}
