package io.cairn.server.cli;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.MemberPlanner;
import io.cairn.core.topology.MemberPlanner.NodeState;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.core.wire.MemberChange;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.control.MemberReconciler;
import io.cairn.storage.StorageAdmin;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Adds and removes the storage nodes of a replicaset (issue 21): {@code cairn node add}, {@code remove}
 * and {@code replace} (an add, then a remove). The command changes the topology and follows the
 * progress; the coordinator makes the Raft changes ({@link MemberReconciler}, rules in
 * {@code MemberPlanner}): a new node joins as a learner once it answers, catches up by snapshot and
 * log (it starts <em>rejoining</em>: it neither votes nor serves, see {@code DiskIdentity}) and only
 * then votes; a removed node leaves the group, after handing over its leadership when it leads.
 * A removal is refused unless the voters left include a caught-up majority ({@code --force} records
 * the exception and makes the Raft change itself). A command interrupted anywhere leaves the
 * coordinator to finish what the topology asks.
 */
final class NodeChanges implements AutoCloseable {
    private static final long POLL_MS = 500;
    private static final long PROGRESS_EVERY_MS = 2_000;

    private final ClusterAccess access;
    private final boolean local;
    private final CoordinatorClient coordinator;
    private final PrintStream out;
    private final Duration catchUpTimeout;

    /** @param local a cluster of {@code cairn up}: nodes are started and stopped through its admin port, the config file is kept up to date */
    NodeChanges(ClusterAccess access, boolean local, PrintStream out, Duration catchUpTimeout) {
        this.access = access;
        this.local = local;
        this.coordinator = new CoordinatorClient(access.load().topology().coordinators());
        this.out = out;
        this.catchUpTimeout = catchUpTimeout;
    }

    /** Adds {@code node} to replicaset {@code rsId}; returns once it votes (the coordinator adds and promotes it). */
    void add(String rsId, NodeAddress node) throws IOException, InterruptedException {
        Topology t = TopologyCommand.current(coordinator);
        ReplicasetSpec rs = replicaset(t, rsId);
        if (rs.nodes().stream().noneMatch(n -> n.id().equals(node.id()))) {
            List<NodeAddress> nodes = new ArrayList<>(rs.nodes());
            nodes.add(node);
            t = TopologyCommand.propose(coordinator, t, with(t, new ReplicasetSpec(rsId, rs.weight(), nodes)),
                    "storage node " + node.id() + " added to replicaset " + rsId);
            rs = replicaset(t, rsId);
        }
        if (local) addToConfigFile(access.configFile(), rsId, node);
        if (local) {
            AdminClient.Answer r = AdminClient.post(localAdmin() + "/local/nodes/" + node.id() + "/start");
            if (r.status() != 200) throw new CairnException(ErrorCode.UNAVAILABLE, "could not start " + node.id() + ": " + r.body());
        } else {
            out.println("start the node now: cairn storage --config " + access.configFile() + " --node " + node.id() + " (waiting for it)");
        }
        try (StorageAdmin admin = new StorageAdmin(rs, Duration.ofSeconds(15))) {
            long[] learnerSince = {0};
            MemberChange.View members = await(admin, node.id() + " to vote in replicaset " + rsId, v -> {
                if (v.nodeLearns(node.id()) && learnerSince[0] == 0) {
                    learnerSince[0] = System.nanoTime();
                    out.println(node.id() + " joined replicaset " + rsId + " as a learner: " + v);
                }
                return v.nodeVotes(node.id());
            }, v -> {
                if (!v.nodeLearns(node.id())) return "waiting for the coordinator to add " + node.id() + ": " + coordinatorSays(rsId);
                Map<String, Object> i = AdminClient.getJson(adminUrl(node) + "/info");
                return node.id() + " catching up: applied " + (i == null ? "?" : i.get("appliedIndex")) + " of " + admin.stats().appliedIndex();
            });
            if (learnerSince[0] != 0) out.printf("%s caught up in %.1f s%n", node.id(), (System.nanoTime() - learnerSince[0]) / 1e9);
            out.println(node.id() + " votes in replicaset " + rsId + ": " + members);
        }
    }

