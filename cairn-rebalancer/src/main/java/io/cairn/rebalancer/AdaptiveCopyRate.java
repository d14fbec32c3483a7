package io.cairn.rebalancer;

import java.util.Arrays;

/**
 * Chooses the copy-ahead rate from how long the moves' own steps take to commit. A step (StartSend,
 * the changed keys, a verdict) waits behind the chunks already in the destination's log, so a
 * copy that outruns the machine shows first as slow steps, and a bucket refuses writes for about
 * three of them during its hand-over. As in LEDBAT (RFC 6817), the signal is the delay the copy
 * adds, not the latency itself, since what a step costs unloaded differs between a laptop and a
 * server: every {@link #WINDOW_MS} the window's median step latency is compared with the lowest
 * window median of the last {@link #BASE_WINDOWS} windows (the base). More than the target above
 * the base, the rate drops to {@link #BACK_OFF} of what was actually copied; under
 * {@link #GROW_BELOW} of the target above it, the rate grows by {@link #GROW}, but only while the
 * rate is what limits the copy. Both directions are multiplicative, to find a rate quickly on any
 * machine. The rate stays between a floor, so a move always progresses, and the operator's cap.
 * Until the first slow window, and with no cap, the copy is not limited at all. Plain object: one
 * thread, time passed in.
 */
final class AdaptiveCopyRate {
    static final long WINDOW_MS = 250;
    /** The base is the lowest median of this many windows (10 s). */
    static final int BASE_WINDOWS = 40;
    static final double BACK_OFF = 0.7;
    static final double GROW = 1.15;
    static final double GROW_BELOW = 0.7;
    /** The lowest rate it backs off to (or the cap, if that is lower): 1 MiB/s. */
    static final long FLOOR_BYTES_PER_SECOND = 1 << 20;

    private final long targetMs;
    private final long cap;
    private final long floor;
    /** Bytes per second; 0 for no limit. */
    private long rate;
    private long windowStartMs = Long.MIN_VALUE;
    private long copiedInWindow;
    private long[] latencies = new long[16];
    private int samples;
    /** The last window medians, oldest first overwritten. */
    private final long[] medians = new long[BASE_WINDOWS];
    private int windows;

    /**
     * @param targetMs how much the copy may add to the median step latency
     * @param cap      the highest rate in bytes per second; 0 for none
     */
    AdaptiveCopyRate(long targetMs, long cap) {
        if (targetMs < 1) throw new IllegalArgumentException("targetMs must be >= 1, was " + targetMs);
        if (cap < 0) throw new IllegalArgumentException("cap must be >= 0 (0: none), was " + cap);
        this.targetMs = targetMs;
        this.cap = cap;
        this.floor = cap == 0 ? FLOOR_BYTES_PER_SECOND : Math.min(cap, FLOOR_BYTES_PER_SECOND);
        this.rate = cap;
    }

    /** The rate chunks may leave at now, in bytes per second; 0 for no limit. */
    long bytesPerSecond() {
        return rate;
    }

    /** The median step latency of the last window that had steps; -1 before the first. */
    long lastMedianMs() {
        return windows == 0 ? -1 : medians[(windows - 1) % BASE_WINDOWS];
    }

    /** The lowest window median of the last {@link #BASE_WINDOWS} windows; -1 before the first. */
    long baseMs() {
        return windows == 0 ? -1 : base();
    }

    void copied(long bytes, long nowMs) {
        roll(nowMs);
        copiedInWindow += bytes;
    }

    /** A step was answered {@code latencyMs} after it was submitted. */
    void stepAnswered(long latencyMs, long nowMs) {
        roll(nowMs);
        if (samples == latencies.length) latencies = Arrays.copyOf(latencies, 2 * samples);
        latencies[samples++] = latencyMs;
    }

    private void roll(long nowMs) {
        if (windowStartMs == Long.MIN_VALUE) windowStartMs = nowMs;
        long elapsed = nowMs - windowStartMs;
        if (elapsed < WINDOW_MS) return;
        // A window without steps says nothing about the hand-overs: the rate stays.
        if (samples > 0) {
            long median = median();
            medians[windows++ % BASE_WINDOWS] = median;
            adjust(median - base(), copiedInWindow * 1000 / elapsed);
        }
        windowStartMs = nowMs;
        copiedInWindow = 0;
        samples = 0;
    }

    private void adjust(long addedMs, long copiedPerSecond) {
        if (addedMs > targetMs) {
            long base = rate == 0 ? copiedPerSecond : Math.min(rate, copiedPerSecond);
            rate = Math.max(floor, (long) (BACK_OFF * base));
        } else if (rate != 0 && addedMs <= GROW_BELOW * targetMs && copiedPerSecond >= rate / 2) {
            long grown = Math.max(rate + 1, (long) (rate * GROW));
            rate = cap == 0 ? grown : Math.min(cap, grown);
        }
    }

    private long base() {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < Math.min(windows, BASE_WINDOWS); i++) min = Math.min(min, medians[i]);
        return min;
    }

    private long median() {
        Arrays.sort(latencies, 0, samples);
        return latencies[samples / 2];
    }
}
