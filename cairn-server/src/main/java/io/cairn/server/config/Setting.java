package io.cairn.server.config;

import io.cairn.router.resp.RespAuth;
import io.cairn.router.resp.RespConfig;
import io.cairn.storage.BucketArchives;
import io.cairn.storage.DataPlaneMovePort;
import io.cairn.storage.DoubledVerifier;
import io.cairn.storage.ReplicationEngine;
import io.cairn.storage.StorageConfig;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every setting of the config file's optional sections, declared once: its section and name, type
 * (that of its default), default, unit, bounds and meaning. {@link ConfigLoader} fills in the defaults
 * and checks the bounds of a file, the settings records check their values against the same bounds
 * (so run-time changes, {@code cairn config set}, meet them too), {@code cairn config show} prints the
 * meaning, and a test holds docs/operations.md's example to the defaults here.
 *
 * <p>A default that a lower module uses on its own (storage, router, archive) is that module's
 * constant, named here, so each number is written once. Relations between settings (a client limit
 * that must fit the largest value, a TLS key that goes with its certificate) stay in the records.
 */
public enum Setting {
    STORAGE_MAX_VALUE_BYTES("storage", "maxValueBytes", StorageConfig.DEFAULT_MAX_VALUE_BYTES, "bytes", 1, 512L << 20, "largest value stored"),
    STORAGE_ELECTION_TIMEOUT_MS("storage", "electionTimeoutMs", StorageConfig.DEFAULT_ELECTION_TIMEOUT_MIN.toMillis(), "ms", 100, Long.MAX_VALUE,
            "Raft election timeout lower bound (the upper is twice it)"),
    STORAGE_SNAPSHOT_EVERY_ENTRIES("storage", "snapshotEveryEntries", StorageConfig.DEFAULT_SNAPSHOT_EVERY_ENTRIES, "entries", 100, Long.MAX_VALUE,
            "log entries between snapshots"),
    STORAGE_TOMBSTONE_RETENTION_MS("storage", "tombstoneRetentionMs", 24 * 3_600_000L, "ms", StorageConfig.MIN_TOMBSTONE_RETENTION_MS, Long.MAX_VALUE,
            "SENT and GARBAGE tombstones stay visible to discovery this long; at least the longest move call, so a late chunk still meets its"
                    + " bucket's fence (docs/discovery.md)"),
    STORAGE_DOUBLED_SELF_CHECK("storage", "doubledSelfCheckBucketsPerSecond", DoubledVerifier.Settings.DEFAULT_SELF_CHECK_BUCKETS_PER_SECOND,
            "buckets per second", 0, 100_000, "the leader checks its writable buckets for doubles (0: only when a router asks)"),
    STORAGE_QUARANTINE_RETENTION_HOURS("storage", "quarantineRetentionHours", DoubledVerifier.Settings.DEFAULT_QUARANTINE_RETENTION_HOURS, "hours",
            0, Long.MAX_VALUE, "the losing copy of a resolved doubled bucket is kept (exportable) this long"),
    STORAGE_ENGINE("storage", "engine", ReplicationEngine.defaultEngine().configName(), "", "the Raft engine of every replicaset: microraft or ratis"),

