package io.cairn.replication;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Settings of one member, validated at construction.
 *
 * @param groupId               the group's name, the same on every member
 * @param selfId                this member's id, a key of {@code initialVoters}, or a learner joining later
 * @param initialVoters         id -> "host:port" of the group's first voters (used only when {@code dataDir} is new)
 * @param dataDir               this member's folder for its log, metadata and snapshots
 * @param electionTimeout       how long a candidate waits for votes before it tries again
 * @param leaderTimeout         a follower that hears nothing from its leader for this long starts an election
 *                              (whole seconds: MicroRaft's unit; the leader sends heartbeats at half of it, at least every second)
 * @param snapshotEveryEntries  take a snapshot (and drop the log before it) after this many entries
 * @param maxPendingEntries     entries appended but not yet committed, past which proposals are refused
 * @param maxEntryBytes         largest command a proposal may carry
 */
public record ReplicaConfig(String groupId, String selfId, Map<String, String> initialVoters, Path dataDir, Duration electionTimeout,
                            Duration leaderTimeout, int snapshotEveryEntries, int maxPendingEntries, int maxEntryBytes) {
    public static final Duration DEFAULT_ELECTION_TIMEOUT = Duration.ofMillis(1000);
    public static final Duration DEFAULT_LEADER_TIMEOUT = Duration.ofSeconds(2);
    public static final int DEFAULT_SNAPSHOT_EVERY_ENTRIES = 20_000;
    public static final int DEFAULT_MAX_PENDING_ENTRIES = 5_000;
    public static final int DEFAULT_MAX_ENTRY_BYTES = 64 << 20;

    public ReplicaConfig {
        if (groupId == null || groupId.isBlank()) throw new IllegalArgumentException("groupId is required");
        if (selfId == null || selfId.isBlank()) throw new IllegalArgumentException("selfId is required");
        initialVoters = Map.copyOf(initialVoters);
        if (initialVoters.isEmpty()) throw new IllegalArgumentException("initialVoters must name at least one member");
        if (dataDir == null) throw new IllegalArgumentException("dataDir is required");
        if (electionTimeout.toMillis() < 100) throw new IllegalArgumentException("electionTimeout must be at least 100 ms, was " + electionTimeout);
        if (leaderTimeout.toSeconds() < 1 || leaderTimeout.toNanos() % 1_000_000_000L != 0) {
            throw new IllegalArgumentException("leaderTimeout must be a whole number of seconds, at least 1, was " + leaderTimeout);
        }
        if (snapshotEveryEntries < 100) throw new IllegalArgumentException("snapshotEveryEntries must be at least 100, was " + snapshotEveryEntries);
        if (maxPendingEntries < 1) throw new IllegalArgumentException("maxPendingEntries must be positive, was " + maxPendingEntries);
        if (maxEntryBytes < 1024) throw new IllegalArgumentException("maxEntryBytes must be at least 1024, was " + maxEntryBytes);
    }

    public static ReplicaConfig defaults(String groupId, String selfId, Map<String, String> initialVoters, Path dataDir) {
        return new ReplicaConfig(groupId, selfId, initialVoters, dataDir, DEFAULT_ELECTION_TIMEOUT, DEFAULT_LEADER_TIMEOUT,
                DEFAULT_SNAPSHOT_EVERY_ENTRIES, DEFAULT_MAX_PENDING_ENTRIES, DEFAULT_MAX_ENTRY_BYTES);
    }
}
