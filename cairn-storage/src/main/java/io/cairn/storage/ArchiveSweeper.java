package io.cairn.storage;

import io.cairn.archive.ObjectInfo;
import io.cairn.archive.ObjectPage;
import io.cairn.archive.ObjectStore;
import io.cairn.core.CairnException;
import io.cairn.core.move.ArchiveSweep;
import io.cairn.storage.state.ReplicasetState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * The low-priority sweeper of one replicaset's prefix in the object store (issue 23, seed 002;
 * docs/archive.md, "Sweeper"), run by its leader: every {@code interval} a pass lists
 * {@code <prefix>/buckets/} and then {@code <prefix>/quarantine/}, one page per {@link #step} (the
 * caller's timer sets the pace), and acts on {@link ArchiveSweep}'s verdict for each object. A
 * quarantine is a copy then a delete, so an object is never without a copy. The prefix is this
 * replicaset's alone: a sweeper never reaches another's objects.
 */
public final class ArchiveSweeper {
    private static final Logger log = LoggerFactory.getLogger(ArchiveSweeper.class);
    /** Objects listed (and judged) per step. */
    static final int PAGE = 100;

    private final ObjectStore store;
    private final String prefix;
    private final StorageNode node;
    private final Duration ageGuard;
    private final Duration interval;
    private final LongAdder quarantined = new LongAdder(), deleted = new LongAdder(), passes = new LongAdder();
    /** The listing in progress: which part, and the page token (null: its first page). Timer thread only. */
    private boolean inQuarantine;
    private String token;
    private boolean passing;
    private long nextPassMs = Long.MIN_VALUE;

    /**
     * @param node     the member whose replicated pointers say which objects are named
     * @param prefix   this replicaset's prefix ({@code archive.prefix}/replicaset)
     * @param ageGuard how old an unreferenced object must be before it is quarantined, and how long it stays there
     * @param interval between the starts of two passes
     */
    public ArchiveSweeper(ObjectStore store, String prefix, StorageNode node, Duration ageGuard, Duration interval) {
        this.store = store;
        this.prefix = prefix;
        this.node = node;
        this.ageGuard = ageGuard;
        this.interval = interval;
    }

    public record Counts(long quarantined, long deleted, long passes) {}

    public Counts counts() {
        return new Counts(quarantined.sum(), deleted.sum(), passes.sum());
    }

    /** One page of the current pass, or the start of the next one when due; on the leader's timer thread. */
    public void step(long nowMs) {
        if (!passing) {
            if (nowMs < nextPassMs) return;
            passing = true;
            inQuarantine = false;
            token = null;
        }
        ReplicasetState s = node.state();
        if (s == null) return;
        String listed = inQuarantine ? ArchiveSweep.quarantinePrefix(prefix) : ArchiveSweep.bucketsPrefix(prefix);
        try {
            ObjectPage page = store.list(listed, token, PAGE);
            for (ObjectInfo o : page.objects()) judge(o, s, nowMs);
            Optional<String> next = page.nextPageToken();
            if (next.isPresent()) {
                token = next.get();
            } else if (!inQuarantine) {
                inQuarantine = true;
                token = null;
            } else {
                passing = false;
                passes.increment();
                nextPassMs = nowMs + interval.toMillis();
            }
        } catch (CairnException e) {
            log.info("archive sweep of {} paused: {} {} (next step tries again)", prefix, e.code(), e.getMessage());
        }
    }

    private boolean namedNow(String key, ReplicasetState s) {
        int bucket = ArchiveSweep.bucketOf(prefix, key);
        io.cairn.core.move.ArchivePointer p = s.archivePointer(bucket);
        return p != null && p.objectKey().equals(key);
    }

    private void judge(ObjectInfo o, ReplicasetState s, long nowMs) {
        long guardMs = ageGuard.toMillis();
        ArchiveSweep.Verdict v;
        if (inQuarantine) {
            v = ArchiveSweep.ofQuarantined(prefix, o.key(), nowMs, guardMs);
        } else {
            int bucket = ArchiveSweep.bucketOf(prefix, o.key());
            v = ArchiveSweep.ofArchive(prefix, o.key(), o.lastModifiedMs(), bucket < 0 ? null : s.archivePointer(bucket), nowMs, guardMs);
        }
        switch (v.action()) {
            case KEEP -> { }
            case QUARANTINE -> {
                store.copy(o.key(), v.target());
                if (namedNow(o.key(), s)) { // recorded meanwhile (an archive of the same contents landed on this key): keep it
                    store.delete(v.target());
                    return;
                }
                store.delete(o.key());
                quarantined.increment();
                log.info("archive sweep: {} is named by no record of {} and older than {}; quarantined as {}", o.key(), prefix, ageGuard, v.target());
            }
            case DELETE -> {
                store.delete(o.key());
                deleted.increment();
                log.info("archive sweep: deleted {} (quarantined longer than {})", o.key(), ageGuard);
            }
        }
    }
}
