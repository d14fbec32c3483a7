package io.cairn.router.resp;

/**
 * Settings of the RESP front end, declared once with their defaults and units; validated on
 * construction. Use {@link #builder()} and change only what differs from the defaults.
 *
 * @param host                    address to bind, e.g. "127.0.0.1" or "0.0.0.0"
 * @param port                    TCP port; 0 picks a free one (see {@link RespServer#port()})
 * @param eventLoopThreads        Netty I/O threads shared by all connections
 * @param maxKeyBytes             longest key a command may name
 * @param maxValueBytes           longest value SET, APPEND, ... may carry; checked before the backend
 * @param maxBulkBytes            longest bulk string the protocol accepts at all (Redis's
 *                                proto-max-bulk-len); longer is a protocol error that closes the
 *                                connection. Arguments between the key/value limits and this
 *                                are read and discarded without being buffered, then rejected
 * @param maxRequestBytes         sum of the bulk lengths of one command
 * @param maxArgs                 arguments per command, the command name included
 * @param maxInlineBytes          longest inline (non-RESP) command line
 * @param maxInFlightPerConnection commands a connection may have queued (sent, not yet
 *                                answered) before the server stops reading from it
 */
public record RespConfig(
        String host,
        int port,
        int eventLoopThreads,
        int maxKeyBytes,
        int maxValueBytes,
        int maxBulkBytes,
        long maxRequestBytes,
        int maxArgs,
        int maxInlineBytes,
        int maxInFlightPerConnection) {

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 6379;
    public static final int DEFAULT_EVENT_LOOP_THREADS = 2;
    public static final int DEFAULT_MAX_KEY_BYTES = 64 * 1024;
    public static final int DEFAULT_MAX_VALUE_BYTES = 16 * 1024 * 1024;
    /** Same as Redis's proto-max-bulk-len; also the ceiling of Netty's RedisDecoder. */
    public static final int DEFAULT_MAX_BULK_BYTES = 512 * 1024 * 1024;
    public static final long DEFAULT_MAX_REQUEST_BYTES = 1024L * 1024 * 1024;
    public static final int DEFAULT_MAX_ARGS = 1_048_576;
    /** Same as Redis's limit for inline commands. */
    public static final int DEFAULT_MAX_INLINE_BYTES = 64 * 1024;
    public static final int DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION = 1024;

    public RespConfig {
        if (host == null || host.isBlank()) throw new IllegalArgumentException("host must be given");
        requireRange("port", port, 0, 65_535);
        requireRange("eventLoopThreads", eventLoopThreads, 1, 256);
        requireRange("maxKeyBytes", maxKeyBytes, 1, DEFAULT_MAX_BULK_BYTES);
        requireRange("maxValueBytes", maxValueBytes, 1, DEFAULT_MAX_BULK_BYTES);
        requireRange("maxBulkBytes", maxBulkBytes, Math.max(maxKeyBytes, maxValueBytes), DEFAULT_MAX_BULK_BYTES);
        requireRange("maxRequestBytes", maxRequestBytes, maxBulkBytes, Long.MAX_VALUE);
        requireRange("maxArgs", maxArgs, 1, Integer.MAX_VALUE);
        requireRange("maxInlineBytes", maxInlineBytes, 16, DEFAULT_MAX_BULK_BYTES);
        requireRange("maxInFlightPerConnection", maxInFlightPerConnection, 1, 1 << 20);
    }

    public static RespConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Arguments longer than this are discarded while they stream in, never buffered. */
    int maxArgBytes() {
        return Math.max(maxKeyBytes, maxValueBytes);
    }

    private static void requireRange(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "], was " + value);
        }
    }

    /** Starts from the defaults above. */
    public static final class Builder {
        private String host = DEFAULT_HOST;
        private int port = DEFAULT_PORT;
        private int eventLoopThreads = DEFAULT_EVENT_LOOP_THREADS;
        private int maxKeyBytes = DEFAULT_MAX_KEY_BYTES;
        private int maxValueBytes = DEFAULT_MAX_VALUE_BYTES;
        private int maxBulkBytes = DEFAULT_MAX_BULK_BYTES;
        private long maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES;
        private int maxArgs = DEFAULT_MAX_ARGS;
        private int maxInlineBytes = DEFAULT_MAX_INLINE_BYTES;
        private int maxInFlightPerConnection = DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION;

        private Builder() {}

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder eventLoopThreads(int threads) {
            this.eventLoopThreads = threads;
            return this;
        }

        public Builder maxKeyBytes(int bytes) {
            this.maxKeyBytes = bytes;
            return this;
        }

        public Builder maxValueBytes(int bytes) {
            this.maxValueBytes = bytes;
            return this;
        }

        public Builder maxBulkBytes(int bytes) {
            this.maxBulkBytes = bytes;
            return this;
        }

        public Builder maxRequestBytes(long bytes) {
            this.maxRequestBytes = bytes;
            return this;
        }

        public Builder maxArgs(int args) {
            this.maxArgs = args;
            return this;
        }

        public Builder maxInlineBytes(int bytes) {
            this.maxInlineBytes = bytes;
            return this;
        }

        public Builder maxInFlightPerConnection(int commands) {
            this.maxInFlightPerConnection = commands;
            return this;
        }

        public RespConfig build() {
            return new RespConfig(host, port, eventLoopThreads, maxKeyBytes, maxValueBytes, maxBulkBytes,
                    maxRequestBytes, maxArgs, maxInlineBytes, maxInFlightPerConnection);
        }
    }
}
