package io.cairn.server.process;

import com.sun.net.httpserver.HttpExchange;
import io.cairn.archive.BucketArchiver;
import io.cairn.archive.StoreOperation;
import io.cairn.archive.StoreThrottle;
import io.cairn.archive.ThrottledObjectStore;
import io.cairn.core.BucketRecord;
import io.cairn.core.CairnException;
import io.cairn.core.move.ArchivePointer;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.admin.BackupObjects;
import io.cairn.server.config.ArchiveSettings;
import io.cairn.storage.ArchiveSweeper;
import io.cairn.storage.BucketArchives;
import io.cairn.storage.StorageAdmin;
import io.cairn.storage.StorageNode;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The archive tier of one storage process (docs/archive.md): its one throttled object store, the
 * node's {@link BucketArchives}, the admin routes {@code POST /buckets/B/archive} and
 * {@code POST /buckets/B/restore} (answered by the replicaset's leader; others say 421 with no
 * change), the idle check on the process timer, and the metrics.
 */
final class StorageArchiveTier implements AutoCloseable {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(StorageArchiveTier.class);
    /** How often the leader looks for idle buckets and half-done archives of a former leader. */
    static final long TICK_MS = 1_000;
    /** The longest an admin restore call waits for the bucket to be served again. */
    private static final long ADMIN_RESTORE_WAIT_MS = 60_000;

    private final StorageNode node;
    private final ThrottledObjectStore store;
    private final BucketArchives archives;
    private final io.cairn.storage.BucketBackups backups;
    /** {@code archive.prefix}: the replicasets' objects, which a backup never writes into. */
    private final String archivePrefix;
    /** Null when sweeping is off ({@code archive.sweepIntervalMs: 0}). */
    private final ArchiveSweeper sweeper;
    /** Prefixes of replicasets no longer in the topology, swept by one live replicaset's leader; null when sweeping is off. */
    private final io.cairn.storage.RemovedPrefixSweeper removedSweeper;
    /** One page of a sweep per step, on the tier's own thread: low priority by pace. */
    private final long sweepStepMs;
    private volatile long leaderSinceMs = -1;
    /** Its own thread: an archive waits on the object store, which must not hold up the process timer's sweeps. */
    private final java.util.concurrent.ScheduledExecutorService ticker;