    /**
     * Removes storage node {@code id} from its replicaset: refused unless the voters left include a
     * caught-up majority; then it leaves the topology, the coordinator removes it from the Raft group
     * (handing the leadership over first when it leads), and it is stopped. {@code --force} skips the
     * check: the command makes the Raft change itself, since the coordinator never makes an unsafe one.
     */
    void remove(String id, boolean force) throws IOException, InterruptedException {
        Topology t = TopologyCommand.current(coordinator);
        ReplicasetSpec rs = replicasetOf(t, id);
        if (rs.nodes().size() == 1) {
            throw new CairnException(ErrorCode.GUARDRAIL, id + " is the only member of replicaset " + rs.id() + "; drain and remove the replicaset instead");
        }
        // this client knows the leaving node: it may lead the group until it hands over
        try (StorageAdmin admin = new StorageAdmin(rs, Duration.ofSeconds(15))) {
            MemberChange.View members = admin.members();
            Map<String, NodeState> states = new HashMap<>();
            for (NodeAddress n : rs.nodes()) states.put(n.id(), MemberReconciler.probe(n));
            // the node's Raft member id: its own, or its id on a new disk (MemberIds)
            String member = members.membersOf(id).stream().findFirst().orElse(id);
            Function<String, NodeState> byMember = MemberPlanner.byMember(MemberPlanner.of(states));
            String problem = MemberPlanner.removalProblem(members, member, byMember);
            if (problem != null && !force) throw new CairnException(ErrorCode.GUARDRAIL, problem + "; bring them back first, or add --force");
            List<NodeAddress> nodes = new ArrayList<>(rs.nodes());
            nodes.removeIf(n -> n.id().equals(id));
            TopologyCommand.propose(coordinator, t, with(t, new ReplicasetSpec(rs.id(), rs.weight(), nodes)), force,
                    "storage node " + id + " removed from replicaset " + rs.id() + (force ? " (forced)" : ""));
            if (problem != null) {
                out.println("forced: " + problem);
                List<String> ready = MemberPlanner.readyVoters(members, member, byMember);
                if (states.get(id).leader() && !ready.isEmpty()) admin.changeMembers(MemberChange.lead(ready.get(0)));
                members = admin.members();
                if (members.has(member)) admin.changeMembers(new MemberChange(MemberChange.Op.REMOVE, member, "", members.index()));
            }
            members = await(admin, id + " to leave replicaset " + rs.id() + "'s Raft group", v -> v.membersOf(id).isEmpty(), v -> coordinatorSays(rs.id()));
            out.println(id + " left replicaset " + rs.id() + "'s Raft group: " + members);
        }
        if (local) {
            AdminClient.Answer r = AdminClient.post(localAdmin() + "/local/nodes/" + id + "/remove");
            out.print(r.body());
            removeFromConfigFile(access.configFile(), rs.id(), id);
        } else {
            out.println("stop node " + id + "'s process now; its data folder is no longer needed");
            out.println("remove node " + id + "'s entry from " + access.configFile() + " on every host");
        }
    }

    CoordinatorClient coordinator() {
        return coordinator;
    }

    /** The replicaset of {@code id} at the current epoch. */
    ReplicasetSpec replicasetOf(String id) {
        return replicasetOf(TopologyCommand.current(coordinator), id);
    }

    private static ReplicasetSpec replicasetOf(Topology t, String id) {
        return t.replicasets().stream().filter(r -> r.nodes().stream().anyMatch(n -> n.id().equals(id))).findFirst()
                .orElseThrow(() -> new CairnException(ErrorCode.UNKNOWN_NODE, "no storage node '" + id + "' at epoch " + t.epoch()));
    }

    /**
     * Replaces storage node {@code old} of the local cluster in {@code dir} by its next free node (an add, then a
     * remove), printing the progress: what {@code cairn bench replace} times.
     */
    static void replaceLocal(Path dir, String old, Duration catchUpTimeout) throws IOException, InterruptedException {
        ClusterAccess access = new ClusterAccess();
        access.dir = dir;
        try (NodeChanges changes = new NodeChanges(access, true, System.out, catchUpTimeout)) {
            String rs = changes.replicasetOf(old).id();
            changes.add(rs, nextLocalNode(TopologyCommand.current(changes.coordinator()), rs));
            changes.remove(old, false);
        }
    }

