package io.cairn.server.config;

import io.cairn.core.move.SendMove;
import io.cairn.core.rebalance.PlanLimits;
import io.cairn.core.tls.ClusterTls;
import io.cairn.core.tls.ReloadingFiles;
import io.cairn.core.topology.Topology;
import io.cairn.router.RouterConfig;
import io.cairn.router.resp.RespAuth;
import io.cairn.router.resp.RespConfig;
import io.cairn.router.resp.RespTls;
import io.cairn.server.admin.AdminAccess;
import io.cairn.server.move.MoverService;
import io.cairn.storage.DataPlaneMovePort;
import io.cairn.storage.DoubledVerifier;
import io.cairn.storage.ReplicationEngine;
import io.cairn.storage.StorageConfig;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One validated cluster config file: the initial topology plus per-role settings. Every
 * process of a cluster starts from the same file; each picks its own node by id.
 *
 * @param dataDir base folder; node {@code X} keeps its data in {@code dataDir/X}
 */
public record ClusterConfig(Path source, Path dataDir, Topology topology, StorageSettings storage,
                            RouterSettings router, RebalancerSettings rebalancer, ArchiveSettings archive, SecuritySettings security) {

    /** A config with the archive tier's defaults (a folder under {@code dataDir}, idle archiving off) and no {@code security:} section. */
    public ClusterConfig(Path source, Path dataDir, Topology topology, StorageSettings storage, RouterSettings router, RebalancerSettings rebalancer) {
        this(source, dataDir, topology, storage, router, rebalancer, ArchiveSettings.DEFAULTS, SecuritySettings.NONE);
    }

    /**
     * Who may use the client and admin ports (issue 26, docs/security.md).
     *
     * @param requirepass             the RESP default user's password (Redis's requirepass); empty: none
     * @param authMaxFailures         failed AUTH attempts a client address may make per window before
     *                                every AUTH from it is refused until the window ends
     * @param authFailureWindowMs     that window
     * @param adminToken              the bearer token admin changes need; empty: the admin port is open.
     *                                After loading, also the token read from {@code adminTokenFile}
     * @param adminTokenFile          a file holding the token (relative to the config file), instead of
     *                                {@code adminToken}; the CLI reads it the same way
     * @param adminReadOpen           with a token, read-only views (GET /info, /metrics, /health, ...)
     *                                stay open; false: they need the token too
     * @param tlsCertFile             PEM certificate (chain) of the routers' RESP port: set, the port speaks TLS
     *                                only (relative to the config file; Redis's tls-cert-file)
     * @param tlsKeyFile              its PKCS#8 PEM key (tls-key-file)
     * @param tlsCaFile               a CA whose certificates clients may present (tls-ca-cert-file); empty: none asked
     * @param tlsAuthClients          with a CA, a client certificate is required (true) or only asked for (false)
     * @param internalTls             TLS between Cairn processes and on the admin ports ({@link InternalTlsSettings})
     */
    public record SecuritySettings(String requirepass, int authMaxFailures, long authFailureWindowMs, String adminToken,
                                   String adminTokenFile, boolean adminReadOpen, String tlsCertFile, String tlsKeyFile,
                                   String tlsCaFile, boolean tlsAuthClients, InternalTlsSettings internalTls) {
        /** The longest admin token file read. */
        public static final int MAX_TOKEN_FILE_BYTES = 4096;
        public static final SecuritySettings NONE = new SecuritySettings("", RespAuth.DEFAULT_MAX_FAILURES_PER_WINDOW,
                RespAuth.DEFAULT_FAILURE_WINDOW.toMillis(), "", "", true, "", "", "", true,
                InternalTlsSettings.NONE);

        public SecuritySettings {
            requirepass = requirepass == null ? "" : requirepass;
            adminToken = adminToken == null ? "" : adminToken.trim();
            adminTokenFile = adminTokenFile == null ? "" : adminTokenFile;
            tlsCertFile = tlsCertFile == null ? "" : tlsCertFile;
            tlsKeyFile = tlsKeyFile == null ? "" : tlsKeyFile;
            tlsCaFile = tlsCaFile == null ? "" : tlsCaFile;
            internalTls = internalTls == null ? InternalTlsSettings.NONE : internalTls;
            if (tlsCertFile.isEmpty() != tlsKeyFile.isEmpty()) {
                throw new IllegalArgumentException("security.tlsCertFile and security.tlsKeyFile go together: give both or neither");
            }
            if (!tlsCaFile.isEmpty() && tlsCertFile.isEmpty()) {
                throw new IllegalArgumentException("security.tlsCaFile needs security.tlsCertFile and tlsKeyFile (TLS on the RESP port)");
            }
            Setting.SECURITY_AUTH_MAX_FAILURES.check(authMaxFailures);
            Setting.SECURITY_AUTH_FAILURE_WINDOW_MS.check(authFailureWindowMs);
        }

        /** TLS for the RESP port, files relative to {@code configDir}; null when not configured. */
        public RespTls respTls(Path configDir) {
            if (tlsCertFile.isEmpty()) return null;
            return RespTls.load(new RespTls.Certificates(configDir.resolve(tlsCertFile),
                    configDir.resolve(tlsKeyFile), tlsCaFile.isEmpty() ? null : configDir.resolve(tlsCaFile), tlsAuthClients));
        }

        /** A fresh RESP access policy from these settings (one per RESP server). */
        public RespAuth respAuth() {
            return RespAuth.withPassword(requirepass, authMaxFailures, Duration.ofMillis(authFailureWindowMs),
                    System::nanoTime);
        }

        /** The admin port's policy. */
        public AdminAccess adminAccess() {
            return new AdminAccess(adminToken.isEmpty() ? null : adminToken, adminReadOpen);
        }

        /** The same settings with the token read from {@code adminTokenFile}. */
        SecuritySettings withTokenFrom(Path configDir) {
            if (adminTokenFile.isEmpty()) return this;
            if (!adminToken.isEmpty()) throw new IllegalArgumentException("security: give adminToken or adminTokenFile, not both");
            Path file = configDir.resolve(adminTokenFile);
            String token;
            try {
                // a token is a line: anything else (a device, a big file named by mistake) is refused unread
                if (!Files.isRegularFile(file) || Files.size(file) > MAX_TOKEN_FILE_BYTES) {
                    throw new IllegalArgumentException("security.adminTokenFile: " + file + " is not a file of at most "
                            + MAX_TOKEN_FILE_BYTES + " bytes");
                }
                token = Files.readString(file).trim();
            } catch (IOException e) {
                throw new IllegalArgumentException("security.adminTokenFile: cannot read " + file + " (" + e.getMessage() + ")");
            }
            if (token.isEmpty()) throw new IllegalArgumentException("security.adminTokenFile: " + file + " is empty");
            return new SecuritySettings(requirepass, authMaxFailures, authFailureWindowMs, token, adminTokenFile, adminReadOpen,
                    tlsCertFile, tlsKeyFile, tlsCaFile, tlsAuthClients, internalTls);
        }

        /** Never the password or the token: configs end up in logs. */
        @Override
        public String toString() {
            return "SecuritySettings[requirepass=" + (requirepass.isEmpty() ? "none" : "set") + ", authMaxFailures=" + authMaxFailures
                    + ", authFailureWindowMs=" + authFailureWindowMs + ", adminToken=" + (adminToken.isEmpty() ? "none" : "set")
                    + ", adminTokenFile=" + adminTokenFile + ", adminReadOpen=" + adminReadOpen + ", tlsCertFile=" + tlsCertFile
                    + ", tlsCaFile=" + tlsCaFile + ", tlsAuthClients=" + tlsAuthClients + ", internalTls=" + internalTls + "]";
        }
    }

    /**
     * TLS between Cairn processes (issue 26 item 2, {@link io.cairn.core.tls.ClusterTls}): every storage Raft
     * and data-plane port, the coordinators' Raft port and every admin port speak TLS with mutual
     * authentication by the cluster CA. Files are relative to the config file; each host keeps its own
     * certificate and key under the same names. All three or none (plain TCP, the default).
     *
     * @param certFile         this process's PEM certificate (chain), signed by the cluster CA
     * @param keyFile          its unencrypted PKCS#8 PEM key
     * @param caFile           the cluster CA's PEM certificate: peers must present a certificate it signed
     * @param adminClientCerts the admin ports require a client certificate too (true); false lets
     *                         browsers and scrapers without one in (the admin token still guards changes)
     */
    public record InternalTlsSettings(String certFile, String keyFile, String caFile, Boolean adminClientCerts) {
        public static final InternalTlsSettings NONE = new InternalTlsSettings("", "", "", true);

        public InternalTlsSettings {
            certFile = certFile == null ? "" : certFile;
            keyFile = keyFile == null ? "" : keyFile;
            caFile = caFile == null ? "" : caFile;
            adminClientCerts = adminClientCerts == null || adminClientCerts; // a mapping without the key keeps the default
            int given = (certFile.isEmpty() ? 0 : 1) + (keyFile.isEmpty() ? 0 : 1) + (caFile.isEmpty() ? 0 : 1);
            if (given != 0 && given != 3) {
                throw new IllegalArgumentException("security.internalTls needs certFile, keyFile and caFile together (or none for plain TCP)");
            }
        }

        public boolean enabled() {
            return !certFile.isEmpty();
        }

        /**
         * Loads and checks the files (relative to {@code configDir}); null when not enabled.
         *
         * @throws IllegalArgumentException starting "security.internalTls:" and naming the file at fault
         */
        public ClusterTls load(Path configDir) {
            if (!enabled()) return null;
            var files = new ClusterTls.Files(configDir.resolve(certFile), configDir.resolve(keyFile), configDir.resolve(caFile));
            try {
                return ClusterTls.load(files, new ReloadingFiles.Events() {
                    @Override
                    public void reloaded(Path first) {
                        LoggerFactory.getLogger(InternalTlsSettings.class).info("cluster TLS: certificates reloaded from {}", first);
                    }

                    @Override
                    public void failed(String why) {
                        LoggerFactory.getLogger(InternalTlsSettings.class)
                                .warn("cluster TLS: changed certificate files do not load ({}); new connections keep the previous ones", why);
                    }
                });
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("security.internalTls: " + e.getMessage());
            }
        }
    }

    /**
     * Storage node settings (see {@link StorageConfig}).
     *
     * @param tombstoneRetentionMs how long SENT and GARBAGE tombstones stay visible to discovery
     *                             before the leader collects them (a router away longer resyncs once)
     * @param doubledSelfCheckBucketsPerSecond writable buckets the leader checks for doubles per second (0: only when a router asks)
     * @param quarantineRetentionHours         a quarantined copy of a resolved doubled bucket is kept this long, then may be dropped
     * @param engine                           the Raft engine of every replicaset: ratis or microraft ({@link io.cairn.storage.ReplicationEngine})
     */
    public record StorageSettings(int maxValueBytes, long electionTimeoutMs, long snapshotEveryEntries, long tombstoneRetentionMs,
                                  int doubledSelfCheckBucketsPerSecond, long quarantineRetentionHours, String engine) {
        public static final long DEFAULT_TOMBSTONE_RETENTION_MS = (Long) Setting.STORAGE_TOMBSTONE_RETENTION_MS.defaultValue();

        public StorageSettings {
            Setting.STORAGE_MAX_VALUE_BYTES.check(maxValueBytes);
            Setting.STORAGE_TOMBSTONE_RETENTION_MS.check(tombstoneRetentionMs);
            Setting.STORAGE_DOUBLED_SELF_CHECK.check(doubledSelfCheckBucketsPerSecond);
            Setting.STORAGE_QUARANTINE_RETENTION_HOURS.check(quarantineRetentionHours);
            ReplicationEngine.parse(engine);
        }

        public DoubledVerifier.Settings doubledVerifier() {
            return new DoubledVerifier.Settings(doubledSelfCheckBucketsPerSecond, 256, 200,
                    Duration.ofHours(quarantineRetentionHours));
        }

        public StorageConfig forNode(Path nodeDir) {
            return new StorageConfig(nodeDir, maxValueBytes, Duration.ofMillis(electionTimeoutMs), snapshotEveryEntries,
                    StorageConfig.DEFAULT_LOG_SEGMENT_BYTES, ReplicationEngine.parse(engine));
        }
    }

    /**
     * Router settings (see {@link RouterConfig}) plus the RESP limits (see {@link RespConfig}, issue 28).
     *
     * @param verifyDoubled           ask replicaset leaders to verify suspected doubled buckets once per discovery round
     * @param maxClients              Redis's maxclients
     * @param idleTimeoutMs           Redis's timeout (in ms here); 0: idle clients are kept
     * @param queryBufferLimitBytes   Redis's client-query-buffer-limit
     * @param outputHighWaterBytes    a client's queued reply bytes at which its commands stop being read
     * @param outputHardLimitBytes    client-output-buffer-limit normal, hard (0: none)
     * @param outputSoftLimitBytes    client-output-buffer-limit normal, soft (0: none)
     * @param outputSoftLimitMs       client-output-buffer-limit normal, soft seconds (in ms here)
     * @param clientMemoryHeapPercent maxmemory-clients as a share of the router JVM's maximum heap (0: none)
     */
    public record RouterSettings(long requestTimeoutMs, long discoveryIntervalMs, int maxBatchOps, int maxBatchBytes,
                                 int maxInflightBatches, boolean followerReads, int maxValueBytes, int maxKeyBytes,
                                 boolean verifyDoubled, int maxClients, long idleTimeoutMs, long queryBufferLimitBytes,
                                 int outputHighWaterBytes, long outputHardLimitBytes, long outputSoftLimitBytes,
                                 long outputSoftLimitMs, int clientMemoryHeapPercent) {
        public RouterSettings {
            Setting.ROUTER_DISCOVERY_INTERVAL_MS.check(discoveryIntervalMs);
            Setting.ROUTER_MAX_VALUE_BYTES.check(maxValueBytes);
            Setting.ROUTER_MAX_KEY_BYTES.check(maxKeyBytes);
            Setting.ROUTER_IDLE_TIMEOUT_MS.check(idleTimeoutMs);
            Setting.ROUTER_OUTPUT_SOFT_LIMIT_MS.check(outputSoftLimitMs);
            Setting.ROUTER_CLIENT_MEMORY_HEAP_PERCENT.check(clientMemoryHeapPercent);
        }

        /**
         * The RESP front end's settings: these limits, listening on {@code host:port}.
         *
         * @throws IllegalArgumentException naming the setting (router.X) when the limits do not fit together
         */
        public RespConfig respConfig(String host, int port) {
            try {
                return buildRespConfig(host, port);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("router." + e.getMessage());
            }
        }

        private RespConfig buildRespConfig(String host, int port) {
            int maxArg = Math.max(maxKeyBytes, maxValueBytes);
            return RespConfig.builder().host(host).port(port)
                    .maxKeyBytes(maxKeyBytes).maxValueBytes(maxValueBytes)
                    .maxBulkBytes(maxArg).maxRequestBytes(Math.max(maxArg, 64L << 20))
                    .maxClients(maxClients).idleTimeout(Duration.ofMillis(idleTimeoutMs))
                    .queryBufferLimitBytes(queryBufferLimitBytes).outputHighWaterBytes(outputHighWaterBytes)
                    .outputBufferLimit(outputHardLimitBytes, outputSoftLimitBytes, Duration.ofMillis(outputSoftLimitMs))
                    .maxMemoryClientsBytes(RespConfig.heapShareBytes(clientMemoryHeapPercent))
                    .build();
        }

        public RouterConfig routerConfig() {
            return new RouterConfig(Duration.ofMillis(requestTimeoutMs), Duration.ofMillis(discoveryIntervalMs),
                    10_000, maxBatchOps, maxBatchBytes, maxInflightBatches, followerReads);
        }
    }

    /**
     * The rebalancer on the coordinator leader (see {@link io.cairn.server.move.MoverService}).
     *
     * @param auto            move buckets by weight automatically; manual moves work either way
     * @param thresholdPercent no automatic moves while the disbalance is at or below this
     * @param chunkKeys        keys per transfer chunk (one Raft entry on the destination)
     * @param chunkBytes       bytes per transfer chunk
     * @param copyAhead        copy a bucket's data while it still serves writes, holding writes only
     *                         for the keys changed meanwhile and the hand-over (docs/moves.md)
     * @param maxBytesPerSecond bucket data copied per second over all moves; 0 for no limit
     * @param stepLatencyTargetMs the copy ahead slows down (under maxBytesPerSecond) while the moves'
     *                         steps take longer than this to commit, at the median; 0 turns that off
     */
    public record RebalancerSettings(boolean auto, double thresholdPercent, int maxSendingPerReplicaset,
                                     int maxReceivingPerReplicaset, int maxMovesPerRound, int chunkKeys, int chunkBytes,
                                     long roundIntervalMs, boolean copyAhead, long maxBytesPerSecond,
                                     long stepLatencyTargetMs, int entriesInFlight, int maxCommandsPerEntry, int maxEntryBytes) {
        public RebalancerSettings {
            Setting.REBALANCER_CHUNK_KEYS.check(chunkKeys);
            Setting.REBALANCER_CHUNK_BYTES.check(chunkBytes);
            Setting.REBALANCER_MAX_BYTES_PER_SECOND.check(maxBytesPerSecond);
            Setting.REBALANCER_STEP_LATENCY_TARGET_MS.check(stepLatencyTargetMs);
            Setting.REBALANCER_ROUND_INTERVAL_MS.check(roundIntervalMs);
            Setting.REBALANCER_ENTRIES_IN_FLIGHT.check(entriesInFlight);
            Setting.REBALANCER_MAX_COMMANDS_PER_ENTRY.check(maxCommandsPerEntry);
            Setting.REBALANCER_MAX_ENTRY_BYTES.check(maxEntryBytes);
            try {
                new PlanLimits(thresholdPercent, maxSendingPerReplicaset, maxReceivingPerReplicaset, maxMovesPerRound);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("rebalancer: " + e.getMessage());
            }
        }

        public MoverService.Settings moverSettings() {
            return new MoverService.Settings(Duration.ofMillis(roundIntervalMs),
                    new PlanLimits(thresholdPercent, maxSendingPerReplicaset, maxReceivingPerReplicaset, maxMovesPerRound),
                    new SendMove.Limits(chunkKeys, chunkBytes, 200, copyAhead), auto, maxBytesPerSecond, stepLatencyTargetMs,
                    new DataPlaneMovePort.EntryLimits(entriesInFlight, maxCommandsPerEntry, maxEntryBytes));
        }
    }

    public Path nodeDir(String nodeId) {
        return dataDir.resolve(nodeId);
    }
}