    ROUTER_REQUEST_TIMEOUT_MS("router", "requestTimeoutMs", 10_000L, "ms", 100, Long.MAX_VALUE, "deadline of one client request, retries included"),
    ROUTER_DISCOVERY_INTERVAL_MS("router", "discoveryIntervalMs", 1_000L, "ms", 10, 3_600_000,
            "each router's discovery round period once every bucket's owner is known"),
    ROUTER_MAX_BATCH_OPS("router", "maxBatchOps", 1024, "operations", "group commit: most operations per Raft entry"),
    ROUTER_MAX_BATCH_BYTES("router", "maxBatchBytes", 4 << 20, "bytes", "group commit: most bytes per Raft entry"),
    ROUTER_MAX_INFLIGHT_BATCHES("router", "maxInflightBatches", 1, "entries", 1, 64,
            "group commit: entries in flight per replicaset (1: largest entries, least CPU)"),
    ROUTER_FOLLOWER_READS("router", "followerReads", false, "",
            "reads from a member other than the leader that is caught up enough (not linearizable); false: the leader answers"),
    ROUTER_MAX_VALUE_BYTES("router", "maxValueBytes", StorageConfig.DEFAULT_MAX_VALUE_BYTES, "bytes", 1, 512L << 20, "largest value a client may send"),
    ROUTER_MAX_KEY_BYTES("router", "maxKeyBytes", RespConfig.DEFAULT_MAX_KEY_BYTES, "bytes", 1, 64L << 20, "largest key a client may send"),
    ROUTER_VERIFY_DOUBLED("router", "verifyDoubled", true, "", "ask replicaset leaders to verify suspected doubled buckets (once per discovery round)"),
    ROUTER_MAX_CLIENTS("router", "maxClients", RespConfig.DEFAULT_MAX_CLIENTS, "connections", "RESP connections at once (Redis's maxclients)"),
    ROUTER_IDLE_TIMEOUT_MS("router", "idleTimeoutMs", RespConfig.DEFAULT_IDLE_TIMEOUT.toMillis(), "ms", 0, Long.MAX_VALUE,
            "close a client idle this long (Redis's timeout); 0: never"),
    ROUTER_QUERY_BUFFER_LIMIT_BYTES("router", "queryBufferLimitBytes", RespConfig.DEFAULT_QUERY_BUFFER_LIMIT_BYTES, "bytes",
            "unprocessed input per client (client-query-buffer-limit); at least 2 x the largest key or value"),
    ROUTER_OUTPUT_HIGH_WATER_BYTES("router", "outputHighWaterBytes", RespConfig.DEFAULT_OUTPUT_HIGH_WATER_BYTES, "bytes",
            "a client's queued replies at which its commands stop being read until they drain"),
    ROUTER_OUTPUT_HARD_LIMIT_BYTES("router", "outputHardLimitBytes", RespConfig.DEFAULT_OUTPUT_HARD_LIMIT_BYTES, "bytes",
            "client-output-buffer-limit normal hard: close at once past it (0: none)"),
    ROUTER_OUTPUT_SOFT_LIMIT_BYTES("router", "outputSoftLimitBytes", RespConfig.DEFAULT_OUTPUT_SOFT_LIMIT_BYTES, "bytes",
            "client-output-buffer-limit normal soft: close when above it for outputSoftLimitMs (0: none)"),
    ROUTER_OUTPUT_SOFT_LIMIT_MS("router", "outputSoftLimitMs", RespConfig.DEFAULT_OUTPUT_SOFT_LIMIT.toMillis(), "ms", 0, Long.MAX_VALUE,
            "client-output-buffer-limit normal soft seconds"),
    ROUTER_CLIENT_MEMORY_HEAP_PERCENT("router", "clientMemoryHeapPercent", RespConfig.DEFAULT_MAX_MEMORY_CLIENTS_HEAP_PERCENT, "percent", 0, 90,
            "maxmemory-clients: all clients' buffers together, as a share of the router's -Xmx (0: none)"),

    SECURITY_REQUIREPASS("security", "requirepass", "", "", "the RESP default user's password (Redis's requirepass); empty: no password"),
    SECURITY_AUTH_MAX_FAILURES("security", "authMaxFailures", RespAuth.DEFAULT_MAX_FAILURES_PER_WINDOW, "attempts", 1, 1_000_000,
            "failed AUTH attempts per client address per window; then every AUTH from it is refused"),
    SECURITY_AUTH_FAILURE_WINDOW_MS("security", "authFailureWindowMs", RespAuth.DEFAULT_FAILURE_WINDOW.toMillis(), "ms", 1, Long.MAX_VALUE,
            "the window of authMaxFailures"),
    SECURITY_ADMIN_TOKEN("security", "adminToken", "", "", "bearer token admin changes need; empty: the admin ports are open to anyone"),
    SECURITY_ADMIN_TOKEN_FILE("security", "adminTokenFile", "", "", "or: a file holding it (relative to the config file)"),
    SECURITY_ADMIN_READ_OPEN("security", "adminReadOpen", true, "", "with a token: GET views stay open; false: they need it too"),
    SECURITY_TLS_CERT_FILE("security", "tlsCertFile", "", "", "PEM certificate of the routers' RESP port: set, that port speaks TLS only"),
    SECURITY_TLS_KEY_FILE("security", "tlsKeyFile", "", "", "its PKCS#8 PEM key"),
    SECURITY_TLS_CA_FILE("security", "tlsCaFile", "", "", "a CA of client certificates; empty: none asked for"),
    SECURITY_TLS_AUTH_CLIENTS("security", "tlsAuthClients", true, "", "with tlsCaFile: a client certificate is required (false: only asked for)"),
    SECURITY_INTERNAL_TLS("security", "internalTls", Map.of("certFile", "", "keyFile", "", "caFile", "", "adminClientCerts", true), "",
            "TLS between Cairn's processes: certFile, keyFile, caFile (all or none), adminClientCerts (docs/security.md)"),

