package io.cairn.server.process;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.RouterSpec;
import io.cairn.server.config.ClusterConfig;

import java.util.stream.Collectors;

/** Looks up this process's node in the config, with an error that lists the valid ids. */
final class Nodes {
    private Nodes() {}

    static NodeAddress storage(ClusterConfig config, String id) {
        return config.topology().storageNode(id).orElseThrow(() -> unknown(config, "storage node", id,
                config.topology().replicasets().stream().flatMap(r -> r.nodes().stream()).map(NodeAddress::id).collect(Collectors.joining(", "))));
    }

    static ReplicasetSpec replicasetOf(ClusterConfig config, String id) {
        storage(config, id);
        return config.topology().replicasetOfNode(id).orElseThrow();
    }

    static NodeAddress coordinator(ClusterConfig config, String id) {
        return config.topology().coordinator(id).orElseThrow(() -> unknown(config, "coordinator", id,
                config.topology().coordinators().stream().map(NodeAddress::id).collect(Collectors.joining(", "))));
    }

    static RouterSpec router(ClusterConfig config, String id) {
        return config.topology().router(id).orElseThrow(() -> unknown(config, "router", id,
                config.topology().routers().stream().map(RouterSpec::id).collect(Collectors.joining(", "))));
    }

    private static CairnException unknown(ClusterConfig config, String kind, String id, String known) {
        return new CairnException(ErrorCode.UNKNOWN_NODE, "'" + id + "' is not a " + kind + " in " + config.source()
                + (known.isEmpty() ? " (it defines none)" : "; " + kind + "s: " + known));
    }
}
