package io.cairn.server.bench;

import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.router.Router;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/** One client doing SET then GET of random loaded keys ({@link MoveBench#key}), recording each operation's latency. */
public final class Foreground {
    private final long[] latenciesMicros;
    private final int count;
    private final double seconds;
    /** The router's retries during the slowest operation: what the worst stall waited for. */
    private final long worstRetries;
    /** Operations answered with an error (any kind), the first one's text. */
    private final int errors;
    private final String firstError;

    private Foreground(long[] latencies, int count, double seconds, long worstRetries, int errors, String firstError) {
        this.latenciesMicros = Arrays.copyOf(latencies, count);
        Arrays.sort(latenciesMicros);
        this.count = count;
        this.seconds = seconds;
        this.worstRetries = worstRetries;
        this.errors = errors;
        this.firstError = firstError;
    }

    public static Foreground measure(Router router, int keys, int buckets, int valueBytes, Duration max, AtomicBoolean keepGoing) {
        long[] lat = new long[2_000_000];
        int n = 0;
        long worst = -1;
        long worstRetries = 0;
        int errors = 0;
        String firstError = null;
        long start = System.nanoTime();
        long end = start + max.toNanos();
        byte[] value = new byte[valueBytes];
        while (System.nanoTime() < end && n < lat.length - 1 && (keepGoing == null || keepGoing.get())) {
            byte[] key = MoveBench.key(ThreadLocalRandom.current().nextInt(Math.max(1, keys)));
            int bucket = BucketHasher.bucketOf(key, buckets);
            for (KvOp op : List.of(KvOp.set(bucket, key, value), KvOp.get(bucket, key))) {
                long retries = router.retries();
                long t = System.nanoTime();
                OpResult r = router.execute(List.of(op)).join().get(0);
                if (r.isError()) {
                    errors++;
                    if (firstError == null) firstError = r.error() + " " + r.message();
                }
                lat[n] = (System.nanoTime() - t) / 1_000;
                if (lat[n] > worst) {
                    worst = lat[n];
                    worstRetries = router.retries() - retries;
                }
                n++;
            }
        }
        return new Foreground(lat, n, (System.nanoTime() - start) / 1e9, worstRetries, errors, firstError);
    }

    public double p(int percentile) {
        if (count == 0) return 0;
        return latenciesMicros[Math.min(count - 1, (int) Math.ceil(percentile / 100.0 * count) - 1)] / 1000.0;
    }

    public double opsPerSecond() {
        return count / seconds;
    }

    public String summary() {
        return String.format("%,d ops, %.0f ops/s, p50 %.1f ms, p99 %.1f ms, worst %.1f ms (%d retries), %d errors%s", count, opsPerSecond(), p(50), p(99),
                count == 0 ? 0 : latenciesMicros[count - 1] / 1000.0, worstRetries, errors, firstError == null ? "" : " (first: " + firstError + ")");
    }
}
