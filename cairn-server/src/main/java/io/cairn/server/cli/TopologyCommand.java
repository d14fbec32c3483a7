package io.cairn.server.cli;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.coordinator.CoordinatorState;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code cairn topology}: show the current epoch and change the cluster's shape. Every change is
 * a new epoch proposed to the coordinator (which checks the guardrails); the rebalancer then
 * moves buckets, and {@code --wait} follows it to the end.
 */
@Command(name = "topology", mixinStandardHelpOptions = true, description = "Show or change replicasets and weights (each change is a new epoch).",
        subcommands = {TopologyCommand.Show.class, TopologyCommand.History.class, TopologyCommand.SetWeight.class,
                TopologyCommand.AddReplicaset.class, TopologyCommand.RemoveReplicaset.class})
final class TopologyCommand implements Runnable {
    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    static Topology current(CoordinatorClient coordinator) {
        CoordinatorState s = coordinator.get();
        if (s.topology() == null) throw new CairnException(ErrorCode.UNAVAILABLE, "the coordinator has no topology yet (is the cluster up?)");
        return s.topology();
    }

    static Topology propose(CoordinatorClient coordinator, Topology current, List<ReplicasetSpec> sets, String reason) {
        return propose(coordinator, current, sets, false, reason);
    }

    static Topology propose(CoordinatorClient coordinator, Topology current, List<ReplicasetSpec> sets, boolean force, String reason) {
        Topology next = new Topology(current.epoch(), current.bucketCount(), current.coordinators(), sets, current.routers());
        Topology published = coordinator.propose(current.epoch(), next, force, reason).topology();
        System.out.println("epoch " + published.epoch() + ": " + reason);
        return published;
    }

    static void follow(ClusterConfig c, long epoch, boolean waitFlag, long waitSeconds) throws InterruptedException {
        if (!waitFlag) {
            System.out.println("the rebalancer moves buckets now; follow it with `cairn status` or add --wait");
            return;
        }
        if (!ClusterAccess.waitForRebalance(c, epoch, Duration.ofSeconds(waitSeconds))) {
            throw new CairnException(ErrorCode.TIMEOUT, "still moving after " + waitSeconds + " s; the rebalancer continues in the background");
        }
        System.out.println("done: the cluster is balanced for epoch " + epoch);
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Print the current epoch, replicasets and weights.")
    static final class Show implements Callable<Integer> {
        @Mixin ClusterAccess access;

        @Override
        public Integer call() {
            try (CoordinatorClient coordinator = new CoordinatorClient(access.load().topology().coordinators())) {
                Topology t = current(coordinator);
                Map<String, Object> rebalancer;
                try {
                    rebalancer = AdminClient.getJson(ClusterAccess.coordinatorLeader(access.load()) + "/rebalancer");
                } catch (CairnException e) {
                    rebalancer = null; // the states are the rebalancer's; the topology alone is still worth showing
                }
                Map<String, Object> status = rebalancer == null ? Map.of() : Map.of("rebalancer", rebalancer);
                System.out.printf("epoch %d, %d buckets%n", t.epoch(), t.bucketCount());
                for (ReplicasetSpec rs : t.replicasets()) {
                    System.out.printf("  %-10s weight %-4d %-30s nodes %s%n", rs.id(), rs.weight(), StatusReport.phaseOf(status, rs.id()),
                            rs.nodes().stream().map(NodeAddress::id).toList());
                }
            }
            return 0;
        }
    }

    @Command(name = "history", mixinStandardHelpOptions = true,
            description = "Print the topologies the coordinator keeps (the last 100 epochs), oldest first, and what each changed.")
    static final class History implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (CoordinatorClient coordinator = new CoordinatorClient(access.load().topology().coordinators())) {
                Topology before = null;
                for (Topology t : coordinator.history()) {
                    out.printf("epoch %d: %s%n", t.epoch(), before == null ? "kept from here" : changes(before, t));
                    for (ReplicasetSpec rs : t.replicasets()) {
                        out.printf("  %-10s weight %-4d nodes %s%n", rs.id(), rs.weight(), rs.nodes().stream().map(NodeAddress::id).toList());
                    }
                    before = t;
                }
            }
            out.flush();
            return 0;
        }

