package io.cairn.core.topology;

/**
 * A storage or coordinator node: its id, host, Raft port, admin HTTP port and data-plane port.
 *
 * @param dataPort where a storage node listens for routers' reads and writes and for admin and move
 *                 calls ({@code io.cairn.core.wire.DataPlane}); 0 in a topology written before the port
 *                 was named (the node then binds any free port and callers ask its Raft group for it;
 *                 only the Ratis engine can answer that). Unused by coordinators.
 */
public record NodeAddress(String id, String host, int raftPort, int adminPort, int dataPort) {
    /** A node without a named data-plane port (coordinators; storage nodes of older topologies). */
    public NodeAddress(String id, String host, int raftPort, int adminPort) {
        this(id, host, raftPort, adminPort, 0);
    }

    public String raftAddress() {
        return host + ":" + raftPort;
    }

    /** "host:dataPort", or null when the topology names no data-plane port for this node. */
    public String dataAddress() {
        return dataPort == 0 ? null : host + ":" + dataPort;
    }
}
