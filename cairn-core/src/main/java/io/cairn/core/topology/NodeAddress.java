package io.cairn.core.topology;

/** A storage or coordinator node: its id, host, Raft port and admin HTTP port. */
public record NodeAddress(String id, String host, int raftPort, int adminPort) {
    public String raftAddress() {
        return host + ":" + raftPort;
    }
}
