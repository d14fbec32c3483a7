package io.cairn.server.config;

import io.cairn.archive.LocalFolderObjectStore;
import io.cairn.archive.ObjectStore;
import io.cairn.archive.S3ObjectStore;
import io.cairn.archive.S3Settings;
import io.cairn.archive.StoreThrottle;
import io.cairn.storage.BucketArchives;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The archive tier's settings, the {@code archive} section of the config file (docs/archive.md).
 * Defaults are in {@link ConfigLoader#DEFAULTS}: a local folder under the data folder, no rate
 * limits, idle archiving off.
 *
 * @param store             {@code folder} (default), {@code s3}, or {@code none} (the tier is off: no archive, no restore)
 * @param folder            the folder store's root; empty: {@code <dataDir>/archive}
 * @param prefix            the cluster's prefix in the store; a replicaset's objects live under {@code <prefix>/<replicaset>/}
 * @param s3Endpoint        empty: AWS itself; else e.g. {@code http://127.0.0.1:9000} (MinIO, Ceph RGW, s3proxy)
 * @param s3AccessKeyId     empty (with an empty secret): the AWS default credentials chain
 * @param callsPerSecond    store calls per second per storage process (0: unlimited)
 * @param bytesPerSecond    bytes per second to and from the store per storage process (0: unlimited)
 * @param afterIdleMs       archive a bucket neither read nor written for this long (0: never by itself); unless given, 0 with
 *                          the folder store and {@link #DEFAULT_S3_AFTER_IDLE_MS} with {@code store: s3}
 * @param maxQueuedRestores archived buckets restoring or waiting to, per leader; past it reads get RESTORE_QUEUE_FULL
 * @param restoreThreads    restores running at once per leader
 * @param sweepAgeGuardMs   the sweeper quarantines an object no record names only when it is older than this, and deletes it
 *                          from the quarantine after as long again (default 7 days; at least 10 minutes)
 * @param sweepIntervalMs   between the starts of two sweeps of a replicaset's prefix, by its leader (default 1 hour; 0: off)
 * @param eagerRestore      a bucket adopted archived (moved by server-side copy, or restored from a backup) is restored by its
 *                          new owner in the background as soon as it is served there, not on its first access (default false)
 */
public record ArchiveSettings(String store, String folder, String prefix, String s3Endpoint, String s3Region, String s3Bucket,
                              boolean s3PathStyle, String s3AccessKeyId, String s3SecretAccessKey, long callsPerSecond,
                              long bytesPerSecond, long afterIdleMs, int maxQueuedRestores, int restoreThreads,
                              long sweepAgeGuardMs, long sweepIntervalMs, boolean eagerRestore) {
    public static final long DEFAULT_SWEEP_AGE_GUARD_MS = 7 * 24 * 3_600_000L;
    public static final long DEFAULT_SWEEP_INTERVAL_MS = 3_600_000L;
    /**
     * {@code afterIdleMs} when an object store is configured and the key is not given: a day, so a bucket used daily
     * (a nightly job, a daily report) never pays a restore, while data untouched for longer leaves the nodes' disks.
     */
    public static final long DEFAULT_S3_AFTER_IDLE_MS = 24 * 3_600_000L;
    /** Shorter than this could race an upload or a move's copy that is not recorded yet. */
    public static final long MIN_SWEEP_AGE_GUARD_MS = 600_000L;
    public static final String FOLDER = "folder";
    public static final String S3 = "s3";
    public static final String NONE = "none";
    /** The defaults: a folder under the data folder, no rate limits, idle archiving off. */
    public static final ArchiveSettings DEFAULTS = new ArchiveSettings(FOLDER, "", "cairn", "", "us-east-1", "", true,
            "", "", 0, 0, 0, io.cairn.storage.BucketArchives.Settings.DEFAULT_MAX_QUEUED_RESTORES,
            io.cairn.storage.BucketArchives.Settings.DEFAULT_RESTORE_THREADS, DEFAULT_SWEEP_AGE_GUARD_MS, DEFAULT_SWEEP_INTERVAL_MS, false);

    public ArchiveSettings {
        if (!FOLDER.equals(store) && !S3.equals(store) && !NONE.equals(store)) {
            throw new IllegalArgumentException("archive.store must be folder, s3 or none, was " + store);
        }
        if (prefix == null || prefix.isBlank() || prefix.startsWith("/") || prefix.endsWith("/") || prefix.contains("//")) {
            throw new IllegalArgumentException("archive.prefix must be a non-empty key prefix without leading, trailing or double '/', was '" + prefix + "'");
        }
        if (S3.equals(store) && (s3Bucket == null || s3Bucket.isBlank())) throw new IllegalArgumentException("archive.s3Bucket is required with archive.store: s3");
        if (blank(s3AccessKeyId) != blank(s3SecretAccessKey)) {
            throw new IllegalArgumentException("archive.s3AccessKeyId and archive.s3SecretAccessKey go together (or both empty: the AWS default chain)");
        }
        new StoreThrottle.Rates(callsPerSecond, bytesPerSecond); // its own range checks
        restoreSettings(afterIdleMs, maxQueuedRestores, restoreThreads, false); // its own range checks (the fields are not set yet here)
        if (sweepAgeGuardMs < MIN_SWEEP_AGE_GUARD_MS) {
            throw new IllegalArgumentException("archive.sweepAgeGuardMs must be at least " + MIN_SWEEP_AGE_GUARD_MS + " (10 minutes), was " + sweepAgeGuardMs);
        }
        if (sweepIntervalMs != 0 && sweepIntervalMs < 100) {
            throw new IllegalArgumentException("archive.sweepIntervalMs must be 0 (off) or at least 100, was " + sweepIntervalMs);
        }
    }

    private static boolean blank(String s) {
        return s == null || s.isEmpty();
    }

    public boolean enabled() {
        return !NONE.equals(store);
    }

    public StoreThrottle.Rates rates() {
        return new StoreThrottle.Rates(callsPerSecond, bytesPerSecond);
    }

    public BucketArchives.Settings restoreSettings() {
        return restoreSettings(afterIdleMs, maxQueuedRestores, restoreThreads, eagerRestore);
    }

    private static BucketArchives.Settings restoreSettings(long afterIdleMs, int maxQueuedRestores, int restoreThreads, boolean eagerRestore) {
        BucketArchives.Settings d = BucketArchives.Settings.defaults(Duration.ofMillis(afterIdleMs));
        return new BucketArchives.Settings(d.afterIdle(), maxQueuedRestores, restoreThreads, d.chunkKeys(), d.chunkBytes(), d.idleBucketsPerTick(),
                eagerRestore);
    }

    /** The prefix of one replicaset's objects (a sweeper of one replicaset never reaches another's). */
    public String replicasetPrefix(String replicaset) {
        return prefix + "/" + replicaset;
    }

    /** Opens the configured store (unthrottled: the caller wraps it once per process). */
    public ObjectStore open(Path dataDir) {
        if (FOLDER.equals(store)) return new LocalFolderObjectStore(folder.isEmpty() ? dataDir.resolve("archive") : dataDir.resolve(folder));
        if (!S3.equals(store)) throw new IllegalStateException("the archive tier is off (archive.store: none)");
        S3Settings s3 = new S3Settings(s3Endpoint.isEmpty() ? null : URI.create(s3Endpoint), s3Region, s3Bucket, s3PathStyle,
                blank(s3AccessKeyId) ? null : s3AccessKeyId, blank(s3SecretAccessKey) ? null : s3SecretAccessKey, null, null);
        return new S3ObjectStore(s3);
    }

    @Override
    public String toString() { // never print the secret
        return "ArchiveSettings[store=" + store + ", folder=" + folder + ", prefix=" + prefix + ", s3Endpoint=" + s3Endpoint + ", s3Bucket=" + s3Bucket
                + ", callsPerSecond=" + callsPerSecond + ", bytesPerSecond=" + bytesPerSecond + ", afterIdleMs=" + afterIdleMs + ", eagerRestore=" + eagerRestore + "]";
    }
}
