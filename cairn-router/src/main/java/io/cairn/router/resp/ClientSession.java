package io.cairn.router.resp;

import java.net.SocketAddress;

/**
 * What the server remembers about one connection: its id, the name the client chose, and the
 * buffer sizes and activity the client limits look at. Commands run on the connection's event
 * loop; CLIENT LIST, metrics and the {@link ClientWatchdog} read from other threads, hence the
 * volatile fields. Only the connection's own handler writes them, except {@link #softSinceNanos}
 * (the watchdog's alone).
 */
final class ClientSession {
    /** How the rest of the server reaches the connection behind a session. */
    interface Connection {
        /** Reply bytes queued for the socket; readable from any thread. */
        long outputBufferBytes();

        /** Closes the connection for {@code limit}; callable from any thread, counted and logged once. */
        void disconnect(ClientLimit limit, String detail);
    }

    private static final Connection NONE = new Connection() {
        @Override
        public long outputBufferBytes() {
            return 0;
        }

        @Override
        public void disconnect(ClientLimit limit, String detail) {}
    };

    private final long id;
    private final SocketAddress remote;
    private final SocketAddress local;
    private final long createdNanos;
    private volatile String name;
    private boolean quitRequested;
    /** Whether this connection may run commands beyond AUTH, HELLO and QUIT ({@link RespAuth}). */
    private volatile boolean authenticated = true;
    private volatile String user = RespAuth.DEFAULT_USER;
    private volatile Connection connection = NONE;
    private volatile long queryBufferBytes;
    private volatile long lastInteractionNanos;
    private volatile boolean closing;
    private volatile boolean awaitingReplies;
    /** The commands queued since MULTI; null outside a transaction. Event loop only. */
    private Transactions.Queue transaction;
    /** What WATCH saw; null when nothing is watched. Event loop only. */
    private Transactions.Watch watch;
    /** Since when the output buffer has been above the soft limit; 0: it is not. Watchdog only. */
    private long softSinceNanos;

    ClientSession(long id, SocketAddress remote, SocketAddress local, long nowNanos) {
        this.id = id;
        this.remote = remote;
        this.local = local;
        this.createdNanos = nowNanos;
        this.lastInteractionNanos = nowNanos;
    }

    long id() {
        return id;
    }

    String address() {
        return address(remote);
    }

    /** Null until CLIENT SETNAME or HELLO SETNAME gives one. */
    String name() {
        return name;
    }

    void name(String name) {
        this.name = name == null || name.isEmpty() ? null : name;
    }

    boolean authenticated() {
        return authenticated;
    }

    /** Called on connect (false when a password is required) and by a successful AUTH. */
    void authenticated(boolean authenticated) {
        this.authenticated = authenticated;
    }

    String user() {
        return user;
    }

    void user(String user) {
        this.user = user;
    }

    /** The client's IP address without its port: what failed AUTH attempts are counted by. */
    String host() {
        if (remote instanceof java.net.InetSocketAddress inet && inet.getAddress() != null) return inet.getAddress().getHostAddress();
        return address(remote);
    }

    /** Set by QUIT: the connection closes once that reply has been written. */
    void requestQuit() {
        quitRequested = true;
    }

    boolean quitRequested() {
        return quitRequested;
    }

    Transactions.Queue transaction() {
        return transaction;
    }

    void transaction(Transactions.Queue queue) {
        this.transaction = queue;
    }

    Transactions.Watch watch() {
        return watch;
    }

    void watch(Transactions.Watch watch) {
        this.watch = watch;
    }

    void attach(Connection connection) {
        this.connection = connection;
    }

    Connection connection() {
        return connection;
    }

    long queryBufferBytes() {
        return queryBufferBytes;
    }

    void queryBufferBytes(long bytes) {
        queryBufferBytes = bytes;
    }

    long outputBufferBytes() {
        return connection.outputBufferBytes();
    }

    /** What maxmemory-clients counts for this client: 0 once it is closing (its memory is on the way out). */
    long bufferBytes() {
        return closing ? 0 : queryBufferBytes + outputBufferBytes();
    }

    void interacted(long nowNanos) {
        lastInteractionNanos = nowNanos;
    }

    long lastInteractionNanos() {
        return lastInteractionNanos;
    }

    /** Whether commands of this client are still being answered: such a client is not idle (as Redis spares blocked clients). */
    boolean awaitingReplies() {
        return awaitingReplies;
    }

    void awaitingReplies(boolean awaiting) {
        awaitingReplies = awaiting;
    }

    boolean closing() {
        return closing;
    }

    void closing(boolean closing) {
        this.closing = closing;
    }

    long softSinceNanos() {
        return softSinceNanos;
    }

    void softSinceNanos(long nanos) {
        softSinceNanos = nanos;
    }

    /**
     * One line in the format of Redis's CLIENT LIST / CLIENT INFO (a subset of the fields, in
     * Redis's order): age and idle in seconds, qbuf the unprocessed input, omem the queued replies,
     * tot-mem both.
     */
    String describe(long nowNanos) {
        long qbuf = queryBufferBytes;
        long omem = outputBufferBytes();
        return "id=" + id + " addr=" + address(remote) + " laddr=" + address(local)
                + " name=" + (name == null ? "" : name)
                + " age=" + (nowNanos - createdNanos) / 1_000_000_000L
                + " idle=" + (nowNanos - lastInteractionNanos) / 1_000_000_000L
                + " db=0 qbuf=" + qbuf + " omem=" + omem + " tot-mem=" + (qbuf + omem) + " user=" + user + " resp=2";
    }

    private static String address(SocketAddress address) {
        String text = String.valueOf(address);
        return text.startsWith("/") ? text.substring(1) : text;
    }
}
