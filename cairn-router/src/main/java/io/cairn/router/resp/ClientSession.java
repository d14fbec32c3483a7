package io.cairn.router.resp;

import java.net.SocketAddress;

/**
 * What the server remembers about one connection: its id and the name the client chose.
 * Commands run on the connection's event loop; CLIENT LIST of another connection may read
 * from another thread, hence the volatile name.
 */
final class ClientSession {
    private final long id;
    private final SocketAddress remote;
    private final SocketAddress local;
    private volatile String name;
    private boolean quitRequested;

    ClientSession(long id, SocketAddress remote, SocketAddress local) {
        this.id = id;
        this.remote = remote;
        this.local = local;
    }

    long id() {
        return id;
    }

    /** Null until CLIENT SETNAME or HELLO SETNAME gives one. */
    String name() {
        return name;
    }

    void name(String name) {
        this.name = name == null || name.isEmpty() ? null : name;
    }

    /** Set by QUIT: the connection closes once that reply has been written. */
    void requestQuit() {
        quitRequested = true;
    }

    boolean quitRequested() {
        return quitRequested;
    }

    /** One line in the format of Redis's CLIENT LIST / CLIENT INFO (a subset of the fields). */
    String describe() {
        return "id=" + id + " addr=" + address(remote) + " laddr=" + address(local)
                + " name=" + (name == null ? "" : name) + " db=0 resp=2";
    }

    private static String address(SocketAddress address) {
        String text = String.valueOf(address);
        return text.startsWith("/") ? text.substring(1) : text;
    }
}
