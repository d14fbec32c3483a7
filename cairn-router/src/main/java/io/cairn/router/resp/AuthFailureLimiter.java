package io.cairn.router.resp;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Failed AUTH attempts per client address in a fixed window: after {@code maxFailures} failures
 * an address is refused until its window (which began with its first failure) ends. The table is
 * bounded: past {@code maxAddresses} the address that failed least recently is forgotten, so an
 * attacker with many addresses costs memory up to the bound and no more. Synchronized: failures
 * are rare and every AUTH takes the lock once.
 */
final class AuthFailureLimiter {
    private final int maxFailures;
    private final long windowNanos;
    private final LongSupplier nanoTime;
    private final Map<String, Window> windows;

    private static final class Window {
        final long startNanos;
        int failures;

        Window(long startNanos) {
            this.startNanos = startNanos;
        }
    }

    AuthFailureLimiter(int maxFailures, Duration window, int maxAddresses, LongSupplier nanoTime) {
        if (maxFailures < 1) throw new IllegalArgumentException("maxFailures must be at least 1, was " + maxFailures);
        if (window == null || window.isNegative() || window.isZero()) throw new IllegalArgumentException("window must be positive, was " + window);
        if (maxAddresses < 1) throw new IllegalArgumentException("maxAddresses must be at least 1, was " + maxAddresses);
        this.maxFailures = maxFailures;
        this.windowNanos = window.toNanos();
        this.nanoTime = nanoTime;
        this.windows = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Window> eldest) {
                return size() > maxAddresses;
            }
        };
    }

    synchronized boolean limited(String address) {
        Window w = current(address);
        return w != null && w.failures >= maxFailures;
    }

    synchronized void failed(String address) {
        Window w = current(address);
        if (w == null) {
            w = new Window(nanoTime.getAsLong());
            windows.put(address, w);
        }
        w.failures++;
    }

    synchronized long nanosUntilAllowed(String address) {
        Window w = current(address);
        return w == null ? 0 : Math.max(0, w.startNanos + windowNanos - nanoTime.getAsLong());
    }

    synchronized int trackedAddresses() {
        return windows.size();
    }

    /** The address's window if it has not ended; an ended one is dropped. */
    private Window current(String address) {
        Window w = windows.get(address);
        if (w != null && nanoTime.getAsLong() - w.startNanos >= windowNanos) {
            windows.remove(address);
            return null;
        }
        return w;
    }
}