    REBALANCER_AUTO("rebalancer", "auto", true, "", "move buckets by weight automatically; manual moves work either way"),
    REBALANCER_THRESHOLD_PERCENT("rebalancer", "thresholdPercent", 1.0, "percent", "no automatic moves while the disbalance is at or below this"),
    REBALANCER_MAX_SENDING("rebalancer", "maxSendingPerReplicaset", 32, "moves", "concurrent moves out of one replicaset"),
    REBALANCER_MAX_RECEIVING("rebalancer", "maxReceivingPerReplicaset", 64, "moves", "concurrent moves into one replicaset"),
    REBALANCER_MAX_MOVES_PER_ROUND("rebalancer", "maxMovesPerRound", 128, "moves", "moves one planning round may start"),
    REBALANCER_CHUNK_KEYS("rebalancer", "chunkKeys", 1_000, "keys", 1, 100_000, "keys per transfer chunk (one Raft entry on the destination)"),
    REBALANCER_CHUNK_BYTES("rebalancer", "chunkBytes", 1 << 20, "bytes", 1024, 32L << 20, "bytes per transfer chunk"),
    REBALANCER_ROUND_INTERVAL_MS("rebalancer", "roundIntervalMs", 1_000L, "ms", 10, Long.MAX_VALUE, "between two planning rounds"),
    REBALANCER_COPY_AHEAD("rebalancer", "copyAhead", true, "", "copy a bucket while it still serves writes; hold writes only for the hand-over"),
    REBALANCER_MAX_BYTES_PER_SECOND("rebalancer", "maxBytesPerSecond", 0L, "bytes per second", 0, Long.MAX_VALUE,
            "bucket data copied per second over all moves (0: no limit)"),
    REBALANCER_STEP_LATENCY_TARGET_MS("rebalancer", "stepLatencyTargetMs", 10L, "ms", 0, 60_000,
            "the copy slows down while move steps take longer than this to commit, at the median (0: off)"),
    REBALANCER_ENTRIES_IN_FLIGHT("rebalancer", "entriesInFlight", DataPlaneMovePort.EntryLimits.DEFAULTS.entriesInFlight(), "entries", 1, 64,
            "move entries (grouped move commands) outstanding per replicaset"),
    REBALANCER_MAX_COMMANDS_PER_ENTRY("rebalancer", "maxCommandsPerEntry", DataPlaneMovePort.EntryLimits.DEFAULTS.maxCommandsPerEntry(), "commands",
            1, 65_536, "move commands grouped into one Raft entry (1: no grouping)"),
    REBALANCER_MAX_ENTRY_BYTES("rebalancer", "maxEntryBytes", DataPlaneMovePort.EntryLimits.DEFAULTS.maxEntryBytes(), "bytes", 1, 64L << 20,
            "chunk bytes grouped into one move entry (a larger chunk still goes, alone)"),

