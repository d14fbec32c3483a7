package io.cairn.core.move;

import java.util.Arrays;

/** The last {@link #CAPACITY} durations of something, for percentiles an operator reads (not for decisions). */
public final class RecentDurations {
    static final int CAPACITY = 1024;

    /** Percentiles of the recent samples in milliseconds; all 0 when there are none. */
    public record Summary(int samples, long p50Ms, long p99Ms, long maxMs) {}

    private final long[] ring = new long[CAPACITY];
    private long added;

    void add(long ms) {
        ring[(int) (added++ % CAPACITY)] = ms;
    }

    Summary summary() {
        int n = (int) Math.min(added, CAPACITY);
        if (n == 0) return new Summary(0, 0, 0, 0);
        long[] sorted = Arrays.copyOf(ring, n);
        Arrays.sort(sorted);
        return new Summary(n, sorted[rank(50, n)], sorted[rank(99, n)], sorted[n - 1]);
    }

    private static int rank(int percentile, int n) {
        return Math.max(0, (int) Math.ceil(percentile / 100.0 * n) - 1);
    }
}
