package io.cairn.storage.state;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.MoveQuery.MoveStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * What the rebalancer's status query asks of a replicaset (counts per state, unfinished moves,
 * the lowest movable buckets), kept up to date as records change, so a round costs the same
 * whether the replicaset holds 3,000 buckets or 300,000. One writer (the apply thread); readers
 * may see one change half-applied across fields, as they could with a walk over the records.
 */
final class MoveTally {
    private final AtomicIntegerArray counts = new AtomicIntegerArray(BucketState.values().length);
    private final ConcurrentSkipListSet<Integer> active = new ConcurrentSkipListSet<>();
    private final Map<Integer, BucketRecord> unfinished = new ConcurrentHashMap<>();

    /** ACTIVE buckets copied ahead of a move: counted as sending, not as movable. */
    private final AtomicInteger copying = new AtomicInteger();

    /** Apply thread: {@code before} (or null: new) became {@code after} (or null: deleted). */
    void changed(BucketRecord before, BucketRecord after) {
        if (before != null) {
            counts.decrementAndGet(before.state().ordinal());
            if (before.marksChanges()) copying.decrementAndGet();
            active.remove(before.id());
            unfinished.remove(before.id());
        }
        if (after != null) {
            counts.incrementAndGet(after.state().ordinal());
            if (after.marksChanges()) copying.incrementAndGet();
            else if (after.state() == BucketState.ACTIVE) active.add(after.id());
            if (MoveStatus.isUnfinished(after)) unfinished.put(after.id(), after);
        }
    }

    MoveStatus status(int maxCandidates) {
        List<Integer> candidates = new ArrayList<>(Math.min(Math.max(maxCandidates, 0), 1024));
        for (int id : active) {
            if (candidates.size() >= maxCandidates) break;
            candidates.add(id);
        }
        int copied = copying.get();
        return new MoveStatus(count(BucketState.ACTIVE) - copied, count(BucketState.PINNED), count(BucketState.SENDING) + copied,
                count(BucketState.RECEIVING), List.copyOf(unfinished.values()), List.copyOf(candidates));
    }

    private int count(BucketState state) {
        return counts.get(state.ordinal());
    }
}