        /** What changed from {@code a} to {@code b}: replicasets added or removed, weights, members. */
        static String changes(Topology a, Topology b) {
            List<String> out = new ArrayList<>();
            for (ReplicasetSpec rs : b.replicasets()) {
                ReplicasetSpec old = a.replicaset(rs.id()).orElse(null);
                if (old == null) {
                    out.add(rs.id() + " added");
                    continue;
                }
                if (old.weight() != rs.weight()) out.add(rs.id() + " weight " + old.weight() + " -> " + rs.weight());
                for (NodeAddress n : rs.nodes()) if (!old.nodes().contains(n)) out.add(n.id() + " joined " + rs.id());
                for (NodeAddress n : old.nodes()) if (!rs.nodes().contains(n)) out.add(n.id() + " left " + rs.id());
            }
            for (ReplicasetSpec rs : a.replicasets()) if (b.replicaset(rs.id()).isEmpty()) out.add(rs.id() + " removed");
            return out.isEmpty() ? "no replicaset changed" : String.join(", ", out);
        }
    }

    @Command(name = "set-weight", mixinStandardHelpOptions = true, description = "Set a replicaset's weight (0 drains it).")
    static final class SetWeight implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Parameters(index = "0", description = "replicaset id") String id;
        @Parameters(index = "1", description = "new weight, 0..1000000") int weight;
        @Option(names = "--wait", description = "follow the rebalancer until the cluster is balanced") boolean waitFlag;
        @Option(names = "--wait-seconds", defaultValue = "3600", description = "give up waiting after this (default: ${DEFAULT-VALUE})") long waitSeconds;

        @Override
        public Integer call() throws Exception {
            ClusterConfig c = access.load();
            try (CoordinatorClient coordinator = new CoordinatorClient(c.topology().coordinators())) {
                Topology t = current(coordinator);
                if (t.replicaset(id).isEmpty()) throw new CairnException(ErrorCode.INVALID_CONFIG, "no replicaset '" + id + "' at epoch " + t.epoch());
                List<ReplicasetSpec> sets = new ArrayList<>();
                for (ReplicasetSpec rs : t.replicasets()) sets.add(rs.id().equals(id) ? new ReplicasetSpec(id, weight, rs.nodes()) : rs);
                Topology next = propose(coordinator, t, sets, "weight of " + id + " set to " + weight);
                follow(c, next.epoch(), waitFlag, waitSeconds);
            }
            return 0;
        }
    }

    @Command(name = "add-replicaset", mixinStandardHelpOptions = true,
            description = "Add a replicaset to a local cluster (cairn up): new nodes on the next free ports, started at once.")
    static final class AddReplicaset implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Option(names = "--id", description = "replicaset id (default: the next rsN)") String id;
        @Option(names = "--replicas", defaultValue = "3", description = "nodes: 1, 3 or 5 (default: ${DEFAULT-VALUE})") int replicas;
        @Option(names = "--weight", defaultValue = "1", description = "weight (default: ${DEFAULT-VALUE})") int weight;
        @Option(names = "--wait", description = "follow the rebalancer until the cluster is balanced") boolean waitFlag;
        @Option(names = "--wait-seconds", defaultValue = "3600", description = "give up waiting after this (default: ${DEFAULT-VALUE})") long waitSeconds;

        @Override
        public Integer call() throws Exception {
            ClusterConfig c = access.load();
            String rsId = id != null ? id : nextId(c.topology());
            ReplicasetSpec spec = new ReplicasetSpec(rsId, weight, newNodes(c.topology(), rsId, replicas));
            try (CoordinatorClient coordinator = new CoordinatorClient(c.topology().coordinators())) {
                Topology t = current(coordinator);
                List<ReplicasetSpec> sets = new ArrayList<>(t.replicasets());
                sets.add(spec);
                Topology next = propose(coordinator, t, sets, "replicaset " + rsId + " added with weight " + weight);
                appendToConfigFile(access.configFile(), spec);
                AdminClient.Answer r = AdminClient.post(localAdmin(c) + "/local/replicasets/" + rsId + "/start");
                System.out.print(r.body());
                if (r.status() != 200) return 1;
                follow(c, next.epoch(), waitFlag, waitSeconds);
            }
            return 0;
        }

        private static String nextId(Topology t) {
            int n = t.replicasets().size() + 1;
            while (t.replicaset("rs" + n).isPresent()) n++;
            return "rs" + n;
        }

        /** Three ports each (Raft, admin, data plane) after the highest port the cluster uses, ids like the local cluster's (s3-1, s3-2, ...). */
        private static List<NodeAddress> newNodes(Topology t, String rsId, int replicas) {
            int base = ClusterAccess.freePortsAfterNodes(t, 3 * replicas);
            String prefix = rsId.startsWith("rs") ? "s" + rsId.substring(2) : rsId;
            List<NodeAddress> nodes = new ArrayList<>();
            for (int i = 1; i <= replicas; i++) {
                int first = base + 3 * (i - 1);
                nodes.add(new NodeAddress(prefix + "-" + i, "127.0.0.1", first, first + 1, first + 2));
            }
            return nodes;
        }
    }

    @Command(name = "remove-replicaset", mixinStandardHelpOptions = true,
            description = "Remove a drained replicaset (weight 0, no buckets left); in a local cluster its nodes stop and their data is deleted.")
    static final class RemoveReplicaset implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Parameters(index = "0", description = "replicaset id") String id;
        @Option(names = "--force", description = "Remove it even when the coordinator cannot confirm it holds nothing "
                + "(its nodes are gone for good); buckets still on it are lost to the cluster. Recorded as a forced change; "
                + "a local cluster stops its nodes but keeps their data folders.")
        boolean force;

        @Override
        public Integer call() throws Exception {
            ClusterConfig c = access.load();
            try (CoordinatorClient coordinator = new CoordinatorClient(c.topology().coordinators())) {
                Topology t = current(coordinator);
                ReplicasetSpec rs = t.replicaset(id).orElseThrow(
                        () -> new CairnException(ErrorCode.INVALID_CONFIG, "no replicaset '" + id + "' at epoch " + t.epoch()));
                if (rs.weight() != 0 && !force) {
                    throw new CairnException(ErrorCode.GUARDRAIL, "replicaset " + id + " has weight " + rs.weight()
                            + "; drain it first: cairn topology set-weight " + id + " 0 --wait");
                }
                List<ReplicasetSpec> sets = new ArrayList<>(t.replicasets());
                sets.remove(rs);
                // The coordinator leader asks the replicaset itself whether it still holds anything.
                propose(coordinator, t, sets, force, "replicaset " + id + " removed" + (force ? " (forced)" : " (drained)"));
                removeFromConfigFile(access.configFile(), id);
                AdminClient.Answer r = AdminClient.post(localAdmin(c) + "/local/replicasets/" + id + "/remove" + (force ? "?keepData=true" : ""));
                System.out.print(r.status() == 200 ? r.body() : "not a local cluster (or it is not running): stop " + id + "'s nodes yourself\n");
            }
            return 0;
        }
    }

    private static String localAdmin(ClusterConfig c) {
        var r = c.topology().routers().get(0);
        return AdminHttps.base(r.host(), r.adminPort());
    }

    @SuppressWarnings("unchecked")
    private static void appendToConfigFile(Path file, ReplicasetSpec spec) throws IOException {
        Map<String, Object> tree = ConfigLoader.readTree(file);
        List<Object> sets = new ArrayList<>((List<Object>) tree.get("replicasets"));
        Map<String, Object> rs = new LinkedHashMap<>();
        rs.put("id", spec.id());
        rs.put("weight", spec.weight());
        List<Object> nodes = new ArrayList<>();
        for (NodeAddress n : spec.nodes()) nodes.add(ClusterAccess.configEntry(n));
        rs.put("nodes", nodes);
        sets.add(rs);
        tree.put("replicasets", sets);
        ConfigLoader.write(file, tree);
    }

    @SuppressWarnings("unchecked")
    private static void removeFromConfigFile(Path file, String id) throws IOException {
        Map<String, Object> tree = ConfigLoader.readTree(file);
        List<Object> sets = new ArrayList<>((List<Object>) tree.get("replicasets"));
        sets.removeIf(o -> id.equals(((Map<String, Object>) o).get("id")));
        tree.put("replicasets", sets);
        ConfigLoader.write(file, tree);
    }
}
