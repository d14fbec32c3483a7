package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The one token bucket per process for object-store calls (issue 23 item 5): calls per second and
 * bytes per second, changeable at run time ({@link #setRates}), with counters for metrics.
 *
 * <p>Model: each of the two buckets holds at most one second of its rate (the burst) and may go
 * into debt: a call that takes more than is there (a 100 MB upload on a 10 MB/s budget) is admitted
 * after waiting for the debt it leaves, and later callers wait behind it. So a single large object
 * never deadlocks and the long-run rate holds. The reservation is made under the lock, the wait
 * happens outside it, so waiting callers do not block each other's bookkeeping.
 *
 * <p>Time and waiting are injected (a nano clock and a {@link Sleeper}) so tests drive the bucket on
 * a simulated clock, never by sleeping.
 */
public final class StoreThrottle {
    /** Waits the given number of nanoseconds; the real one parks the thread. */
    @FunctionalInterface
    public interface Sleeper {
        void sleepNanos(long nanos) throws InterruptedException;
    }

    /** Rates; 0 means unlimited. */
    public record Rates(long callsPerSecond, long bytesPerSecond) {
        public static final Rates UNLIMITED = new Rates(0, 0);

        public Rates {
            if (callsPerSecond < 0 || bytesPerSecond < 0)
                throw new CairnException(ErrorCode.INVALID_CONFIG, "object store rates must be >= 0 (0 = unlimited): "
                        + callsPerSecond + " calls/s, " + bytesPerSecond + " bytes/s");
        }
    }

    /** Counters since start, for the metrics step to export. */
    public record Stats(long calls, long bytes, long throttledCalls, long waitedNanos) {}

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final LongSupplier nanoClock;
    private final Sleeper sleeper;
    private Rates rates;
    private double callTokens;
    private double byteTokens;
    private long lastRefillNanos;
    private long calls;
    private long bytes;
    private long throttledCalls;
    private long waitedNanos;

    public StoreThrottle(Rates rates, LongSupplier nanoClock, Sleeper sleeper) {
        this.nanoClock = nanoClock;
        this.sleeper = sleeper;
        this.lastRefillNanos = nanoClock.getAsLong();
        setRates(rates);
    }

    /** A throttle on the real clock. */
    public static StoreThrottle system(Rates rates) {
        return new StoreThrottle(rates, System::nanoTime, nanos -> {
            long deadline = System.nanoTime() + nanos;
            for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
                LockSupport.parkNanos(left);
                if (Thread.interrupted()) throw new InterruptedException();
            }
        });
    }

    /** Takes effect for the next call; tokens above the new burst are dropped, debt is kept. */
    public synchronized void setRates(Rates newRates) {
        refill();
        if (rates == null || rates.callsPerSecond() == 0) callTokens = newRates.callsPerSecond();
        if (rates == null || rates.bytesPerSecond() == 0) byteTokens = newRates.bytesPerSecond();
        rates = newRates;
        callTokens = Math.min(callTokens, newRates.callsPerSecond());
        byteTokens = Math.min(byteTokens, newRates.bytesPerSecond());
    }

    public synchronized Rates rates() {
        return rates;
    }

    public synchronized Stats stats() {
        return new Stats(calls, bytes, throttledCalls, waitedNanos);
    }

    /** Admits {@code callCount} calls moving {@code byteCount} bytes, waiting as long as the rates say. */
    public void acquire(int callCount, long byteCount) {
        long wait = reserve(callCount, byteCount);
        if (wait <= 0) return;
        try {
            sleeper.sleepNanos(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CairnException(ErrorCode.OBJECT_STORE_UNAVAILABLE, "interrupted while throttled before an object store call");
        }
    }

    /** Books the call and returns how long its caller must wait, in nanoseconds. */
    synchronized long reserve(int callCount, long byteCount) {
        if (callCount < 0 || byteCount < 0) throw new IllegalArgumentException("negative reservation");
        refill();
        calls += callCount;
        bytes += byteCount;
        long wait = 0;
        if (rates.callsPerSecond() > 0) {
            callTokens -= callCount;
            if (callTokens < 0) wait = Math.max(wait, (long) (-callTokens * NANOS_PER_SECOND / rates.callsPerSecond()));
        }
        if (rates.bytesPerSecond() > 0) {
            byteTokens -= byteCount;
            if (byteTokens < 0) wait = Math.max(wait, (long) (-byteTokens * NANOS_PER_SECOND / rates.bytesPerSecond()));
        }
        if (wait > 0) {
            throttledCalls++;
            waitedNanos += wait;
        }
        return wait;
    }

    private void refill() {
        long now = nanoClock.getAsLong();
        long elapsed = Math.max(0, now - lastRefillNanos);
        lastRefillNanos = now;
        if (rates == null) return;
        double seconds = elapsed / (double) NANOS_PER_SECOND;
        if (rates.callsPerSecond() > 0)
            callTokens = Math.min(rates.callsPerSecond(), callTokens + seconds * rates.callsPerSecond());
        if (rates.bytesPerSecond() > 0)
            byteTokens = Math.min(rates.bytesPerSecond(), byteTokens + seconds * rates.bytesPerSecond());
    }
}
