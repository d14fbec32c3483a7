package io.cairn.server;

import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.core.wire.MemberChange;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.storage.StorageAdmin;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Adds and removes the storage nodes of a replicaset (issue 21): {@code cairn node add}, {@code remove}
 * and {@code replace} (an add, then a remove). Raft changes its voters one member at a time, so the
 * old and the new voter set always share a majority:
 * <ol>
 *   <li>add: the node joins the topology (a new epoch: routers and the node itself learn it), is
 *       started (a local cluster starts it; otherwise its operator does), joins the Raft group as a
 *       learner, catches up by snapshot and log (it starts <em>rejoining</em>: it neither votes nor
 *       serves, see {@code DiskIdentity}), and only then becomes a voter;</li>
 *   <li>remove: refused unless the voters left, without it, include a majority that are up and caught
 *       up ({@code --force} records the exception); the node leaves the Raft group, is stopped, then
 *       leaves the topology.</li>
 * </ol>
 * Each step first reads where the replicaset stands, so a command interrupted anywhere is finished by
 * running it again.
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

    /** Adds {@code node} to replicaset {@code rsId}; returns once it votes. */
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
            Object[] r = ClusterAccess.post(localAdmin() + "/local/nodes/" + node.id() + "/start");
            if ((int) r[0] != 200) throw new CairnException(ErrorCode.UNAVAILABLE, "could not start " + node.id() + ": " + r[1]);
        } else {
            out.println("start the node now: cairn storage --config " + access.configFile() + " --node " + node.id() + " (waiting for it)");
        }
        awaitInfo(node, "start", i -> true);
        try (StorageAdmin admin = new StorageAdmin(rs, Duration.ofSeconds(15))) {
            MemberChange.View members = admin.members();
            if (!members.has(node.id())) {
                // a fresh snapshot: the new member installs it (files) instead of replaying the log since the last one
                admin.changeMembers(MemberChange.snapshot());
                members = admin.changeMembers(new MemberChange(MemberChange.Op.ADD_LEARNER, node.id(), node.raftAddress(), members.index()));
                out.println(node.id() + " joined replicaset " + rsId + " as a learner: " + members);
            }
            long started = System.nanoTime();
            awaitInfo(node, "catch up with its leader", i -> Boolean.FALSE.equals(i.get("rejoining")), () -> {
                Map<String, Object> i = ClusterAccess.getJson(adminUrl(node) + "/info");
                long leaderApplied = admin.stats().appliedIndex();
                return node.id() + " catching up: applied " + (i == null ? "?" : i.get("appliedIndex")) + " of " + leaderApplied;
            });
            out.printf("%s caught up in %.1f s%n", node.id(), (System.nanoTime() - started) / 1e9);
            members = admin.members();
            if (!members.voters().containsKey(node.id())) {
                members = admin.changeMembers(new MemberChange(MemberChange.Op.PROMOTE, node.id(), node.raftAddress(), members.index()));
            }
            out.println(node.id() + " votes in replicaset " + rsId + ": " + members);
        }
    }

    /** Removes storage node {@code id} from its replicaset. */
    void remove(String id, boolean force) throws IOException {
        Topology t = TopologyCommand.current(coordinator);
        ReplicasetSpec rs = replicasetOf(t, id);
        if (rs.nodes().size() == 1) {
            throw new CairnException(ErrorCode.GUARDRAIL, id + " is the only member of replicaset " + rs.id() + "; drain and remove the replicaset instead");
        }
        try (StorageAdmin admin = new StorageAdmin(rs, Duration.ofSeconds(15))) {
            MemberChange.View members = admin.members();
            if (members.has(id)) {
                List<String> stay = new ArrayList<>(members.voters().keySet());
                stay.remove(id);
                List<String> ready = new ArrayList<>(); // up and caught up, the most applied first: the one to hand leadership to
                Map<String, Long> applied = new java.util.HashMap<>();
                for (String voter : stay) {
                    Map<String, Object> i = rs.nodes().stream().filter(n -> n.id().equals(voter)).findFirst()
                            .map(n -> ClusterAccess.getJson(adminUrl(n) + "/info")).orElse(null);
                    if (i != null && !"DOWN".equals(i.get("raftRole")) && Boolean.FALSE.equals(i.get("rejoining"))) {
                        ready.add(voter);
                        applied.put(voter, i.get("appliedIndex") instanceof Number n ? n.longValue() : 0L);
                    }
                }
                ready.sort(java.util.Comparator.comparing((String v) -> applied.get(v)).reversed());
                if (ready.size() * 2 <= stay.size()) {
                    String problem = "removing " + id + " leaves voters " + stay + " of which only " + ready + " are up and caught up, not a majority";
                    if (!force) throw new CairnException(ErrorCode.GUARDRAIL, problem + "; bring them back first, or add --force");
                    out.println("forced: " + problem);
                }
                Map<String, Object> removed = rs.nodes().stream().filter(n -> n.id().equals(id)).findFirst()
                        .map(n -> ClusterAccess.getJson(adminUrl(n) + "/info")).orElse(null);
                if (removed != null && "LEADER".equals(removed.get("raftRole")) && !ready.isEmpty()) {
                    // a leader that removes itself steps down, and the others wait out their leader timeout: hand over first
                    admin.changeMembers(MemberChange.lead(ready.get(0)));
                    out.println(id + " handed its leadership to " + ready.get(0));
                    members = admin.members();
                }
                members = admin.changeMembers(new MemberChange(MemberChange.Op.REMOVE, id, "", members.index()));
                out.println(id + " left replicaset " + rs.id() + "'s Raft group: " + members);
            }
        }
        if (local) {
            Object[] r = ClusterAccess.post(localAdmin() + "/local/nodes/" + id + "/remove");
            out.print(r[1]);
        } else {
            out.println("stop node " + id + "'s process now; its data folder is no longer needed");
        }
        List<NodeAddress> nodes = new ArrayList<>(rs.nodes());
        nodes.removeIf(n -> n.id().equals(id));
        TopologyCommand.propose(coordinator, t, with(t, new ReplicasetSpec(rs.id(), rs.weight(), nodes)), force,
                "storage node " + id + " removed from replicaset " + rs.id() + (force ? " (forced)" : ""));
        if (local) removeFromConfigFile(access.configFile(), rs.id(), id);
        else out.println("remove node " + id + "'s entry from " + access.configFile() + " on every host");
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

    private interface Progress {
        String line();
    }

    private void awaitInfo(NodeAddress node, String what, java.util.function.Predicate<Map<String, Object>> done) throws InterruptedException {
        awaitInfo(node, what, done, null);
    }

    /** Polls the node's /info until {@code done}, printing {@code progress} every few seconds; TIMEOUT past the catch-up timeout. */
    private void awaitInfo(NodeAddress node, String what, java.util.function.Predicate<Map<String, Object>> done, Progress progress)
            throws InterruptedException {
        long deadline = System.nanoTime() + catchUpTimeout.toNanos();
        long nextLine = System.nanoTime() + PROGRESS_EVERY_MS * 1_000_000;
        while (true) {
            Map<String, Object> i = ClusterAccess.getJson(adminUrl(node) + "/info");
            if (i != null && done.test(i)) return;
            if (System.nanoTime() > deadline) {
                throw new CairnException(ErrorCode.TIMEOUT, node.id() + " did not " + what + " within " + catchUpTimeout.toSeconds()
                        + " s; run the command again to go on (nothing is undone)");
            }
            if (progress != null && System.nanoTime() > nextLine) {
                out.println(progress.line());
                nextLine = System.nanoTime() + PROGRESS_EVERY_MS * 1_000_000;
            }
            Thread.sleep(POLL_MS);
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
        return "http://" + n.host() + ":" + n.adminPort();
    }

    private String localAdmin() {
        ClusterConfig c = access.load();
        var r = c.topology().routers().get(0);
        return "http://" + r.host() + ":" + r.adminPort();
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
    private static void editNodes(Path file, String rsId, java.util.function.Consumer<List<Map<String, Object>>> edit) throws IOException {
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
