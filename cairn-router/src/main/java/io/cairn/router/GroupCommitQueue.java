package io.cairn.router;

import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Packs units of operations into batches with at most {@code maxInflightBatches} outstanding.
 * A unit (the ops of one command for one replicaset) is never split across batches, so it is
 * applied atomically. Bounded: a batch holds at most maxBatchOps ops / maxBatchBytes bytes
 * (a single larger unit travels alone).
 *
 * <p>Deadlines: each unit carries its request's deadline ({@link System#nanoTime} based). A
 * batch is sent with the earliest deadline of its units, and a unit whose deadline passed while
 * it waited for a slot is answered TIMEOUT without being sent (nothing applied). So a request
 * queued behind a batch that used up its time is not given a second full budget.
 *
 * <p>Bounded (issue 28): at most {@link #QUEUED_BATCHES} full batches' worth of operations and
 * bytes wait, and never less than {@link #MIN_QUEUED_OPS} / {@link #MIN_QUEUED_BYTES} (so that tiny
 * batches do not make a tiny queue). A unit that would pass that is answered {@link ErrorCode#QUEUE_FULL} at once
 * without being queued (nothing applied), so a slow replicaset costs its clients errors, never
 * the router's heap. A unit alone in the queue is always accepted, however large.
 */
final class GroupCommitQueue {
    /** Sends one batch; the call gives up (failing the future) at {@code deadlineNs}. */
    @FunctionalInterface
    interface Sender {
        CompletableFuture<List<OpResult>> send(List<KvOp> ops, long deadlineNs);
    }

    private record Unit(List<KvOp> ops, int bytes, long deadlineNs, CompletableFuture<List<OpResult>> result) {}

    private final RouterConfig config;
    private final Sender sender;
    private final LongSupplier nanoTime;
    /** How many full batches (by ops and by bytes) may wait behind the ones in flight. */
    static final int QUEUED_BATCHES = 16;
    static final long MIN_QUEUED_OPS = 16_384;
    static final long MIN_QUEUED_BYTES = 64L << 20;

    private final ArrayDeque<Unit> queue = new ArrayDeque<>();
    private long queuedOps;
    private long queuedBytes;
    private final java.util.concurrent.atomic.LongAdder refused = new java.util.concurrent.atomic.LongAdder();
    private int inflight;
    private final java.util.concurrent.atomic.LongAdder batchesSent = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder opsSent = new java.util.concurrent.atomic.LongAdder();
    /** Calls to {@link #drain} not yet served; non-zero while one thread is draining. */
    private final java.util.concurrent.atomic.AtomicInteger drainRequests = new java.util.concurrent.atomic.AtomicInteger();

    GroupCommitQueue(RouterConfig config, Sender sender, LongSupplier nanoTime) {
        this.config = config;
        this.sender = sender;
        this.nanoTime = nanoTime;
    }

    CompletableFuture<List<OpResult>> enqueue(List<KvOp> ops, long deadlineNs) {
        int bytes = 0;
        for (KvOp op : ops) bytes += OpCodec.encodedSize(op);
        Unit unit = new Unit(ops, bytes, deadlineNs, new CompletableFuture<>());
        synchronized (this) {
            if (!queue.isEmpty() && (queuedOps + ops.size() > maxQueuedOps() || queuedBytes + bytes > maxQueuedBytes())) {
                refused.increment();
                return CompletableFuture.completedFuture(new ArrayList<>(Collections.nCopies(ops.size(), full(queuedOps, queuedBytes))));
            }
            queue.add(unit);
            queuedOps += ops.size();
            queuedBytes += bytes;
        }
        drain();
        return unit.result();
    }

    private static OpResult full(long ops, long bytes) {
        return OpResult.error(ErrorCode.QUEUE_FULL, "the router's queue to the replicaset is full (" + ops + " operations, "
                + bytes + " bytes waiting); it was not applied, retry shortly");
    }

    /** Operations that may wait to be sent. */
    long maxQueuedOps() {
        return Math.max(MIN_QUEUED_OPS, (long) QUEUED_BATCHES * config.maxBatchOps());
    }

    /** Bytes of operations that may wait to be sent. */
    long maxQueuedBytes() {
        return Math.max(MIN_QUEUED_BYTES, (long) QUEUED_BATCHES * config.maxBatchBytes());
    }

    /** Units refused because the queue was full. */
    long refused() {
        return refused.sum();
    }

    /**
     * Sends batches while a slot is free. One thread drains at a time; a call that finds another
     * draining (on another thread, or lower on its own stack when a reply arrives synchronously)
     * only asks it to look again. Without this, a sender that answers at once (a closed client
     * fails inline) recursed once per queued batch, and a StackOverflowError swallowed by the
     * future left units unanswered and a slot taken for good.
     */
    private void drain() {
        if (drainRequests.getAndIncrement() != 0) return;
        int missed = 1;
        do {
            List<Unit> batch;
            while ((batch = takeBatch()) != null) send(batch);
            missed = drainRequests.addAndGet(-missed);
        } while (missed != 0);
    }

    private void send(List<Unit> units) {
        List<Unit> batch = new ArrayList<>(units.size());
        long now = nanoTime.getAsLong();
        for (Unit u : units) {
            if (now - u.deadlineNs() >= 0) {
                u.result().complete(new ArrayList<>(Collections.nCopies(u.ops().size(), EXPIRED)));
            } else {
                batch.add(u);
            }
        }
        if (batch.isEmpty()) {
            synchronized (this) {
                inflight--;
            }
            return; // the drain loop looks at the queue again
        }
        List<KvOp> ops = new ArrayList<>();
        long deadline = batch.get(0).deadlineNs();
        for (Unit u : batch) {
            ops.addAll(u.ops());
            if (u.deadlineNs() - deadline < 0) deadline = u.deadlineNs();
        }
        batchesSent.increment();
        opsSent.add(ops.size());
        CompletableFuture<List<OpResult>> sent;
        try {
            sent = sender.send(ops, deadline);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        sent.whenComplete((results, error) -> {
            synchronized (this) {
                inflight--;
            }
            complete(batch, results, error);
            drain();
        });
    }

    private static final OpResult EXPIRED = OpResult.error(ErrorCode.TIMEOUT,
            "the request's deadline passed while it waited to be sent; it was not applied");

    /** Raft entries sent so far. */
    long batches() {
        return batchesSent.sum();
    }

    /** Operations sent so far; divided by {@link #batches()} it is the mean group-commit batch size. */
    long ops() {
        return opsSent.sum();
    }

    private synchronized List<Unit> takeBatch() {
        if (queue.isEmpty() || inflight >= config.maxInflightBatches()) return null;
        List<Unit> batch = new ArrayList<>();
        int ops = 0;
        int bytes = 0;
        while (!queue.isEmpty()) {
            Unit next = queue.peek();
            boolean fits = ops + next.ops().size() <= config.maxBatchOps() && bytes + next.bytes() <= config.maxBatchBytes();
            if (!batch.isEmpty() && !fits) break;
            queue.poll();
            queuedOps -= next.ops().size();
            queuedBytes -= next.bytes();
            batch.add(next);
            ops += next.ops().size();
            bytes += next.bytes();
        }
        inflight++;
        return batch;
    }

    private static void complete(List<Unit> batch, List<OpResult> results, Throwable error) {
        int offset = 0;
        for (Unit u : batch) {
            int n = u.ops().size();
            if (error != null || results == null || results.size() < offset + n) {
                u.result().complete(ReplicasetClient.failed(n, error == null ? new IllegalStateException("short reply") : error));
            } else {
                u.result().complete(new ArrayList<>(results.subList(offset, offset + n)));
            }
            offset += n;
        }
    }
}
