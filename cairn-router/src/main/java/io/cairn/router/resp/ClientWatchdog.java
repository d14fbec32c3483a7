package io.cairn.router.resp;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The limits that need a clock or a view over every client (Redis's clientsCron): the idle
 * timeout, the soft output limit, and maxmemory-clients. {@link #tick} runs every
 * {@link #TICK_MS} on one event loop; {@link #enforceMaxMemory} also runs inline whenever a
 * connection's replies pile up past its high-water mark, so that the sum is held between ticks too.
 *
 * <p>It only reads the sessions' volatile figures and asks connections to close
 * ({@link ClientSession.Connection#disconnect}, which hops to the connection's own loop); the
 * counters and the log line come from there, once per connection.
 *
 * <p>maxmemory-clients closes the connections holding the most first, as Redis's client eviction
 * does: one hostile client with a huge buffer goes before a hundred ordinary ones.
 */
final class ClientWatchdog {
    static final long TICK_MS = 100;

    private final ClientRegistry clients;
    private final RespConfig config;
    private final AtomicBoolean evicting = new AtomicBoolean();

    ClientWatchdog(ClientRegistry clients, RespConfig config) {
        this.clients = clients;
        this.config = config;
    }

    void tick() {
        long now = clients.nanoTime();
        long idleNanos = config.idleTimeout().toNanos();
        long softNanos = config.outputSoftLimit().toNanos();
        for (ClientSession s : clients.sessions()) {
            if (s.closing()) continue;
            if (idleNanos > 0 && !s.awaitingReplies() && now - s.lastInteractionNanos() >= idleNanos) {
                s.connection().disconnect(ClientLimit.IDLE_TIMEOUT, "idle for " + (now - s.lastInteractionNanos()) / 1_000_000 + " ms");
                continue;
            }
            checkSoftLimit(s, now, softNanos);
        }
        enforceMaxMemory();
    }

    private void checkSoftLimit(ClientSession s, long now, long softNanos) {
        long soft = config.outputSoftLimitBytes();
        if (soft == 0) return;
        long omem = s.outputBufferBytes();
        if (omem <= soft) {
            s.softSinceNanos(0);
        } else if (s.softSinceNanos() == 0) {
            s.softSinceNanos(now == 0 ? 1 : now);
        } else if (now - s.softSinceNanos() >= softNanos) {
            s.connection().disconnect(ClientLimit.OUTPUT_SOFT,
                    "omem=" + omem + " above " + soft + " bytes for " + (now - s.softSinceNanos()) / 1_000_000 + " ms");
        }
    }

    /** Closes the connections holding the most until all of them together are under maxmemory-clients. */
    void enforceMaxMemory() {
        long limit = config.maxMemoryClientsBytes();
        if (limit == 0 || !evicting.compareAndSet(false, true)) return;
        try {
            long total = clients.bufferBytes();
            if (total <= limit) return;
            record Held(ClientSession session, long bytes) {}
            List<Held> held = new ArrayList<>();
            for (ClientSession s : clients.sessions()) {
                long bytes = s.bufferBytes();
                if (bytes > 0) held.add(new Held(s, bytes));
            }
            held.sort(Comparator.comparingLong(Held::bytes).reversed());
            for (Held h : held) {
                if (total <= limit) break;
                h.session().closing(true); // counted out of the sum at once, though it closes on its own loop
                h.session().connection().disconnect(ClientLimit.MAXMEMORY_CLIENTS,
                        "held " + h.bytes() + " bytes; all clients held " + total + ", limit " + limit);
                total -= h.bytes();
            }
        } finally {
            evicting.set(false);
        }
    }
}
