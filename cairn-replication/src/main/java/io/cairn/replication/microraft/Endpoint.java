package io.cairn.replication.microraft;

import io.microraft.RaftEndpoint;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A member's Raft identity: its id and its "host:port". Equal by id alone, so an endpoint decoded
 * without its address (a message's sender) is the same member as one from a membership list. The
 * address travels with every membership change in the log, so each member learns the addresses of
 * members added after it started.
 */
final class Endpoint implements RaftEndpoint {
    private final String id;
    private final String address;

    Endpoint(String id, String address) {
        if (id == null || id.isEmpty()) throw new IllegalArgumentException("an endpoint needs an id");
        this.id = id;
        this.address = address == null || address.isEmpty() ? null : address;
    }

    @Override
    public Object getId() {
        return id;
    }

    String id() {
        return id;
    }

    /** "host:port", or null when this endpoint was decoded from a message header. */
    String address() {
        return address;
    }

    static InetSocketAddress socketAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) throw new IllegalArgumentException("not host:port: " + hostPort);
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        return new InetSocketAddress(host, Integer.parseInt(hostPort.substring(colon + 1)));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Endpoint e && e.id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return id;
    }

    static String idOf(RaftEndpoint endpoint) {
        return endpoint == null ? null : Objects.toString(endpoint.getId());
    }
}
