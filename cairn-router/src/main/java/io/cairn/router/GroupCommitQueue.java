package io.cairn.router;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Packs units of operations into batches with at most {@code maxInflightBatches} outstanding.
 * A unit (the ops of one command for one replicaset) is never split across batches, so it is
 * applied atomically. Bounded: a batch holds at most maxBatchOps ops / maxBatchBytes bytes
 * (a single larger unit travels alone).
 */
final class GroupCommitQueue {
    private record Unit(List<KvOp> ops, int bytes, CompletableFuture<List<OpResult>> result) {}

    private final RouterConfig config;
    private final Function<List<KvOp>, CompletableFuture<List<OpResult>>> sender;
    private final ArrayDeque<Unit> queue = new ArrayDeque<>();
    private int inflight;
    private final java.util.concurrent.atomic.LongAdder batchesSent = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder opsSent = new java.util.concurrent.atomic.LongAdder();
    /** Calls to {@link #drain} not yet served; non-zero while one thread is draining. */
    private final java.util.concurrent.atomic.AtomicInteger drainRequests = new java.util.concurrent.atomic.AtomicInteger();

    GroupCommitQueue(RouterConfig config, Function<List<KvOp>, CompletableFuture<List<OpResult>>> sender) {
        this.config = config;
        this.sender = sender;
    }

    CompletableFuture<List<OpResult>> enqueue(List<KvOp> ops) {
        int bytes = 0;
        for (KvOp op : ops) bytes += OpCodec.encodedSize(op);
        Unit unit = new Unit(ops, bytes, new CompletableFuture<>());
        synchronized (this) {
            queue.add(unit);
        }
        drain();
        return unit.result();
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

    private void send(List<Unit> batch) {
        List<KvOp> ops = new ArrayList<>();
        for (Unit u : batch) ops.addAll(u.ops());
        batchesSent.increment();
        opsSent.add(ops.size());
        CompletableFuture<List<OpResult>> sent;
        try {
            sent = sender.apply(ops);
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