    StorageArchiveTier(ArchiveSettings settings, Path dataDir, Path nodeDir, StorageNode node, StorageAdmin replicaset) {
        this.node = node;
        this.store = new ThrottledObjectStore(settings.open(dataDir), StoreThrottle.system(settings.rates()));
        BucketArchiver archiver = new BucketArchiver(store, nodeDir.resolve("archive-staging"));
        this.archives = new BucketArchives(node, settings.replicasetPrefix(node.replicaset().id()), archiver, replicaset::move,
                settings.restoreSettings());
        this.archivePrefix = settings.prefix();
        this.backups = new io.cairn.storage.BucketBackups(node, settings.replicasetPrefix(node.replicaset().id()), archiver, replicaset::move);
        this.sweeper = settings.sweepIntervalMs() == 0 ? null : new ArchiveSweeper(store, settings.replicasetPrefix(node.replicaset().id()),
                node, java.time.Duration.ofMillis(settings.sweepAgeGuardMs()), java.time.Duration.ofMillis(settings.sweepIntervalMs()));
        this.removedSweeper = settings.sweepIntervalMs() == 0 ? null : new io.cairn.storage.RemovedPrefixSweeper(store, settings.prefix(),
                node.replicaset().id(), java.time.Duration.ofMillis(settings.sweepAgeGuardMs()), java.time.Duration.ofMillis(settings.sweepIntervalMs()));
        this.sweepStepMs = Math.min(TICK_MS, Math.max(100, settings.sweepIntervalMs()));
        this.ticker = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cairn-archive-" + node.id());
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts the leader's periodic step ({@link #tick}). */
    void start() {
        ticker.scheduleWithFixedDelay(this::tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
        if (sweeper != null) ticker.scheduleWithFixedDelay(this::sweep, sweepStepMs, sweepStepMs, TimeUnit.MILLISECONDS);
    }

    BucketArchives archives() {
        return archives;
    }

    ThrottledObjectStore store() {
        return store;
    }

    /** The timer's step: on the leader only, since it became leader (a new leader waits a full idle period). */
    void tick() {
        long now = System.currentTimeMillis();
        if (!node.isLeader()) {
            leaderSinceMs = -1;
            return;
        }
        if (leaderSinceMs < 0) leaderSinceMs = now;
        try {
            archives.tick(now, leaderSinceMs);
        } catch (RuntimeException e) {
            log.debug("archive tick of {} skipped: {}", node.replicaset().id(), e.toString());
        }
    }

    /** One page of the prefix sweep, and of removed replicasets' prefixes when this replicaset is the one chosen; on the leader only. */
    void sweep() {
        if (!node.isLeader()) return;
        try {
            sweeper.step(System.currentTimeMillis());
            removedSweeper.step(System.currentTimeMillis());
        } catch (RuntimeException e) {
            log.warn("archive sweep step of {} failed: {}", node.replicaset().id(), e.toString());
        }
    }

    /** The replicasets of a newer topology: which prefixes belong to removed replicasets, and who sweeps them. */
    void topology(io.cairn.core.topology.Topology t) {
        if (removedSweeper == null || t == null) return;
        removedSweeper.topology(t.replicasets().stream().map(io.cairn.core.topology.ReplicasetSpec::id).collect(java.util.stream.Collectors.toSet()));
    }

    /** The removed-prefix sweeper's counters; null when sweeping is off. */
    io.cairn.storage.RemovedPrefixSweeper.Counts removedPrefixSweepCounts() {
        return removedSweeper == null ? null : removedSweeper.counts();
    }

    /** The sweeper's counters; null when sweeping is off. */
    ArchiveSweeper.Counts sweepCounts() {
        return sweeper == null ? null : sweeper.counts();
    }

    /** {@code POST /buckets/B/archive|restore|backup|adopt-backup|adopt-restored}. */
    void handle(HttpExchange ex) throws IOException {
        String[] parts = ex.getRequestURI().getPath().split("/");
        int bucket = parts.length == 4 ? parseBucket(parts[2]) : -1;
        if (bucket < 1 || !"POST".equals(ex.getRequestMethod()) || !ROUTES.contains(parts[3])) {
            AdminServer.send(ex, 404, "text/plain", "POST /buckets/<bucket>/archive, restore, backup?prefix=P, adopt-backup?object=... or adopt-restored?object=...\n");
            return;
        }
        if (!node.isLeader()) {
            AdminServer.send(ex, 421, "text/plain", "storage node " + node.id() + " does not lead replicaset " + node.replicaset().id() + "\n");
            return;
        }
        try {
            if (parts[3].equals("backup") || parts[3].startsWith("adopt-")) {
                backupRoute(ex, bucket, parts[3]);
            } else if (parts[3].equals("archive")) {
                ArchivePointer p = archives.archive(bucket);
                AdminServer.send(ex, 200, "text/plain", "bucket " + bucket + " archived: " + p.keyCount() + " keys, " + p.sizeBytes()
                        + " bytes at " + p.objectKey() + "\n");
            } else {
                restore(ex, bucket);
            }
        } catch (CairnException e) {
            AdminServer.send(ex, 409, "text/plain", e.code() + " " + e.getMessage() + "\n");
        }
    }

    private static final java.util.Set<String> ROUTES = java.util.Set.of("archive", "restore", "backup", "adopt-backup", "adopt-restored");

    /**
     * Backup: {@code ?prefix=P} writes the bucket under P and answers its object as one line
     * ({@link BackupObjects#line}); 410 when another replicaset owns it. Adopt (into a fresh cluster's
     * owner) and adopt-restored (into a wiped replicaset): the object's line in {@code ?object=},
     * answered with the pointer recorded here.
     */
    private void backupRoute(HttpExchange ex, int bucket, String route) throws IOException {
        Map<String, String> q = BackupObjects.query(ex.getRequestURI().getRawQuery());
        try {
            if (route.equals("adopt-restored")) {
                ArchivePointer p = backups.adoptRestored(bucket, BackupObjects.parse(bucket, q.getOrDefault("object", "")));
                AdminServer.send(ex, 200, "text/plain", "bucket " + bucket + " rebuilt at generation " + p.generation() + " from " + p.objectKey() + "\n");
            } else if (route.equals("backup")) {
                String prefix = q.getOrDefault("prefix", "");
                if (prefix.isEmpty() || prefix.equals(archivePrefix) || prefix.startsWith(archivePrefix + "/")) {
                    // the sweepers own archive.prefix: an object written there would be quarantined as unnamed
                    AdminServer.send(ex, 400, "text/plain", "INVALID_CONFIG the backup prefix must be set and outside archive.prefix (" + archivePrefix + ")\n");
                    return;
                }
                AdminServer.send(ex, 200, "text/plain", BackupObjects.line(backups.backup(bucket, prefix)) + "\n");
            } else {
                ArchivePointer p = backups.adoptBackup(bucket, BackupObjects.parse(bucket, q.getOrDefault("object", "")));
                AdminServer.send(ex, 200, "text/plain", "bucket " + bucket + " adopted at " + p.objectKey() + "\n");
            }
        } catch (CairnException e) {
            int status = e.code() == io.cairn.core.ErrorCode.WRONG_BUCKET ? 410 : 409;
            AdminServer.send(ex, status, "text/plain", e.code() + " " + e.getMessage() + "\n");
        }
    }

    private void restore(HttpExchange ex, int bucket) throws IOException {
        var done = archives.restore(bucket);
        if (done == null) {
            AdminServer.send(ex, 503, "text/plain", "RESTORE_QUEUE_FULL the restore queue is full; retry later\n");
            return;
        }
        try {
            boolean served = done.get(ADMIN_RESTORE_WAIT_MS, TimeUnit.MILLISECONDS);
            String failure = archives.failures().get(bucket);
            if (!served && failure == null && archives.awaitsOwnerCheck(bucket)) {
                failure = "it was rebuilt from a backup and waits until the doubled-bucket check confirms this copy (or contains it); try again";
            }
            AdminServer.send(ex, served ? 200 : 409, "text/plain", served ? "bucket " + bucket + " is served (restored or never archived)\n"
                    : "bucket " + bucket + " stays archived: " + failure + "\n");
        } catch (java.util.concurrent.TimeoutException e) {
            AdminServer.send(ex, 202, "text/plain", "bucket " + bucket + " is still being restored\n");
        } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
            AdminServer.send(ex, 500, "text/plain", "restore of bucket " + bucket + " interrupted\n");
        }
    }

    private static int parseBucket(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** An alert per bucket whose last archive or restore failed (a restore failure leaves its data unreachable). */
    void addAlerts(java.util.List<String> alerts) {
        archives.failures().forEach((b, why) -> alerts.add("ARCHIVE_FAILED: bucket " + b + " on " + node.replicaset().id() + ": " + why));
    }

    Map<String, Object> info() {
        BucketArchives.Counts c = archives.counts();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("archivedBuckets", archivedHere(node));
        out.put("archived", c.archived());
        out.put("restored", c.restored());
        out.put("restoresInFlight", c.restoresInFlight());
        out.put("failures", archives.failures());
        out.put("throttle", store.throttle().stats());
        if (sweeper != null) out.put("sweep", sweeper.counts());
        if (removedSweeper != null && removedSweeper.chosen()) out.put("sweepRemovedPrefixes", removedSweeper.counts());
        out.put("deletedDirectly", archives.deletedDirectly());
        return out;
    }

    static long archivedHere(StorageNode n) {
        return n.bucketRecords().stream().filter(BucketRecord::isArchived).count();
    }

    void registerMetrics(MeterRegistry r) {
        String rs = node.replicaset().id();
        Gauge.builder("cairn_archive_buckets", node, StorageArchiveTier::archivedHere).tag("replicaset", rs)
                .description("buckets of this replicaset whose data is in the archive tier (this node's view)").register(r);
        counter(r, rs, "cairn_archive_archived", "buckets this node archived while leader", a -> a.counts().archived());
        counter(r, rs, "cairn_archive_archived_bytes", "bytes of archive objects this node wrote while leader", a -> a.counts().archivedBytes());
        counter(r, rs, "cairn_archive_restored", "archived buckets this node restored while leader", a -> a.counts().restored());
        counter(r, rs, "cairn_archive_restored_bytes", "bytes of archive objects this node restored from", a -> a.counts().restoredBytes());
        counter(r, rs, "cairn_archive_archive_failures", "archives that failed (the data stayed local)", a -> a.counts().archiveFailures());
        counter(r, rs, "cairn_archive_restore_failures", "restores that failed (the bucket stayed archived)", a -> a.counts().restoreFailures());
        counter(r, rs, "cairn_archive_restore_queue_full", "restore requests refused because the queue was full", a -> a.counts().queueFullRefusals());
        Gauge.builder("cairn_archive_restores_in_flight", archives, a -> a.counts().restoresInFlight()).tag("replicaset", rs)
                .description("restores queued or running on this node").register(r);
        for (StoreOperation op : StoreOperation.values()) {
            FunctionCounter.builder("cairn_archive_store_calls", store, s -> s.calls(op)).tag("replicaset", rs).tag("operation", op.name().toLowerCase())
                    .description("calls to the object store by kind").register(r);
        }
        FunctionCounter.builder("cairn_archive_swept_quarantined", this, t -> t.sweeper == null ? 0 : t.sweeper.counts().quarantined())
                .tag("replicaset", rs).description("objects no record named, moved to the quarantine prefix by this node's sweeper").register(r);
        FunctionCounter.builder("cairn_archive_swept_deleted", this, t -> t.sweeper == null ? 0 : t.sweeper.counts().deleted())
                .tag("replicaset", rs).description("quarantined objects this node's sweeper deleted after the age guard").register(r);
        FunctionCounter.builder("cairn_archive_swept_removed_quarantined", this, t -> t.removedSweeper == null ? 0 : t.removedSweeper.counts().quarantined())
                .tag("replicaset", rs).description("objects under removed replicasets' prefixes this node quarantined").register(r);
        FunctionCounter.builder("cairn_archive_swept_removed_deleted", this, t -> t.removedSweeper == null ? 0 : t.removedSweeper.counts().deleted())
                .tag("replicaset", rs).description("quarantined objects of removed replicasets this node deleted after the age guard").register(r);
        FunctionCounter.builder("cairn_archive_deleted_directly", archives, BucketArchives::deletedDirectly).tag("replicaset", rs)
                .description("objects of buckets emptied by FLUSHALL that this node deleted directly (never restored)").register(r);
        FunctionCounter.builder("cairn_archive_store_bytes_written", store, ThrottledObjectStore::bytesWritten).tag("replicaset", rs)
                .description("bytes written to the object store").register(r);
        FunctionCounter.builder("cairn_archive_store_bytes_read", store, ThrottledObjectStore::bytesRead).tag("replicaset", rs)
                .description("bytes read from the object store").register(r);
        FunctionCounter.builder("cairn_archive_throttled_calls", store, s -> s.throttle().stats().throttledCalls()).tag("replicaset", rs)
                .description("object-store calls that waited for the throttle").register(r);
        FunctionCounter.builder("cairn_archive_throttle_waited_seconds", store, s -> s.throttle().stats().waitedNanos() / 1e9).tag("replicaset", rs)
                .description("time object-store calls waited for the throttle").register(r);
    }

    private void counter(MeterRegistry r, String rs, String name, String description, java.util.function.ToDoubleFunction<BucketArchives> f) {
        FunctionCounter.builder(name, archives, f).tag("replicaset", rs).description(description).register(r);
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        archives.close();
        try {
            store.close();
        } catch (RuntimeException e) {
            log.debug("archive store of {} closed with {}", node.id(), e.toString());
        }
    }
}
