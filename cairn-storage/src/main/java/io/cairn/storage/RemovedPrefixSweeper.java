package io.cairn.storage;

import io.cairn.archive.ObjectInfo;
import io.cairn.archive.ObjectPage;
import io.cairn.archive.ObjectStore;
import io.cairn.core.CairnException;
import io.cairn.core.move.ArchiveSweep;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sweeps the prefixes of replicasets no longer in the topology (issue 23: "a removed or replaced
 * replicaset's prefix is swept too"; docs/archive.md, "Sweeper"). Such a prefix has no leader of its
 * own, so the leader of one live replicaset, the first by id ({@link ArchiveSweep#removedPrefixSweeperOf}),
 * lists the whole cluster prefix one page per {@link #step} and acts on
 * {@link ArchiveSweep#ofRemovedReplicaset}: objects of live replicasets are left to their own sweepers.
 * The same two steps as {@link ArchiveSweeper} (quarantine after the age guard, a copy then a delete;
 * delete from the quarantine after as long again), and before a quarantine the verdict is taken again
 * on the newest topology, so a replicaset added meanwhile is never swept on an old view.
 *
 * <p>Cost: a pass lists every object under the cluster prefix (the port has no delimiter listing),
 * one page of {@link ArchiveSweeper#PAGE} per step at the sweeper's pace: 10,000 archived buckets are
 * 100 steps, once per {@code interval}.
 */
public final class RemovedPrefixSweeper {
    private static final Logger log = LoggerFactory.getLogger(RemovedPrefixSweeper.class);

    private final ObjectStore store;
    private final String clusterPrefix;
    private final String ownReplicaset;
    private final Duration ageGuard;
    private final Duration interval;
    /** The replicasets of the newest topology this process knows; empty until one is known (then nothing is swept). */
    private volatile Set<String> live = Set.of();
    private final LongAdder quarantined = new LongAdder(), deleted = new LongAdder(), passes = new LongAdder();
    /** The listing in progress (null token: its first page). Timer thread only. */
    private String token;
    private boolean passing;
    private long nextPassMs = Long.MIN_VALUE;

    /**
     * @param clusterPrefix {@code archive.prefix}: every replicaset's objects live under {@code <clusterPrefix>/<replicaset>/}
     * @param ownReplicaset the replicaset this process serves (its leader sweeps when it is the chosen one)
     */
    public RemovedPrefixSweeper(ObjectStore store, String clusterPrefix, String ownReplicaset, Duration ageGuard, Duration interval) {
        this.store = store;
        this.clusterPrefix = clusterPrefix;
        this.ownReplicaset = ownReplicaset;
        this.ageGuard = ageGuard;
        this.interval = interval;
    }

    public record Counts(long quarantined, long deleted, long passes) {}

    public Counts counts() {
        return new Counts(quarantined.sum(), deleted.sum(), passes.sum());
    }

    /** The replicasets of a newer topology (from the coordinator's watch). */
    public void topology(Set<String> replicasets) {
        this.live = Set.copyOf(replicasets);
    }

    /** Whether this replicaset's leader is the one that sweeps removed prefixes under the topology known now. */
    public boolean chosen() {
        return ownReplicaset.equals(ArchiveSweep.removedPrefixSweeperOf(live));
    }

    /** One page of the current pass, or the start of the next one when due; on the leader's timer thread. */
    public void step(long nowMs) {
        if (!chosen()) {
            passing = false; // another replicaset sweeps now; start over should this one be chosen again
            return;
        }
        if (!passing) {
            if (nowMs < nextPassMs) return;
            passing = true;
            token = null;
        }
        try {
            ObjectPage page = store.list(clusterPrefix + "/", token, ArchiveSweeper.PAGE);
            for (ObjectInfo o : page.objects()) judge(o, nowMs);
            Optional<String> next = page.nextPageToken();
            if (next.isPresent()) {
                token = next.get();
            } else {
                passing = false;
                passes.increment();
                nextPassMs = nowMs + interval.toMillis();
            }
        } catch (CairnException e) {
            log.info("sweep of removed replicasets' prefixes under {} paused: {} {} (next step tries again)", clusterPrefix, e.code(), e.getMessage());
        }
    }

    private ArchiveSweep.Verdict verdict(ObjectInfo o, long nowMs) {
        return ArchiveSweep.ofRemovedReplicaset(clusterPrefix, o.key(), o.lastModifiedMs(), live, nowMs, ageGuard.toMillis());
    }

    private void judge(ObjectInfo o, long nowMs) {
        ArchiveSweep.Verdict v = verdict(o, nowMs);
        switch (v.action()) {
            case KEEP -> { }
            case QUARANTINE -> {
                store.copy(o.key(), v.target());
                if (verdict(o, nowMs).action() != ArchiveSweep.Action.QUARANTINE) { // its replicaset is in a newer topology: keep it
                    store.delete(v.target());
                    return;
                }
                store.delete(o.key());
                quarantined.increment();
                log.info("archive sweep: {} is under the prefix of replicaset {}, no longer in the topology, and older than {}; quarantined as {}",
                        o.key(), ArchiveSweep.replicasetOf(clusterPrefix, o.key()), ageGuard, v.target());
            }
            case DELETE -> {
                store.delete(o.key());
                deleted.increment();
                log.info("archive sweep: deleted {} (a removed replicaset's, quarantined longer than {})", o.key(), ageGuard);
            }
        }
    }
}
