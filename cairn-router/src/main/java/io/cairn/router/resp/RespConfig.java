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
 * @param maxClients              connections served at once (Redis's maxclients); the next one is
 *                                answered "-ERR max number of clients reached" and closed
 * @param idleTimeout             a connection that neither sent a command nor received a reply for
 *                                this long is closed (Redis's timeout); zero: never
 * @param queryBufferLimitBytes   input a connection may hold unprocessed: the request being read and
 *                                commands read but not yet started (Redis's client-query-buffer-limit);
 *                                past it the connection is closed
 * @param outputHighWaterBytes    reply bytes queued for a connection's socket (with an estimate of its
 *                                replies still being computed) at which the server stops reading its
 *                                commands; reading resumes below half of it (Netty's write-buffer
 *                                water marks). A client that does not read slows only itself
 * @param outputHardLimitBytes    reply bytes queued for one connection at which it is closed at once
 *                                (client-output-buffer-limit normal, hard); 0: no limit
 * @param outputSoftLimitBytes    reply bytes queued for one connection that close it when held for
 *                                {@code outputSoftLimit} without interruption (the soft limit); 0: none
 * @param outputSoftLimit         how long a connection may stay above the soft limit
 * @param maxMemoryClientsBytes   all connections' query and output buffers together (Redis's
 *                                maxmemory-clients); past it the connections holding the most are closed
 *                                until the sum is under it again; 0: no limit. Default: a share of the
 *                                JVM's maximum heap ({@link #DEFAULT_MAX_MEMORY_CLIENTS_HEAP_PERCENT})
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
        int maxInFlightPerConnection,
        int maxClients,
        java.time.Duration idleTimeout,
        long queryBufferLimitBytes,
        int outputHighWaterBytes,
        long outputHardLimitBytes,
        long outputSoftLimitBytes,
        java.time.Duration outputSoftLimit,
        long maxMemoryClientsBytes) {

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
    /** Same as Redis. */
    public static final int DEFAULT_MAX_CLIENTS = 10_000;
    /** Same as Redis: idle connections are kept (connection pools rely on it). */
    public static final java.time.Duration DEFAULT_IDLE_TIMEOUT = java.time.Duration.ZERO;
    /**
     * Redis allows 1 GB; four of the largest values here are plenty for any one request (an MSET of
     * several large values), and 10,000 clients cannot each claim a gigabyte.
     */
    public static final long DEFAULT_QUERY_BUFFER_LIMIT_BYTES = 64L << 20;
    /** Enough to keep a pipelining client's socket busy; Netty's own default is 64 KiB. */
    public static final int DEFAULT_OUTPUT_HIGH_WATER_BYTES = 256 << 10;
    /**
     * Redis's normal clients have no output limit (the cause of issue 28). Four of the largest
     * values: a client that reads its replies never comes near it, because reading pauses at the
     * high-water mark; one that stops reading with many large replies in flight is closed.
     */
    public static final long DEFAULT_OUTPUT_HARD_LIMIT_BYTES = 64L << 20;
    /** One of the largest values, held unread for a minute (Redis's pubsub class uses 8 MB for 60 s). */
    public static final long DEFAULT_OUTPUT_SOFT_LIMIT_BYTES = 16L << 20;
    public static final java.time.Duration DEFAULT_OUTPUT_SOFT_LIMIT = java.time.Duration.ofSeconds(60);
    /** maxmemory-clients default: this share of the JVM's maximum heap ({@code -Xmx}). */
    public static final int DEFAULT_MAX_MEMORY_CLIENTS_HEAP_PERCENT = 25;

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
        requireRange("maxClients", maxClients, 1, 1_000_000);
        if (idleTimeout == null || idleTimeout.isNegative()) throw new IllegalArgumentException("idleTimeout must be zero (none) or positive, was " + idleTimeout);
        requireRange("queryBufferLimitBytes", queryBufferLimitBytes, 2L * Math.max(maxKeyBytes, maxValueBytes), Long.MAX_VALUE);
        requireRange("outputHighWaterBytes", outputHighWaterBytes, 1024, 1 << 30);
        if (outputHardLimitBytes != 0) {
            requireRange("outputHardLimitBytes (0: no limit)", outputHardLimitBytes,
                    Math.max(2L * outputHighWaterBytes, maxValueBytes + 1L), Long.MAX_VALUE);
        }
        if (outputSoftLimitBytes != 0) {
            requireRange("outputSoftLimitBytes (0: no limit)", outputSoftLimitBytes, outputHighWaterBytes,
                    outputHardLimitBytes == 0 ? Long.MAX_VALUE : outputHardLimitBytes);
        }
        if (outputSoftLimit == null || outputSoftLimit.isNegative()) throw new IllegalArgumentException("outputSoftLimit must be zero or positive, was " + outputSoftLimit);
        if (maxMemoryClientsBytes != 0) {
            requireRange("maxMemoryClientsBytes (0: no limit)", maxMemoryClientsBytes, 2L * outputHighWaterBytes, Long.MAX_VALUE);
        }
    }

    /** maxmemory-clients as {@code percent} of this JVM's maximum heap. */
    public static long heapShareBytes(int percent) {
        requireRange("percent of the heap", percent, 0, 90);
        return Runtime.getRuntime().maxMemory() / 100 * percent;
    }

    /** The write-buffer low-water mark: reading resumes once a connection's queued replies are below it. */
    int outputLowWaterBytes() {
        return outputHighWaterBytes / 2;
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
        private int maxClients = DEFAULT_MAX_CLIENTS;
        private java.time.Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private long queryBufferLimitBytes = DEFAULT_QUERY_BUFFER_LIMIT_BYTES;
        private int outputHighWaterBytes = DEFAULT_OUTPUT_HIGH_WATER_BYTES;
        private long outputHardLimitBytes = DEFAULT_OUTPUT_HARD_LIMIT_BYTES;
        private long outputSoftLimitBytes = DEFAULT_OUTPUT_SOFT_LIMIT_BYTES;
        private java.time.Duration outputSoftLimit = DEFAULT_OUTPUT_SOFT_LIMIT;
        private long maxMemoryClientsBytes = heapShareBytes(DEFAULT_MAX_MEMORY_CLIENTS_HEAP_PERCENT);

        private Builder() {}

        public Builder maxClients(int clients) {
            this.maxClients = clients;
            return this;
        }

        public Builder idleTimeout(java.time.Duration timeout) {
            this.idleTimeout = timeout;
            return this;
        }

        public Builder queryBufferLimitBytes(long bytes) {
            this.queryBufferLimitBytes = bytes;
            return this;
        }

        public Builder outputHighWaterBytes(int bytes) {
            this.outputHighWaterBytes = bytes;
            return this;
        }

        /** client-output-buffer-limit normal: hard bytes, soft bytes, soft duration (0 bytes: none). */
        public Builder outputBufferLimit(long hardBytes, long softBytes, java.time.Duration soft) {
            this.outputHardLimitBytes = hardBytes;
            this.outputSoftLimitBytes = softBytes;
            this.outputSoftLimit = soft;
            return this;
        }

        public Builder maxMemoryClientsBytes(long bytes) {
            this.maxMemoryClientsBytes = bytes;
            return this;
        }

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
                    maxRequestBytes, maxArgs, maxInlineBytes, maxInFlightPerConnection, maxClients, idleTimeout,
                    queryBufferLimitBytes, outputHighWaterBytes, outputHardLimitBytes, outputSoftLimitBytes, outputSoftLimit,
                    maxMemoryClientsBytes);
        }
    }
}
