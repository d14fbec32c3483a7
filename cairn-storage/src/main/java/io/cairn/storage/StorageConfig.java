package io.cairn.storage;

import io.cairn.rebalancer.DataPlaneMovePort;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Settings of one storage node, validated at construction.
 *
 * @param dataDir           this node's folder: Ratis log and snapshots under {@code ratis/}, the live database under {@code db/}
 * @param maxValueBytes     largest value a write may store
 * @param electionTimeoutMin lower bound of the Raft election timeout (upper bound is twice it)
 * @param snapshotEveryEntries take a snapshot (and purge the log) after this many entries
 * @param logSegmentBytes     size of a Raft log segment; only closed segments are purged (Ratis)
 * @param engine              the Raft engine; every member of a replicaset runs the same one
 */
public record StorageConfig(Path dataDir, int maxValueBytes, Duration electionTimeoutMin, long snapshotEveryEntries,
                            long logSegmentBytes, ReplicationEngine engine) {
    public static final long DEFAULT_LOG_SEGMENT_BYTES = 32L << 20;

    public static final int DEFAULT_MAX_VALUE_BYTES = 16 << 20;
    public static final Duration DEFAULT_ELECTION_TIMEOUT_MIN = Duration.ofMillis(1000);
    public static final long DEFAULT_SNAPSHOT_EVERY_ENTRIES = 20_000;
    /**
     * The shortest time a SENT or GARBAGE tombstone is kept: longer than the longest move call, so a
     * chunk that arrives late still finds the fence that refuses it, and never recreates the bucket.
     */
    public static final long MIN_TOMBSTONE_RETENTION_MS = DataPlaneMovePort.CALL_BUDGET_MS + 5_000;

    public StorageConfig {
        if (dataDir == null) throw new IllegalArgumentException("dataDir is required");
        if (maxValueBytes < 1 || maxValueBytes > 512 << 20) {
            throw new IllegalArgumentException("maxValueBytes must be between 1 and 536870912, was " + maxValueBytes);
        }
        if (electionTimeoutMin.toMillis() < 100) throw new IllegalArgumentException("electionTimeoutMin must be at least 100 ms");
        if (snapshotEveryEntries < 100) throw new IllegalArgumentException("snapshotEveryEntries must be at least 100");
        if (logSegmentBytes < (64 << 10)) throw new IllegalArgumentException("logSegmentBytes must be at least 65536");
        if (engine == null) throw new IllegalArgumentException("engine is required");
        if (engine == ReplicationEngine.MICRORAFT && snapshotEveryEntries > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("snapshotEveryEntries must be at most " + Integer.MAX_VALUE + " with the microraft engine");
        }
    }

    public static StorageConfig defaults(Path dataDir) {
        return new StorageConfig(dataDir, DEFAULT_MAX_VALUE_BYTES, DEFAULT_ELECTION_TIMEOUT_MIN, DEFAULT_SNAPSHOT_EVERY_ENTRIES,
                DEFAULT_LOG_SEGMENT_BYTES, ReplicationEngine.defaultEngine());
    }
}
