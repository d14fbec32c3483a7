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

    /** The next buckets to check among {@code writable} (at most the tokens earned since the last call, and maxBatch). */
    public List<Integer> next(long nowMs, Collection<Integer> writable) {
        if (bucketsPerSecond == 0 || writable.isEmpty()) return List.of();
        if (lastMs < 0) {
            tokens = Math.min(maxBatch, bucketsPerSecond); // the first call may check one second's worth
        } else if (nowMs > lastMs) {
            tokens = Math.min(Math.max(maxBatch, bucketsPerSecond), tokens + (nowMs - lastMs) * bucketsPerSecond / 1000.0);
        }
        lastMs = Math.max(lastMs, nowMs);
        int n = (int) Math.min(Math.min(maxBatch, writable.size()), Math.floor(tokens));
        if (n <= 0) return List.of();
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
}
