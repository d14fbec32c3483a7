package io.cairn.core.doubled;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * Which of this replicaset's writable buckets the storage leader checks for doubles next
 * (design 000: "storages also self-check ACTIVE buckets lazily"). A token bucket of
 * {@code bucketsPerSecond}, refilled from the injected {@code nowMs}, walks the buckets in id
 * order and wraps around, so every bucket is checked once per {@code count / rate} seconds and
 * the cost (one small query per other replicaset per batch) stays bounded. Pure; one caller thread.
 */
public final class SelfCheckSchedule {
    private final int bucketsPerSecond;
    private final int maxBatch;
    private double tokens;
    private long lastMs = -1;
    private int afterBucket;

    /** @param bucketsPerSecond 0 turns the self-check off */
    public SelfCheckSchedule(int bucketsPerSecond, int maxBatch) {
        if (bucketsPerSecond < 0 || maxBatch < 1) throw new IllegalArgumentException("bucketsPerSecond >= 0 and maxBatch >= 1");
        this.bucketsPerSecond = bucketsPerSecond;
        this.maxBatch = maxBatch;
    }

    /**
     * Whether a whole batch is due at {@code nowMs}. The verifier asks this first, so it copies
     * the replicaset's records only when there is something to check.
     */
    public boolean due(long nowMs) {
        return bucketsPerSecond > 0 && tokensAt(nowMs) >= fullBatch();
    }

    /**
     * The next buckets to check among {@code writable}: empty until a whole batch (one second's
     * worth, at most maxBatch) is earned, so each other replicaset gets one query per second
     * rather than one per driver tick.
     */
    public List<Integer> next(long nowMs, Collection<Integer> writable) {
        if (bucketsPerSecond == 0 || writable.isEmpty()) return List.of();
        tokens = tokensAt(nowMs);
        lastMs = Math.max(lastMs, nowMs);
        int n = Math.min(fullBatch(), writable.size());
        if (tokens < n) return List.of();
        TreeSet<Integer> sorted = new TreeSet<>(writable);
        List<Integer> out = new ArrayList<>(n);
        for (Integer b = sorted.higher(afterBucket); out.size() < n; b = sorted.higher(b)) {
            if (b == null) b = sorted.first();
            if (out.contains(b)) break;
            out.add(b);
        }
        afterBucket = out.get(out.size() - 1);
        tokens -= out.size();
        return out;
    }

    private int fullBatch() {
        return Math.min(maxBatch, bucketsPerSecond);
    }

    private double tokensAt(long nowMs) {
        if (lastMs < 0) return fullBatch(); // the first call may check one second's worth
        if (nowMs <= lastMs) return tokens;
        return Math.min(Math.max(maxBatch, bucketsPerSecond), tokens + (nowMs - lastMs) * bucketsPerSecond / 1000.0);
    }
}
