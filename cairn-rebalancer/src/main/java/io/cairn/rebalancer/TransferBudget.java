package io.cairn.rebalancer;

/**
 * The bytes per second bucket data may be copied at, shared by every move the driver runs. A
 * move competes with foreground requests for the same CPU and disks, and the Raft commit latency
 * it causes is what a foreground request waits (docs/benchmarks.md): this trades move rate for
 * foreground latency. The rate is the operator's cap, or, with a step latency target, chosen by
 * {@link AdaptiveCopyRate} under that cap. A chunk may leave while the budget is not negative and
 * is charged in full, so the budget can go negative by at most one chunk; it refills at the rate,
 * up to a tenth of a second's worth. A rate of zero means unlimited. Plain object, driver thread
 * only.
 */
final class TransferBudget {
    private static final long MAX_SAVED_MS = 100;

    /** Null for a fixed rate. */
    private AdaptiveCopyRate adaptive;
    private long bytesPerSecond;
    private double available;
    private long refilledAtMs = Long.MIN_VALUE;

    TransferBudget(long bytesPerSecond) {
        this(bytesPerSecond, 0);
    }

    /**
     * @param maxBytesPerSecond the cap; 0 for none
     * @param stepTargetMs      0 for a fixed rate (the cap); otherwise the median step latency the
     *                          adaptive rate keeps under
     */
    TransferBudget(long maxBytesPerSecond, long stepTargetMs) {
        if (maxBytesPerSecond < 0) throw new IllegalArgumentException("bytesPerSecond must be >= 0, was " + maxBytesPerSecond);
        if (stepTargetMs < 0) throw new IllegalArgumentException("stepTargetMs must be >= 0, was " + stepTargetMs);
        this.adaptive = stepTargetMs == 0 ? null : new AdaptiveCopyRate(stepTargetMs, maxBytesPerSecond);
        this.bytesPerSecond = maxBytesPerSecond;
    }

    /**
     * A new cap and step latency target from now on (run-time settings): what was saved is kept
     * within the new rate's bound; an adaptive rate starts anew, as at start.
     */
    void reconfigure(long maxBytesPerSecond, long stepTargetMs, long nowMs) {
        if (maxBytesPerSecond < 0) throw new IllegalArgumentException("bytesPerSecond must be >= 0, was " + maxBytesPerSecond);
        if (stepTargetMs < 0) throw new IllegalArgumentException("stepTargetMs must be >= 0, was " + stepTargetMs);
        if (bytesPerSecond != 0) refill(nowMs);
        else {
            available = 0;
            refilledAtMs = nowMs;
        }
        adaptive = stepTargetMs == 0 ? null : new AdaptiveCopyRate(stepTargetMs, maxBytesPerSecond);
        bytesPerSecond = maxBytesPerSecond;
        if (bytesPerSecond != 0) available = Math.min(available, maxSaved());
    }

    static TransferBudget unlimited() {
        return new TransferBudget(0);
    }

    /** The rate now, in bytes per second; 0 for no limit. */
    long bytesPerSecond() {
        return bytesPerSecond;
    }

    /** What the adaptive rate compares; -1 each for a fixed rate or before any step. */
    DataPlaneMovePort.StepLatency stepLatency() {
        return adaptive == null ? new DataPlaneMovePort.StepLatency(-1, -1) : new DataPlaneMovePort.StepLatency(adaptive.lastMedianMs(), adaptive.baseMs());
    }

    /** How long to wait before a chunk may leave: 0 when it may leave now. */
    long waitMs(long nowMs) {
        if (bytesPerSecond == 0) return 0;
        refill(nowMs);
        return available >= 0 ? 0 : (long) Math.ceil(-available * 1000 / bytesPerSecond);
    }

    /** Charges a chunk that left. */
    void spend(long bytes, long nowMs) {
        if (adaptive != null) {
            adaptive.copied(bytes, nowMs);
            follow(nowMs);
        }
        if (bytesPerSecond == 0) return;
        refill(nowMs);
        available -= bytes;
    }

    /** A move step (not a chunk copied ahead) was answered {@code latencyMs} after its entry was sent. */
    void stepAnswered(long latencyMs, long nowMs) {
        if (adaptive == null) return;
        adaptive.stepAnswered(latencyMs, nowMs);
        follow(nowMs);
    }

    @Override
    public String toString() {
        return bytesPerSecond + " B/s, " + Math.round(available) + " B available at " + refilledAtMs + " ms";
    }

    private void follow(long nowMs) {
        long next = adaptive.bytesPerSecond();
        if (next == bytesPerSecond) return;
        if (bytesPerSecond == 0) {
            available = 0;
            refilledAtMs = nowMs;
        } else {
            refill(nowMs);
        }
        bytesPerSecond = next;
        if (next != 0) available = Math.min(available, maxSaved());
    }

    private void refill(long nowMs) {
        if (refilledAtMs == Long.MIN_VALUE) {
            refilledAtMs = nowMs;
            return;
        }
        long elapsed = Math.max(0, nowMs - refilledAtMs);
        refilledAtMs = nowMs;
        available = Math.min(available + (double) elapsed * bytesPerSecond / 1000, maxSaved());
    }

    private double maxSaved() {
        return (double) bytesPerSecond * MAX_SAVED_MS / 1000;
    }
}
