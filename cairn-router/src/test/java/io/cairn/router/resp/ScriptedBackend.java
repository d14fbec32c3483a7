package io.cairn.router.resp;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.router.KvBackend;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Wraps a backend to misbehave on purpose: fail calls, complete them late and out of order,
 * or hold them until released. Operations are applied at call time in call order (as the real
 * backend does per bucket); only the completion of the returned future is delayed.
 */
final class ScriptedBackend implements KvBackend, AutoCloseable {
    private final KvBackend delegate;
    private final ScheduledExecutorService completer = Executors.newScheduledThreadPool(3);
    private final AtomicLong calls = new AtomicLong();
    private volatile List<KvOp> lastCall = List.of();
    private final List<Runnable> held = new ArrayList<>();
    private volatile Predicate<KvOp> failWhen = op -> false;
    private volatile Predicate<KvOp> rejectWhen = op -> false;
    private volatile OpResult rejection;
    private volatile Random delays;
    private volatile int maxDelayMicros;
    private boolean holding;

    ScriptedBackend(KvBackend delegate) {
        this.delegate = delegate;
    }

    /** Calls containing a matching op fail their future (a backend bug, as far as RESP knows). */
    void failWhen(Predicate<KvOp> predicate) {
        failWhen = predicate;
    }

    /** Matching ops are not applied but answered with {@code error} (e.g. a bucket being moved). */
    void rejectWhen(Predicate<KvOp> predicate, OpResult error) {
        rejection = error;
        rejectWhen = predicate;
    }

    /** Completes futures after random delays from a seeded generator, so out of order. */
    void delayRandomly(long seed, int maxDelayMicros) {
        this.maxDelayMicros = maxDelayMicros;
        this.delays = new Random(seed);
    }

    synchronized void hold() {
        holding = true;
    }

    synchronized void release() {
        holding = false;
        held.forEach(Runnable::run);
        held.clear();
    }

    long calls() {
        return calls.get();
    }

    List<KvOp> lastCall() {
        return lastCall;
    }

    @Override
    public CompletableFuture<List<OpResult>> execute(List<KvOp> ops) {
        calls.incrementAndGet();
        lastCall = List.copyOf(ops);
        if (ops.stream().anyMatch(failWhen)) {
            return CompletableFuture.failedFuture(new IllegalStateException("injected failure"));
        }
        List<OpResult> results = apply(ops);
        CompletableFuture<List<OpResult>> reply = new CompletableFuture<>();
        Runnable complete = () -> reply.complete(results);
        synchronized (this) {
            if (holding) {
                held.add(complete);
                return reply;
            }
        }
        Random random = delays;
        if (random == null) {
            complete.run();
        } else {
            long delay;
            synchronized (random) {
                delay = random.nextInt(maxDelayMicros + 1);
            }
            completer.schedule(complete, delay, TimeUnit.MICROSECONDS);
        }
        return reply;
    }

    private List<OpResult> apply(List<KvOp> ops) {
        List<KvOp> accepted = ops.stream().filter(rejectWhen.negate()).toList();
        Iterator<OpResult> applied = delegate.execute(accepted).join().iterator();
        List<OpResult> results = new ArrayList<>(ops.size());
        for (KvOp op : ops) results.add(rejectWhen.test(op) ? rejection : applied.next());
        return results;
    }

    @Override
    public CompletableFuture<KeyspaceStats> keyspaceStats() {
        return delegate.keyspaceStats();
    }

    @Override
    public CompletableFuture<Long> dbSize() {
        return delegate.dbSize();
    }

    @Override
    public CompletableFuture<Long> exactKeyCount() {
        return delegate.exactKeyCount();
    }

    @Override
    public CompletableFuture<List<byte[]>> keys(Predicate<byte[]> match, int maxKeys) {
        return delegate.keys(match, maxKeys);
    }

    @Override
    public CompletableFuture<Long> flushAll() {
        return delegate.flushAll();
    }

    @Override
    public CompletableFuture<ScanPage> scan(io.cairn.core.wire.KeyPage.Position from, int count) {
        return delegate.scan(from, count);
    }

    @Override
    public int bucketCount() {
        return delegate.bucketCount();
    }

    @Override
    public Map<String, Map<String, String>> info() {
        return delegate.info();
    }

    @Override
    public void close() {
        completer.shutdownNow();
    }
}
