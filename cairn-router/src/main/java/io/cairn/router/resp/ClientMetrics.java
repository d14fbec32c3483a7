package io.cairn.router.resp;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the RESP server reports about its clients' memory and the limits it enforced, for the
 * router's metrics and INFO. Counters only grow; the byte figures are read live from every
 * open connection (a sum over them, so a scrape costs one pass over the clients).
 */
public final class ClientMetrics {
    private final ClientRegistry clients;
    private final Map<ClientLimit, LongAdder> disconnected = new EnumMap<>(ClientLimit.class);
    private final LongAdder refused = new LongAdder();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder commands = new LongAdder();

    ClientMetrics(ClientRegistry clients) {
        this.clients = clients;
        for (ClientLimit limit : ClientLimit.values()) disconnected.put(limit, new LongAdder());
    }

    /** Open connections. */
    public int connectedClients() {
        return clients.size();
    }

    /** Bytes of unprocessed input held for all connections (Redis's qbuf, summed). */
    public long queryBufferBytes() {
        long sum = 0;
        for (ClientSession s : clients.sessions()) sum += s.queryBufferBytes();
        return sum;
    }

    /** Bytes of replies queued for all connections' sockets (Redis's omem, summed). */
    public long outputBufferBytes() {
        long sum = 0;
        for (ClientSession s : clients.sessions()) sum += s.outputBufferBytes();
        return sum;
    }

    /** Both of the above: what maxmemory-clients bounds. */
    public long bufferBytes() {
        return clients.bufferBytes();
    }

    /** Connections closed by {@code limit} since start. */
    public long disconnected(ClientLimit limit) {
        return disconnected.get(limit).sum();
    }

    /** Connections refused because {@link RespConfig#maxClients()} were open. */
    public long refusedConnections() {
        return refused.sum();
    }

    /** Connections accepted since start (INFO's total_connections_received). */
    public long acceptedConnections() {
        return accepted.sum();
    }

    /** Commands dispatched since start, refused ones included (INFO's total_commands_processed). */
    public long commandsProcessed() {
        return commands.sum();
    }

    void countAccepted() {
        accepted.increment();
    }

    void countCommand() {
        commands.increment();
    }

    void countDisconnect(ClientLimit limit) {
        disconnected.get(limit).increment();
    }

    void countRefused() {
        refused.increment();
    }
}
