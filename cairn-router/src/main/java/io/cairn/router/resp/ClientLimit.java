package io.cairn.router.resp;

/**
 * The limits that close a client connection, named as Redis names the settings. Each one is
 * counted ({@link ClientMetrics#disconnected}) and logged once per connection it closes.
 */
public enum ClientLimit {
    /** Replies queued for the connection passed {@link RespConfig#outputHardLimitBytes()}. */
    OUTPUT_HARD("client-output-buffer-limit (hard)"),
    /** Replies queued stayed above {@link RespConfig#outputSoftLimitBytes()} for {@link RespConfig#outputSoftLimit()}. */
    OUTPUT_SOFT("client-output-buffer-limit (soft)"),
    /** Unprocessed input passed {@link RespConfig#queryBufferLimitBytes()}. */
    QUERY_BUFFER("client-query-buffer-limit"),
    /** No command and no reply for {@link RespConfig#idleTimeout()}. */
    IDLE_TIMEOUT("timeout"),
    /** All clients' buffers together passed {@link RespConfig#maxMemoryClientsBytes()}; this one held the most. */
    MAXMEMORY_CLIENTS("maxmemory-clients");

    private final String setting;

    ClientLimit(String setting) {
        this.setting = setting;
    }

    /** The Redis setting's name, e.g. "client-output-buffer-limit (hard)". */
    public String setting() {
        return setting;
    }

    /** A metric tag value, e.g. "output_hard". */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
