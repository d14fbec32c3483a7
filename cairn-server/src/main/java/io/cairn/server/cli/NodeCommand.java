package io.cairn.server.cli;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.config.ClusterConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code cairn node}: stop or start a storage node of a local cluster, and add, remove or replace
 * the storage nodes of a replicaset ({@link NodeChanges}).
 */
@Command(name = "node", mixinStandardHelpOptions = true, description = "Stop, start, add, remove or replace storage nodes.",
        subcommands = {NodeCommand.Stop.class, NodeCommand.Start.class, NodeCommand.Add.class, NodeCommand.Remove.class,
                NodeCommand.Replace.class})
final class NodeCommand implements Runnable {
    @Override
    public void run() {
        new picocli.CommandLine(this).usage(System.out);
    }

    /** stop and start: a node of a running local cluster (cairn up), through its admin port. */
    abstract static class LocalAction implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Parameters(index = "0", description = "storage node id, e.g. s1-1") String id;
        @Spec CommandSpec spec;

        abstract String action();

        @Override
        public Integer call() {
            ClusterConfig c = access.load();
            var r = c.topology().routers().get(0);
            AdminClient.Answer answer = AdminClient.post(AdminHttps.base(r.host(), r.adminPort()) + "/local/nodes/" + id + "/" + action());
            int status = answer.status();
            PrintWriter to = status == 200 ? spec.commandLine().getOut() : spec.commandLine().getErr();
            to.print(status == 0 ? "cairn: no local cluster answers at " + r.host() + ":" + r.adminPort() + " (is `cairn up` running?)\n" : answer.body());
            to.flush();
            return status == 200 ? 0 : 1;
        }
    }

    @Command(name = "stop", mixinStandardHelpOptions = true, description = "Stop a storage node of a local cluster (a leader hands its leadership over first).")
    static final class Stop extends LocalAction {
        @Override
        String action() {
            return "stop";
        }
    }

    @Command(name = "start", mixinStandardHelpOptions = true, description = "Start a stopped storage node of a local cluster again.")
    static final class Start extends LocalAction {
        @Override
        String action() {
            return "start";
        }
    }

    /** Options of the commands that change members. */
    abstract static class Change implements Callable<Integer> {
        @Mixin ClusterAccess access;
        @Option(names = "--timeout-seconds", defaultValue = "1800", description = "give up waiting for a new node to catch up after this "
                + "(default: ${DEFAULT-VALUE}; run the command again to go on)") long timeoutSeconds;

        /** A local cluster (--dir, cairn up) starts and stops nodes itself; with --config the operator runs them. */
        NodeChanges changes() {
            return new NodeChanges(access, access.config == null, System.out, Duration.ofSeconds(timeoutSeconds));
        }

        /** The node to add: a local cluster's next free id and ports, or the entry the config file names that the topology lacks. */
        NodeAddress newNode(NodeChanges changes, String rsId, String id) {
            Topology t = TopologyCommand.current(changes.coordinator());
            if (access.config == null) {
                NodeAddress next = NodeChanges.nextLocalNode(t, rsId);
                return id == null ? next : new NodeAddress(id, next.host(), next.raftPort(), next.adminPort(), next.dataPort());
            }
            ReplicasetSpec inFile = access.load().topology().replicaset(rsId)
                    .orElseThrow(() -> new CairnException(ErrorCode.INVALID_CONFIG, "no replicaset '" + rsId + "' in " + access.configFile()));
            ReplicasetSpec now = t.replicaset(rsId).orElseThrow();
            return inFile.nodes().stream().filter(n -> (id == null || n.id().equals(id)) && now.nodes().stream().noneMatch(o -> o.id().equals(n.id())))
                    .findFirst().orElseThrow(() -> new CairnException(ErrorCode.INVALID_CONFIG, "add the new node's entry to replicaset " + rsId
                            + " in " + access.configFile() + " first (id, host, raftPort, adminPort, dataPort)" + (id == null ? "" : ": no entry '" + id + "'")));
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Add a storage node to a replicaset: it joins as a learner, catches up, then votes.")
    static final class Add extends Change {
        @Parameters(index = "0", description = "replicaset id, e.g. rs1") String replicaset;
        @Option(names = "--id", description = "the new node's id (default: the next free one; with --config: the entry the config file adds)") String id;

        @Override
        public Integer call() throws Exception {
            try (NodeChanges changes = changes()) {
                changes.add(replicaset, newNode(changes, replicaset, id));
            }
            return 0;
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true,
            description = "Remove a storage node from its replicaset (refused when the voters left would lack a caught-up majority).")
    static final class Remove extends Change {
        @Parameters(index = "0", description = "storage node id") String id;
        @Option(names = "--force", description = "remove it even when the voters left lack a caught-up majority (recorded as a forced change)")
        boolean force;

        @Override
        public Integer call() throws Exception {
            try (NodeChanges changes = changes()) {
                changes.remove(id, force);
            }
            return 0;
        }
    }

    @Command(name = "replace", mixinStandardHelpOptions = true,
            description = "Replace a storage node (a failed disk or host): a new node is added and caught up, then the old one is removed.")
    static final class Replace extends Change {
        @Parameters(index = "0", description = "the storage node to replace") String id;
        @Option(names = "--with", description = "the new node's id (default: the next free one; with --config: the entry the config file adds)")
        String with;

        @Override
        public Integer call() throws Exception {
            long started = System.nanoTime();
            try (NodeChanges changes = changes()) {
                String rs = changes.replicasetOf(id).id();
                changes.add(rs, newNode(changes, rs, with));
                changes.remove(id, false);
            }
            System.out.printf("replaced %s in %.1f s%n", id, (System.nanoTime() - started) / 1e9);
            return 0;
        }
    }
}