    ARCHIVE_STORE("archive", "store", ArchiveSettings.FOLDER, "", "folder, s3, or none (the archive tier is off)"),
    ARCHIVE_FOLDER("archive", "folder", "", "", "the folder store's root, relative to dataDir; empty: <dataDir>/archive"),
    ARCHIVE_PREFIX("archive", "prefix", "cairn", "", "a replicaset's objects live under <prefix>/<replicaset>/; one cluster per prefix"),
    ARCHIVE_S3_ENDPOINT("archive", "s3Endpoint", "", "", "empty: AWS itself; else MinIO, Ceph RGW, s3proxy (http://host:port)"),
    ARCHIVE_S3_REGION("archive", "s3Region", "us-east-1", "", "the S3 region"),
    ARCHIVE_S3_BUCKET("archive", "s3Bucket", "", "", "required with store: s3 (created by the operator)"),
    ARCHIVE_S3_PATH_STYLE("archive", "s3PathStyle", true, "", "path-style S3 addresses"),
    ARCHIVE_S3_ACCESS_KEY_ID("archive", "s3AccessKeyId", "", "", "both empty: the AWS default credentials chain"),
    ARCHIVE_S3_SECRET_ACCESS_KEY("archive", "s3SecretAccessKey", "", "", "its secret"),
    ARCHIVE_CALLS_PER_SECOND("archive", "callsPerSecond", 0L, "calls per second",
            "object-store calls per second per process, archive tier (0: no limit)"),
    ARCHIVE_BYTES_PER_SECOND("archive", "bytesPerSecond", 0L, "bytes per second",
            "object-store bytes per second per process, archive tier (0: no limit)"),
    ARCHIVE_AFTER_IDLE_MS("archive", "afterIdleMs", 0L, "ms",
            "archive a bucket neither read nor written this long (0: only by cairn bucket archive); unless given: 0 with store: folder, "
                    + ArchiveSettings.DEFAULT_S3_AFTER_IDLE_MS + " with store: s3"),
    ARCHIVE_MAX_QUEUED_RESTORES("archive", "maxQueuedRestores", BucketArchives.Settings.DEFAULT_MAX_QUEUED_RESTORES, "buckets",
            "archived buckets restoring at once per leader; past it reads get TRYAGAIN"),
    ARCHIVE_RESTORE_THREADS("archive", "restoreThreads", BucketArchives.Settings.DEFAULT_RESTORE_THREADS, "threads", "restore workers per leader"),
    ARCHIVE_SWEEP_AGE_GUARD_MS("archive", "sweepAgeGuardMs", ArchiveSettings.DEFAULT_SWEEP_AGE_GUARD_MS, "ms",
            "the sweeper quarantines an object no record names only when older, and deletes it after as long again"),
    ARCHIVE_SWEEP_INTERVAL_MS("archive", "sweepIntervalMs", ArchiveSettings.DEFAULT_SWEEP_INTERVAL_MS, "ms",
            "between two sweeps of a replicaset's prefix by its leader (0: off)"),
    ARCHIVE_EAGER_RESTORE("archive", "eagerRestore", false, "",
            "a bucket adopted archived is restored by its new owner in the background once served, not on first access");

    private final String section;
    private final String name;
    private final Object defaultValue;
    private final String unit;
    private final long min;
    private final long max;
    private final boolean bounded;
    private final String meaning;

    /** A number with its bounds (inclusive). */
    Setting(String section, String name, Object defaultValue, String unit, long min, long max, String meaning) {
        this(section, name, defaultValue, unit, min, max, true, meaning);
    }

    /** A setting this table does not bound: a flag, a text, or a number checked elsewhere (with the others it must fit). */
    Setting(String section, String name, Object defaultValue, String unit, String meaning) {
        this(section, name, defaultValue, unit, Long.MIN_VALUE, Long.MAX_VALUE, false, meaning);
    }

    Setting(String section, String name, Object defaultValue, String unit, long min, long max, boolean bounded, String meaning) {
        this.section = section;
        this.name = name;
        this.defaultValue = defaultValue;
        this.unit = unit;
        this.min = min;
        this.max = max;
        this.bounded = bounded;
        this.meaning = meaning;
    }

    public String section() {
        return section;
    }

    /** The name inside its section, as in the config file. */
    public String settingName() {
        return name;
    }

    /** {@code section.name}, as {@code cairn config} and error messages spell it. */
    public String key() {
        return section + "." + name;
    }

    public Object defaultValue() {
        return defaultValue;
    }

    /** The value's type: Boolean, Integer, Long, Double, String or Map (a nested mapping). */
    public Class<?> type() {
        return defaultValue instanceof Map<?, ?> ? Map.class : defaultValue.getClass();
    }

    public String unit() {
        return unit;
    }

    public String meaning() {
        return meaning;
    }

    /** The bounds in words ("1..100000", "at least 10"), or "" when this table bounds nothing. */
    public String bounds() {
        if (!bounded) return "";
        if (max == Long.MAX_VALUE) return "at least " + min;
        return min + ".." + max;
    }

    /**
     * Checks a value against this setting's bounds.
     *
     * @throws IllegalArgumentException naming the setting, its bounds and the value
     */
    public long check(long value) {
        if (bounded && (value < min || value > max)) {
            throw new IllegalArgumentException(key() + " must be " + bounds() + (unit.isEmpty() ? "" : " " + unit) + ", was " + value);
        }
        return value;
    }

    /** The problem with a value given in a file (out of bounds), or null. */
    String problem(Object value) {
        if (!bounded || !(value instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) return null;
        try {
            check(n.longValue());
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** The setting named {@code key} ({@code section.name}), or null. */
    public static Setting of(String key) {
        for (Setting s : values()) if (s.key().equals(key)) return s;
        return null;
    }

    /** Section -> name -> default, in this table's order. */
    static Map<String, Map<String, Object>> defaultsBySection() {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        for (Setting s : values()) out.computeIfAbsent(s.section, k -> new LinkedHashMap<>()).put(s.name, s.defaultValue);
        return out;
    }
}
