package io.cairn.replication;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Settings of one member, validated at construction.
 *
 * @param groupId               the group's name, the same on every member
 * @param selfId                this member's id, a key of {@code initialVoters} or of {@code initialLearners}
 * @param initialVoters         id -> "host:port" of the group's first voters (used only when {@code dataDir} is new);
 *                              for a member joining a running group, its voters now
 * @param initialLearners       id -> "host:port" of members that start as learners (used only when {@code dataDir}
 *                              is new): empty for a new group; for a member joining a running group, itself (it
 *                              receives the log but never votes or stands for election until promoted)
 * @param dataDir               this member's folder for its log, metadata and snapshots
 * @param electionTimeout       how long a candidate waits for votes before it tries again
 * @param leaderTimeout         a follower that hears nothing from its leader for this long starts an election
 *                              (whole seconds, at least 2: the engine's unit; the leader sends heartbeats at half of it)
 * @param snapshotEveryEntries  take a snapshot (and drop the log before it) after this many entries
 * @param maxPendingEntries     entries appended but not yet committed, past which proposals are refused
 * @param maxEntryBytes         largest command a proposal may carry
 * @param vote                  when this member may vote: at once; after a check of its log against what it is on
 *                              record as having acknowledged ({@link Replica#confirmAcknowledged}); or only once its
 *                              log holds what its leader had committed (its folder is new or was damaged in a group
 *                              that already holds data). A member that lost what it acknowledged must not help elect
 *                              a leader without it; see {@link ReplicaStatus#rejoining()}
 */
public record ReplicaConfig(String groupId, String selfId, Map<String, String> initialVoters, Map<String, String> initialLearners, Path dataDir, Duration electionTimeout,
                            Duration leaderTimeout, int snapshotEveryEntries, int maxPendingEntries, int maxEntryBytes,
                            Vote vote) {
    /** When a member may vote after it starts. */
    public enum Vote {
        /** At once: a member of a new group, or one whose folder needs no check. */
        AT_ONCE,
        /** Once {@link Replica#confirmAcknowledged} found its log complete, or once it caught up with its leader. */
        AFTER_CHECK,
        /** Only once it caught up with its leader: its folder is new or was damaged in a group that holds data. */
        AFTER_CATCH_UP
    }

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
        initialLearners = Map.copyOf(initialLearners);
        for (String learner : initialLearners.keySet()) {
            if (initialVoters.containsKey(learner)) throw new IllegalArgumentException(learner + " is named both voter and learner");
        }
        if (!initialVoters.containsKey(selfId) && !initialLearners.containsKey(selfId)) {
            throw new IllegalArgumentException(selfId + " is neither among initialVoters nor initialLearners");
        }
        if (dataDir == null) throw new IllegalArgumentException("dataDir is required");
        if (electionTimeout.toMillis() < 100) throw new IllegalArgumentException("electionTimeout must be at least 100 ms, was " + electionTimeout);
        if (leaderTimeout.toSeconds() < 2 || leaderTimeout.toNanos() % 1_000_000_000L != 0) {
            // heartbeats go at most every second: a follower must be able to hear one within the timeout
            throw new IllegalArgumentException("leaderTimeout must be a whole number of seconds, at least 2, was " + leaderTimeout);
        }
        if (snapshotEveryEntries < 100) throw new IllegalArgumentException("snapshotEveryEntries must be at least 100, was " + snapshotEveryEntries);
        if (maxPendingEntries < 1) throw new IllegalArgumentException("maxPendingEntries must be positive, was " + maxPendingEntries);
        if (maxEntryBytes < 1024) throw new IllegalArgumentException("maxEntryBytes must be at least 1024, was " + maxEntryBytes);
        if (vote == null) throw new IllegalArgumentException("vote is required");
    }

    public static ReplicaConfig defaults(String groupId, String selfId, Map<String, String> initialVoters, Path dataDir) {
        return new ReplicaConfig(groupId, selfId, initialVoters, Map.of(), dataDir, DEFAULT_ELECTION_TIMEOUT, DEFAULT_LEADER_TIMEOUT,
                DEFAULT_SNAPSHOT_EVERY_ENTRIES, DEFAULT_MAX_PENDING_ENTRIES, DEFAULT_MAX_ENTRY_BYTES, Vote.AT_ONCE);
    }

    /** A new member joining the running group whose voters are {@code voters}: it starts as a learner at {@code selfAddress}. */
    public static ReplicaConfig joining(String groupId, String selfId, String selfAddress, Map<String, String> voters, Path dataDir) {
        return new ReplicaConfig(groupId, selfId, voters, Map.of(selfId, selfAddress), dataDir, DEFAULT_ELECTION_TIMEOUT,
                DEFAULT_LEADER_TIMEOUT, DEFAULT_SNAPSHOT_EVERY_ENTRIES, DEFAULT_MAX_PENDING_ENTRIES, DEFAULT_MAX_ENTRY_BYTES, Vote.AT_ONCE);
    }

    /** The same settings with another {@link Vote}. */
    public ReplicaConfig withVote(Vote when) {
        return new ReplicaConfig(groupId, selfId, initialVoters, initialLearners, dataDir, electionTimeout, leaderTimeout,
                snapshotEveryEntries, maxPendingEntries, maxEntryBytes, when);
    }

    /** This member's "host:port", from {@code initialVoters} or {@code initialLearners}. */
    public String selfAddress() {
        String voter = initialVoters.get(selfId);
        return voter != null ? voter : initialLearners.get(selfId);
    }
}
