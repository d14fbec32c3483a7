package io.cairn.coordinator;

import java.time.Duration;

/**
 * Every bound and timeout of the coordinator, named once. The relations that matter:
 * {@link #WATCH_WAIT} &lt; {@link #CLIENT_REQUEST_TIMEOUT} (a long-poll must come back before the
 * client gives up on it), and {@link #CALL_DEADLINE} spans a leader election with
 * {@link #ELECTION_TIMEOUT_MAX} so a call survives a failover but never hangs.
 */
final class CoordinatorLimits {
    /** Topologies kept (the current one included), oldest dropped first. */
    static final int HISTORY_EPOCHS = 100;
    /** Forced changes kept in the audit log, oldest dropped first. */
    static final int FORCED_CHANGES_KEPT = 100;
    /** Long-polls parked on one coordinator node; more are refused with UNAVAILABLE. */
    static final int MAX_PENDING_WATCHES = 10_000;
    /** Upper bound of the wait a client may ask for in one WATCH. */
    static final Duration MAX_WATCH_WAIT = Duration.ofSeconds(30);

    /** Raft election timeouts: 1-2 s, the Ratis defaults churn on a loaded machine. */
    static final Duration ELECTION_TIMEOUT_MIN = Duration.ofSeconds(1);
    static final Duration ELECTION_TIMEOUT_MAX = Duration.ofSeconds(2);
    /** Log entries between automatic snapshots (the state is small; replay is cheap). */
    static final long SNAPSHOT_EVERY_ENTRIES = 1024;
    /** Snapshot files kept on disk. */
    static final int SNAPSHOTS_KEPT = 2;

    /** One RPC attempt from a client to one coordinator node. */
    static final Duration CLIENT_REQUEST_TIMEOUT = Duration.ofSeconds(3);
    /** How long a client call keeps retrying (other nodes, new leader) before UNAVAILABLE. */
    static final Duration CALL_DEADLINE = Duration.ofSeconds(6);
    /** Pause between retries of one call inside {@link #CALL_DEADLINE}. */
    static final Duration RETRY_SLEEP = Duration.ofMillis(200);
    /** One long-poll of the watch loop; shorter than {@link #CLIENT_REQUEST_TIMEOUT}. */
    static final Duration WATCH_WAIT = Duration.ofSeconds(2);
    /** Backoff of the watch loop while the coordinator is unreachable. */
    static final Duration WATCH_BACKOFF_MIN = Duration.ofMillis(100);
    static final Duration WATCH_BACKOFF_MAX = Duration.ofSeconds(5);

    private CoordinatorLimits() {}

    /** Run-time settings kept at once (cairn config set): far more than there are live settings. */
    static final int MAX_SETTINGS = 256;
}