    /**
     * A new node for {@code rsId} in a local cluster: the next free id (s1-4, ...) on the first three
     * ports after the highest node port that no process of the topology uses (as add-replicaset does).
     */
    static NodeAddress nextLocalNode(Topology t, String rsId) {
        ReplicasetSpec rs = replicaset(t, rsId);
        int first = ClusterAccess.freePortsAfterNodes(t, 3);
        String prefix = rsId.startsWith("rs") ? "s" + rsId.substring(2) : rsId;
        int n = rs.nodes().size() + 1;
        while (t.storageNode(prefix + "-" + n).isPresent()) n++;
        return new NodeAddress(prefix + "-" + n, "127.0.0.1", first, first + 1, first + 2);
    }

    /**
     * Reads the membership every half second until {@code done}, printing {@code progress} every few
     * seconds; TIMEOUT past the catch-up timeout (the coordinator goes on with the change).
     */
    private MemberChange.View await(StorageAdmin admin, String what, Predicate<MemberChange.View> done,
                                    Function<MemberChange.View, String> progress) throws InterruptedException {
        long deadline = System.nanoTime() + catchUpTimeout.toNanos();
        long nextLine = System.nanoTime() + PROGRESS_EVERY_MS * 1_000_000;
        while (true) {
            MemberChange.View v = null;
            try {
                v = admin.members();
                if (done.test(v)) return v;
            } catch (CairnException e) {
                // no leader for a moment (an election, a hand-over): asked again next time
            }
            if (System.nanoTime() > deadline) {
                throw new CairnException(ErrorCode.TIMEOUT, "waited " + catchUpTimeout.toSeconds() + " s for " + what
                        + "; the coordinator goes on with the change (cairn status shows it), or run the command again");
            }
            if (v != null && System.nanoTime() > nextLine) {
                out.println(progress.apply(v));
                nextLine = System.nanoTime() + PROGRESS_EVERY_MS * 1_000_000;
            }
            Thread.sleep(POLL_MS);
        }
    }

    /** What the coordinator's membership loop last said of replicaset {@code rsId}. */
    private String coordinatorSays(String rsId) {
        try {
            Map<String, Object> info = AdminClient.getJson(ClusterAccess.coordinatorLeader(access.load()) + "/info");
            return info != null && info.get("membership") instanceof Map<?, ?> m && m.get(rsId) != null ? String.valueOf(m.get(rsId)) : "(nothing yet)";
        } catch (CairnException e) {
            return e.getMessage();
        }
    }

    private static ReplicasetSpec replicaset(Topology t, String rsId) {
        return t.replicaset(rsId).orElseThrow(() -> new CairnException(ErrorCode.INVALID_CONFIG, "no replicaset '" + rsId + "' at epoch " + t.epoch()));
    }

    private static List<ReplicasetSpec> with(Topology t, ReplicasetSpec changed) {
        List<ReplicasetSpec> sets = new ArrayList<>();
        for (ReplicasetSpec r : t.replicasets()) sets.add(r.id().equals(changed.id()) ? changed : r);
        return sets;
    }

    private static String adminUrl(NodeAddress n) {
        return AdminHttps.base(n.host(), n.adminPort());
    }

    private String localAdmin() {
        ClusterConfig c = access.load();
        var r = c.topology().routers().get(0);
        return AdminHttps.base(r.host(), r.adminPort());
    }

    private static void addToConfigFile(Path file, String rsId, NodeAddress n) throws IOException {
        editNodes(file, rsId, nodes -> {
            nodes.removeIf(x -> n.id().equals(x.get("id")));
            nodes.add(ClusterAccess.configEntry(n));
        });
    }

    private static void removeFromConfigFile(Path file, String rsId, String id) throws IOException {
        editNodes(file, rsId, nodes -> nodes.removeIf(x -> id.equals(x.get("id"))));
    }

    /** Rewrites the node entries of replicaset {@code rsId} in the config file. */
    @SuppressWarnings("unchecked")
    private static void editNodes(Path file, String rsId, Consumer<List<Map<String, Object>>> edit) throws IOException {
        Map<String, Object> tree = ConfigLoader.readTree(file);
        for (Object o : (List<Object>) tree.get("replicasets")) {
            Map<String, Object> rs = (Map<String, Object>) o;
            if (!rsId.equals(rs.get("id"))) continue;
            List<Map<String, Object>> nodes = new ArrayList<>((List<Map<String, Object>>) rs.get("nodes"));
            edit.accept(nodes);
            rs.put("nodes", nodes);
        }
        ConfigLoader.write(file, tree);
    }

    @Override
    public void close() {
        coordinator.close();
    }
}
