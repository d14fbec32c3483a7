package io.cairn.server.process;

import io.cairn.coordinator.BootstrapClaim;
import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.StorageStats;
import io.cairn.storage.StorageAdmin;
import io.cairn.storage.StorageNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * Creates a replicaset's initial buckets, once in the life of the cluster. Run by every member;
 * only the leader acts. The coordinator hands out each replicaset's range of the initial plan
 * to one incarnation only: a replicaset whose data was wiped (new incarnation) is refused, so it
 * can never re-create buckets that live elsewhere by now (that would double them).
 * Crash-safe: a leader that dies between the claim and the bootstrap entry is succeeded by
 * one with the same incarnation, whose claim is granted again.
 */
final class BootstrapTask {
    private static final Logger log = LoggerFactory.getLogger(BootstrapTask.class);

    private final StorageNode node;
    private final ReplicasetSpec replicaset;
    private final CoordinatorClient coordinator;
    private final StorageAdmin admin;
    private volatile boolean done;
    private volatile String refusal;

    BootstrapTask(StorageNode node, ReplicasetSpec replicaset, CoordinatorClient coordinator, StorageAdmin admin) {
        this.node = node;
        this.replicaset = replicaset;
        this.coordinator = coordinator;
        this.admin = admin;
    }

    boolean done() {
        return done;
    }

    /** Why the coordinator refused this replicaset's bootstrap, or null. */
    String refusal() {
        return refusal;
    }

    /** One attempt; cheap when there is nothing to do. Called periodically until {@link #done()}. */
    void runOnce() {
        if (done || !node.isLeader()) return;
        if (node.localStats().bootstrapped()) {
            done = true;
            return;
        }
        try {
            StorageStats stats = admin.ensureIncarnation();
            if (stats.bootstrapped()) {
                done = true;
                return;
            }
            BootstrapClaim claim = coordinator.claimBootstrap(replicaset.id(), stats.incarnation());
            if (!claim.granted()) {
                refusal = claim.reason();
                log.error("replicaset {} may not create initial buckets: {}", replicaset.id(), claim.reason());
                done = true;
                return;
            }
            if (claim.last() >= claim.first()) {
                long created = admin.bootstrap(claim.first(), claim.last());
                log.info("replicaset {} created {} initial buckets ({}..{})", replicaset.id(), created, claim.first(), claim.last());
            }
            done = true;
        } catch (Exception e) {
            log.debug("bootstrap of {} not yet possible: {}", replicaset.id(), e.toString());
        }
    }
}
