package io.cairn.raftbench;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A closed-loop load on a leader: {@code proposers} entries in flight at all times, each of
 * {@code writesPerEntry} writes, for a bounded time and count. Entries come from a pool made before
 * the clock starts, so the generator itself costs little CPU.
 */
final class Load {
    /** Latencies kept per cell; past this the run stops (a bound, not a target). */
    static final int MAX_ENTRIES = 2_000_000;
    private static final int POOL = 256;
    private static final Duration DRAIN = Duration.ofSeconds(30);

    record Result(int writesPerEntry, int proposers, long entries, long errors, long nanos, long p50Nanos, long p99Nanos, String firstError) {
        double entriesPerSecond() {
            return entries * 1e9 / nanos;
        }

        double writesPerSecond() {
            return entriesPerSecond() * writesPerEntry;
        }

        String line() {
            return String.join(" ", "result", Integer.toString(writesPerEntry), Integer.toString(proposers), Long.toString(entries),
                    Long.toString(errors), Long.toString(nanos), Long.toString(p50Nanos), Long.toString(p99Nanos),
                    firstError == null ? "-" : firstError.replace(' ', '_'));
        }

        static Result parse(String line) {
            String[] f = line.split(" ");
            if (f.length != 9 || !f[0].equals("result")) throw new IllegalArgumentException("not a result line: " + line);
            return new Result(Integer.parseInt(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]),
                    Long.parseLong(f[6]), Long.parseLong(f[7]), f[8].equals("-") ? null : f[8].replace('_', ' '));
        }
    }

    private Load() {
    }

    static Result run(Member leader, int writesPerEntry, int proposers, Duration duration) throws InterruptedException {
        byte[][] pool = new byte[POOL][];
        for (int i = 0; i < POOL; i++) pool[i] = Workload.entry(writesPerEntry);
        long[] latencies = new long[MAX_ENTRIES];
        AtomicInteger done = new AtomicInteger();
        AtomicLong errors = new AtomicLong();
        String[] firstError = new String[1];
        Semaphore slots = new Semaphore(proposers);
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        int issued = 0;
        while (issued < MAX_ENTRIES && System.nanoTime() < end) {
            if (!slots.tryAcquire(100, TimeUnit.MILLISECONDS)) continue;
            long t0 = System.nanoTime();
            leader.propose(pool[issued % POOL]).whenComplete((v, e) -> {
                if (e == null) {
                    int at = done.getAndIncrement();
                    if (at < latencies.length) latencies[at] = System.nanoTime() - t0;
                } else if (errors.getAndIncrement() == 0) {
                    firstError[0] = String.valueOf(e.getMessage());
                }
                slots.release();
            });
            issued++;
        }
        if (!slots.tryAcquire(proposers, DRAIN.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException((proposers - slots.availablePermits()) + " entries still unanswered " + DRAIN + " after the run");
        }
        long nanos = System.nanoTime() - start;
        int n = Math.min(done.get(), latencies.length);
        long[] sorted = Arrays.copyOf(latencies, n);
        Arrays.sort(sorted);
        return new Result(writesPerEntry, proposers, done.get(), errors.get(), nanos, percentile(sorted, 0.50), percentile(sorted, 0.99), firstError[0]);
    }

    private static long percentile(long[] sorted, double q) {
        return sorted.length == 0 ? 0 : sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    }
}
