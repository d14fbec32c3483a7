package io.cairn.router.resp;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The open connections of one server, by id (for CLIENT LIST, INFO clients and the client
 * limits). Admission is counted separately from the map so that maxclients holds exactly even
 * when two event loops accept at once.
 */
final class ClientRegistry {
    private final AtomicLong nextId = new AtomicLong(1);
    private final AtomicInteger admitted = new AtomicInteger();
    private final ConcurrentSkipListMap<Long, ClientSession> open = new ConcurrentSkipListMap<>();
    private final LongSupplier nanoTime;

    ClientRegistry(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    ClientRegistry() {
        this(System::nanoTime);
    }

    long nanoTime() {
        return nanoTime.getAsLong();
    }

    /** Reserves a place for one more connection; false when {@code maxClients} are open. */
    boolean tryAdmit(int maxClients) {
        while (true) {
            int n = admitted.get();
            if (n >= maxClients) return false;
            if (admitted.compareAndSet(n, n + 1)) return true;
        }
    }

    /** Registers an admitted connection. */
    ClientSession open(SocketAddress remote, SocketAddress local) {
        ClientSession session = new ClientSession(nextId.getAndIncrement(), remote, local, nanoTime());
        open.put(session.id(), session);
        return session;
    }

    /** Gives back the place of an admitted connection (registered or not). */
    void closed(ClientSession session) {
        if (session != null) open.remove(session.id());
        admitted.decrementAndGet();
    }

    int size() {
        return open.size();
    }

    List<ClientSession> sessions() {
        return new ArrayList<>(open.values());
    }

    /** Query and output buffers of every connection not already closing. */
    long bufferBytes() {
        long sum = 0;
        for (ClientSession s : open.values()) sum += s.bufferBytes();
        return sum;
    }
}
