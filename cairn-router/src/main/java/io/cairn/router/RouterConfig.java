package io.cairn.router;

import java.time.Duration;

/**
 * Router settings, validated at construction.
 *
 * @param requestTimeout      a client request's deadline, retries included
 * @param discoveryInterval   discovery round period once every bucket has a known owner
 * @param discoveryPageLimit  bucket records per discovery request
 * @param maxBatchOps         group commit: most operations in one Raft entry
 * @param maxBatchBytes       group commit: most bytes in one Raft entry
 * @param maxInflightBatches  group commit: Raft entries in flight per replicaset (reads and writes each)
 * @param followerReads       serve reads from any member that has applied this router's own writes and what the leader had committed at its last answer to this router (discovery, every round), and heard from its leader within the election timeout (bounded lag, not linearizable across routers)
 */
public record RouterConfig(Duration requestTimeout, Duration discoveryInterval, int discoveryPageLimit,
                           int maxBatchOps, int maxBatchBytes, int maxInflightBatches, boolean followerReads) {
    /**
     * Retired system property ({@code -Dcairn.router.directDataPlane=false} sent reads and writes
     * through a Ratis client instead of the data plane). The router now reaches replicasets only over
     * the data plane, so that no engine but the members' knows Raft; the property is ignored, with a
     * warning ({@link Router}).
     */
    @Deprecated
    public static final String DIRECT_DATA_PLANE_PROPERTY = "cairn.router.directDataPlane";

    public RouterConfig {
        require(requestTimeout.toMillis() >= 100, "requestTimeout must be at least 100 ms");
        require(discoveryInterval.toMillis() >= 10, "discoveryInterval must be at least 10 ms");
        require(discoveryPageLimit >= 1 && discoveryPageLimit <= 100_000, "discoveryPageLimit must be 1..100000");
        require(maxBatchOps >= 1 && maxBatchOps <= 100_000, "maxBatchOps must be 1..100000");
        require(maxBatchBytes >= 1024, "maxBatchBytes must be at least 1024");
        require(maxInflightBatches >= 1 && maxInflightBatches <= 64, "maxInflightBatches must be 1..64");
    }

    public static RouterConfig defaults() {
        return new RouterConfig(Duration.ofSeconds(10), Duration.ofSeconds(1), 10_000, 1024, 4 << 20, 1, false);
    }

    private static void require(boolean ok, String message) {
        if (!ok) throw new IllegalArgumentException(message);
    }
}
