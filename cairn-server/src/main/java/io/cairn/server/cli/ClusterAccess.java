package io.cairn.server.cli;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.RouterSpec;
import io.cairn.core.topology.Topology;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.LocalCluster;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Options and calls shared by the operator commands (topology, bucket): which cluster, and its coordinator leader ({@link AdminClient} makes the HTTP calls). */
class ClusterAccess {
    @Option(names = "--dir", defaultValue = "cairn-data", description = "local cluster folder (default: ${DEFAULT-VALUE})")
    Path dir;
    @Option(names = "--config", description = "cluster config file (instead of --dir)")
    Path config;

    ClusterConfig load() {
        return ConfigLoader.load(configFile());
    }

    Path configFile() {
        return config != null ? config : dir.resolve(LocalCluster.CONFIG_FILE);
    }

    /**
     * The first of {@code count} consecutive ports after the highest storage or coordinator port of
     * {@code t} that no process of {@code t} uses: where a local cluster's new nodes listen.
     */
    static int freePortsAfterNodes(Topology t, int count) {
        Set<Integer> used = new HashSet<>();
        int max = 0;
        for (ReplicasetSpec rs : t.replicasets()) {
            for (NodeAddress n : rs.nodes()) {
                used.addAll(List.of(n.raftPort(), n.adminPort(), n.dataPort()));
                max = Math.max(max, Math.max(n.dataPort(), Math.max(n.raftPort(), n.adminPort())));
            }
        }
        for (NodeAddress n : t.coordinators()) {
            used.addAll(List.of(n.raftPort(), n.adminPort()));
            max = Math.max(max, Math.max(n.raftPort(), n.adminPort()));
        }
        for (RouterSpec r : t.routers()) used.addAll(List.of(r.respPort(), r.adminPort()));
        int first = max + 1;
        for (int p = first; p < first + count; p++) {
            if (used.contains(p)) first = p + 1; // the run starts again after the port in use
        }
        return first;
    }

    /** A storage node's entry in the config file. */
    static Map<String, Object> configEntry(NodeAddress n) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("id", n.id());
        entry.put("host", n.host());
        entry.put("raftPort", n.raftPort());
        entry.put("adminPort", n.adminPort());
        entry.put("dataPort", n.dataPort());
        return entry;
    }

    /** Base URL of the coordinator that currently leads (and runs the rebalancer). */
    static String coordinatorLeader(ClusterConfig c) {
        for (NodeAddress n : c.topology().coordinators()) {
            String base = AdminHttps.base(n.host(), n.adminPort());
            Map<String, Object> info = AdminClient.getJson(base + "/info");
            if (info != null && Boolean.TRUE.equals(info.get("leader"))) return base;
        }
        throw new CairnException(ErrorCode.UNAVAILABLE, "no coordinator leader answers (is the cluster running?)");
    }

    /**
     * Shows the rebalancer's progress once per second until the plan for {@code epoch} has nothing
     * left to move and no move is in flight; false when {@code timeout} passes first. In a terminal a
     * bar of the buckets moved since the wait began, with the rate and the time left, redrawn in place;
     * elsewhere one line each time the figures change ({@link ProgressLine}).
     */
    static boolean waitForRebalance(ClusterConfig c, long epoch, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        ProgressLine progress = ProgressLine.stdout();
        long movedAtStart = -1;
        try {
            while (System.nanoTime() < deadline) {
                Map<String, Object> p = AdminClient.getJson(coordinatorLeader(c) + "/rebalancer");
                if (p != null && Boolean.TRUE.equals(p.get("running"))) {
                    long planEpoch = ((Number) p.get("planEpoch")).longValue();
                    int toMove = ((Number) p.get("bucketsToMove")).intValue();
                    int inFlight = ((Number) p.get("inFlight")).intValue();
                    long moved = ((Number) p.get("moved")).longValue();
                    // "moved" counts from when the current coordinator leader took over: after a failover it starts again
                    if (movedAtStart < 0 || moved < movedAtStart) movedAtStart = moved;
                    String line = String.format("epoch %d: %d buckets to move, %d in flight, %s moved, %s buckets/s, ETA %s s",
                            planEpoch, toMove, inFlight, p.get("moved"), p.get("bucketsPerSecond"), p.get("etaSeconds"));
                    long done = moved - movedAtStart;
                    progress.update(line, done, done + toMove, "buckets", ((Number) p.get("bucketsPerSecond")).doubleValue(),
                            ((Number) p.get("etaSeconds")).longValue(), "epoch " + planEpoch + ", " + inFlight + " in flight");
                    if (planEpoch >= epoch && Boolean.TRUE.equals(p.get("balanced"))) return true;
                }
                Thread.sleep(1_000);
            }
            return false;
        } finally {
            progress.finish();
        }
    }
}
