package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The parked long-polls (WATCH queries) of one coordinator node.
 *
 * <p>A watch asks "tell me when the epoch exceeds N, or after W ms". It is answered at once when
 * the state is already newer, else parked until {@link #publish} sees a newer epoch or its wait
 * expires (answered with the unchanged state). The check-then-park in {@link #await} and the
 * set-then-collect in {@link #publish} hold the same lock, so no wake-up is lost between them.
 *
 * <p>Futures are completed on the hub's own executor, never on the publisher's thread: the
 * publisher is Ratis's apply thread, and completing a future runs the Ratis reply path (encode,
 * gRPC send) for every parked watcher synchronously. {@link #close} answers every parked watch
 * with the last state so no caller waits for a node that is going away. Bounded by
 * {@code maxPending}; beyond it a watch is refused with UNAVAILABLE and the client backs off.
 */
final class WatchHub implements AutoCloseable {
    private static final class Parked {
        final long afterEpoch;
        final CompletableFuture<CoordinatorState> future = new CompletableFuture<>();
        ScheduledFuture<?> expiry;

        Parked(long afterEpoch) {
            this.afterEpoch = afterEpoch;
        }
    }

    private final ScheduledExecutorService executor;
    private final int maxPending;
    private final long maxWaitMs;
    private final List<Parked> parked = new ArrayList<>();
    private CoordinatorState latest = CoordinatorState.EMPTY;
    private boolean closed;

    WatchHub(ScheduledExecutorService executor, int maxPending, long maxWaitMs) {
        this.executor = executor;
        this.maxPending = maxPending;
        this.maxWaitMs = maxWaitMs;
    }

    /** Completes when the epoch exceeds {@code afterEpoch}, or after {@code waitMs} with the unchanged state. */
    CompletableFuture<CoordinatorState> await(long afterEpoch, long waitMs) {
        Parked p = new Parked(afterEpoch);
        synchronized (this) {
            if (closed || latest.epoch() > afterEpoch || waitMs <= 0) {
                return CompletableFuture.completedFuture(latest);
            }
            if (parked.size() >= maxPending) {
                return CompletableFuture.failedFuture(new CairnException(ErrorCode.UNAVAILABLE,
                        "coordinator has " + parked.size() + " parked watches; retry later"));
            }
            parked.add(p);
            try {
                p.expiry = executor.schedule(() -> expire(p), Math.min(waitMs, maxWaitMs), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                parked.remove(p);
                return CompletableFuture.completedFuture(latest);
            }
        }
        return p.future;
    }

    /** Records the newest state and wakes the watches it satisfies (on the hub's executor). */
    void publish(CoordinatorState state) {
        List<Parked> ready = new ArrayList<>();
        synchronized (this) {
            latest = state;
            for (Iterator<Parked> it = parked.iterator(); it.hasNext(); ) {
                Parked p = it.next();
                if (state.epoch() > p.afterEpoch) {
                    ready.add(p);
                    it.remove();
                }
            }
        }
        if (!ready.isEmpty()) completeOffThread(ready, state);
    }

    synchronized int parkedCount() {
        return parked.size();
    }

    /** Answers every parked watch with the last state and stops the executor. */
    @Override
    public void close() {
        List<Parked> all;
        CoordinatorState last;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(parked);
            parked.clear();
            last = latest;
        }
        complete(all, last);
        executor.shutdownNow();
    }

    private void expire(Parked p) {
        CoordinatorState last;
        synchronized (this) {
            if (!parked.remove(p)) return;
            last = latest;
        }
        p.future.complete(last);
    }

    private void completeOffThread(List<Parked> ready, CoordinatorState state) {
        try {
            executor.execute(() -> complete(ready, state));
        } catch (RejectedExecutionException e) {
            complete(ready, state); // closing: nothing else will answer them
        }
    }

    private static void complete(List<Parked> ready, CoordinatorState state) {
        for (Parked p : ready) {
            if (p.expiry != null) p.expiry.cancel(false);
            p.future.complete(state);
        }
    }
}
