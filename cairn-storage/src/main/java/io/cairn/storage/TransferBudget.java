package io.cairn.storage;

/**
 * The bytes per second bucket data may be copied at, shared by every move the driver runs. A
 * move competes with foreground requests for the same CPU and disks, and the Raft commit latency
 * it causes is what a foreground request waits (docs/benchmarks.md): this is the operator's
 * knob that trades move rate for foreground latency. A chunk may leave while the budget is not
 * negative and is charged in full, so the budget can go negative by at most one chunk; it refills
 * at the rate, up to a tenth of a second's worth. Zero means unlimited. Plain object, driver
 * thread only.
 */
final class TransferBudget {
    private static final long MAX_SAVED_MS = 100;

    private final long bytesPerSecond;
    private double available;
    private long refilledAtMs = Long.MIN_VALUE;

    TransferBudget(long bytesPerSecond) {
        if (bytesPerSecond < 0) throw new IllegalArgumentException("bytesPerSecond must be >= 0, was " + bytesPerSecond);
        this.bytesPerSecond = bytesPerSecond;
    }

    static TransferBudget unlimited() {
        return new TransferBudget(0);
    }

    /** How long to wait before a chunk may leave: 0 when it may leave now. */
    long waitMs(long nowMs) {
        if (bytesPerSecond == 0) return 0;
        refill(nowMs);
        return available >= 0 ? 0 : (long) Math.ceil(-available * 1000 / bytesPerSecond);
    }

    /** Charges a chunk that left. */
    void spend(long bytes, long nowMs) {
        if (bytesPerSecond == 0) return;
        refill(nowMs);
        available -= bytes;
    }

    private void refill(long nowMs) {
        if (refilledAtMs == Long.MIN_VALUE) {
            refilledAtMs = nowMs;
            return;
        }
        long elapsed = Math.max(0, nowMs - refilledAtMs);
        refilledAtMs = nowMs;
        available = Math.min(available + (double) elapsed * bytesPerSecond / 1000, (double) bytesPerSecond * MAX_SAVED_MS / 1000);
    }
}
