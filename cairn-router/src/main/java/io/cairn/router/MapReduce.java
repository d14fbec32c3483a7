package io.cairn.router;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.RetryClass;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.StorageRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A call over every replicaset under storage refs (vshard's {@code router.map_callrw}, DOMAIN.md
 * 1.12): take a ref on each replicaset, run the map step on each, release the refs.
 *
 * <p>Why the result is exact: a replicaset grants a ref only while none of its buckets is in
 * transfer (SENDING, RECEIVING, SENT with data), and refuses to start sending a bucket while a
 * ref is held. Once every replicaset granted its ref, no move was running anywhere (a move in
 * flight keeps its source refusing) and none can start, so every bucket is owned by exactly one
 * replicaset until the refs are released. The map steps run only after all refs are granted.
 *
 * <p>Refusals (a move in progress, or a move waiting for its turn) are retried with backoff
 * within the request deadline; refs already granted are kept meanwhile (they only stop new
 * moves, never the ones in flight, so holding them cannot deadlock). Refs are released after
 * the map steps whatever their outcome, and expire after {@link #REF_TTL_MS} anyway, so a router
 * that crashes mid-call blocks moves for a bounded time.
 */
final class MapReduce {
    private static final Logger log = LoggerFactory.getLogger(MapReduce.class);
    /** Time to live of a storage ref; replicasets cap it too. */
    static final long REF_TTL_MS = 30_000;
    private static final long MIN_BACKOFF_MS = 5;
    private static final long MAX_BACKOFF_MS = 200;

    /** One replicaset's step, run while the ref {@code refId} is held there. */
    @FunctionalInterface
    interface Step<T> {
        CompletableFuture<T> run(MapReduceClient replicaset, long refId);
    }

    private final RouterClock clock;

    MapReduce(RouterClock clock) {
        this.clock = clock;
    }

    /** Runs {@code step} on every replicaset under refs; results by replicaset id. Fails with a {@link CairnException}. */
    <T> CompletableFuture<Map<String, T>> run(Collection<MapReduceClient> replicasets, long deadlineNanos, Step<T> step) {
        List<MapReduceClient> all = List.copyOf(replicasets);
        long refId = ThreadLocalRandom.current().nextLong() | 1;
        List<CompletableFuture<Void>> refs = new ArrayList<>();
        for (MapReduceClient c : all) {
            CompletableFuture<Void> granted = new CompletableFuture<>();
            takeRef(c, refId, deadlineNanos, 0, granted);
            refs.add(granted);
        }
        CompletableFuture<Map<String, T>> result = CompletableFuture.allOf(refs.toArray(CompletableFuture[]::new))
                .thenCompose(v -> {
                    Map<String, CompletableFuture<T>> steps = new LinkedHashMap<>();
                    for (MapReduceClient c : all) steps.put(c.id(), step.run(c, refId));
                    return CompletableFuture.allOf(steps.values().toArray(CompletableFuture[]::new)).thenApply(done -> {
                        Map<String, T> out = new LinkedHashMap<>();
                        steps.forEach((id, f) -> out.put(id, f.join()));
                        return out;
                    });
                });
        CompletableFuture<Map<String, T>> answered = new CompletableFuture<>();
        result.whenComplete((r, e) -> {
            for (MapReduceClient c : all) {
                c.command(StorageRequest.unref(refId)).whenComplete((ok, err) -> {
                    if (err != null) log.debug("releasing storage ref {} on {} failed (it expires): {}", refId, c.id(), err.toString());
                });
            }
            if (e != null) answered.completeExceptionally(asCairn(e));
            else answered.complete(r);
        });
        return answered;
    }

    private void takeRef(MapReduceClient c, long refId, long deadlineNanos, int attempt, CompletableFuture<Void> granted) {
        c.command(StorageRequest.ref(refId, REF_TTL_MS)).whenComplete((r, e) -> {
            if (e == null && !r.isError()) {
                granted.complete(null);
                return;
            }
            OpResult why = e == null ? r : OpResult.error(ErrorCode.UNAVAILABLE, rootMessage(e));
            long now = clock.nanoTime();
            if (why.error().retry != RetryClass.RETRY_LATER || now >= deadlineNanos) {
                granted.completeExceptionally(new CairnException(why.error(), "replicaset " + c.id() + ": " + why.message()));
                return;
            }
            long backoffMs = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS << Math.min(attempt, 6));
            long delayNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(backoffMs), deadlineNanos - now);
            clock.schedule(delayNanos, () -> takeRef(c, refId, deadlineNanos, attempt + 1, granted)); // dropped once the router is closed
        });
    }

    /** The catalogue error behind a failed future (UNAVAILABLE for transport failures). */
    static CairnException asCairn(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof CairnException c) return c;
        return new CairnException(ErrorCode.UNAVAILABLE, "replicaset unavailable: " + rootMessage(cause));
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root != root.getCause()) root = root.getCause();
        return String.valueOf(root.getMessage());
    }
}
