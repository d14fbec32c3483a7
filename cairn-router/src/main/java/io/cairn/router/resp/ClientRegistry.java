package io.cairn.router.resp;

import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/** The open connections of one server, by id (for CLIENT LIST and INFO clients). */
final class ClientRegistry {
    private final AtomicLong nextId = new AtomicLong(1);
    private final ConcurrentSkipListMap<Long, ClientSession> open = new ConcurrentSkipListMap<>();

    ClientSession open(SocketAddress remote, SocketAddress local) {
        ClientSession session = new ClientSession(nextId.getAndIncrement(), remote, local);
        open.put(session.id(), session);
        return session;
    }

    void closed(ClientSession session) {
        open.remove(session.id());
    }

    int size() {
        return open.size();
    }

    List<ClientSession> sessions() {
        return new ArrayList<>(open.values());
    }
}
