package io.cairn.router;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.RetryClass;
import io.cairn.core.wire.KeyPage;
import io.cairn.core.wire.KeyPage.Position;
import io.cairn.core.wire.KeyQuery;
import io.cairn.core.wire.StorageRequest;
import io.cairn.router.KvBackend.ScanPage;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.LongSupplier;

/**
 * Whole-keyspace commands of the router. DBSIZE, KEYS and FLUSHALL run under storage refs
 * ({@link MapReduce}); SCAN needs none: it walks buckets in id order and asks each bucket's
 * current owner for the keys after the last one returned. A bucket moves with its data and keeps
 * its key order, so finishing a bucket at its new owner misses nothing that was there all along.
 */
final class Keyspace {
    /** Keys per page when KEYS lists a replicaset. */
    private static final int LIST_PAGE_KEYS = 1_000;
    private static final int PAGE_BYTES = 1 << 20;
    /** Requests one SCAN call may make before it answers with what it has. */
    private static final int MAX_SCAN_REQUESTS = 16;
    private static final long MIN_BACKOFF_MS = 5;
    private static final long MAX_BACKOFF_MS = 200;

    private final RouteMap routes;
    private final Map<String, MapReduceClient> replicasets;
    private final RouterClock clock;
    private final MapReduce mapReduce;
    private final Runnable rediscover;
    /** The deadline ({@link RouterClock#nanoTime}) of a call starting now. */
    private final LongSupplier deadline;

    Keyspace(RouteMap routes, Map<String, MapReduceClient> replicasets, RouterClock clock, Runnable rediscover, LongSupplier deadline) {
        this.routes = routes;
        this.replicasets = replicasets;
        this.clock = clock;
        this.mapReduce = new MapReduce(clock);
        this.rediscover = rediscover;
        this.deadline = deadline;
    }

    /** Keys of all owned buckets, counted under refs: exact even while buckets move. */
    CompletableFuture<Long> count() {
        return mapReduce.run(replicasets.values(), deadline.getAsLong(), (rs, refId) -> rs.keys(KeyQuery.countOwned(refId)).thenApply(page -> {
            if (page.isError()) throw new CairnException(page.error(), "replicaset " + rs.id() + ": " + page.message());
            return page.count();
        })).thenApply(counts -> counts.values().stream().mapToLong(Long::longValue).sum());
    }

    /** Every key accepted by {@code match}, under refs; fails with TOO_MANY_KEYS past {@code maxKeys}. */
    CompletableFuture<List<byte[]>> keys(Predicate<byte[]> match, int maxKeys) {
        AtomicInteger matched = new AtomicInteger();
        return mapReduce.<List<byte[]>>run(replicasets.values(), deadline.getAsLong(), (rs, refId) -> {
            List<byte[]> out = new ArrayList<>();
            return listOwned(rs, refId, Position.START, match, out, matched, maxKeys);
        }).thenApply(lists -> {
            List<byte[]> all = new ArrayList<>();
            lists.values().forEach(all::addAll);
            return all;
        });
    }

    private CompletableFuture<List<byte[]>> listOwned(MapReduceClient rs, long refId, Position from, Predicate<byte[]> match,
                                                      List<byte[]> out, AtomicInteger matched, int maxKeys) {
        return rs.keys(KeyQuery.listOwned(refId, from, LIST_PAGE_KEYS, PAGE_BYTES)).thenCompose(page -> {
            if (page.isError()) throw new CairnException(page.error(), "replicaset " + rs.id() + ": " + page.message());
            for (KeyPage.Entry e : page.keys()) {
                if (!match.test(e.key())) continue;
                if (matched.incrementAndGet() > maxKeys) {
                    throw new CairnException(ErrorCode.TOO_MANY_KEYS, "more than " + maxKeys + " keys match; use SCAN");
                }
                out.add(e.key());
            }
            if (page.next() == null) return CompletableFuture.completedFuture(out);
            return listOwned(rs, refId, page.next(), match, out, matched, maxKeys);
        });
    }

    /** Deletes every key, replicaset by replicaset (one log entry each, under refs); the number deleted. */
    CompletableFuture<Long> flushAll() {
        return mapReduce.run(replicasets.values(), deadline.getAsLong(), (rs, refId) -> rs.command(StorageRequest.flush(refId)).thenApply(r -> {
            if (r.isError()) throw new CairnException(r.error(), "replicaset " + rs.id() + ": " + r.message());
            return r.number();
        })).thenApply(counts -> counts.values().stream().mapToLong(Long::longValue).sum());
    }

    /** Up to about {@code count} keys from {@code from} on, in (bucket, key) order. */
    CompletableFuture<ScanPage> scan(Position from, int count) {
        CompletableFuture<ScanPage> done = new CompletableFuture<>();
        scanStep(from, Math.max(1, count), new ArrayList<>(), 0, 0, deadline.getAsLong(), done);
        return done;
    }

    private void scanStep(Position from, int count, List<byte[]> keys, int requests, int attempt, long deadlineNanos,
                          CompletableFuture<ScanPage> done) {
        int last = routes.bucketCount();
        if (from.bucket() > last) {
            done.complete(new ScanPage(keys, null));
            return;
        }
        String owner = routes.owner(from.bucket());
        MapReduceClient rs = owner == null ? null : replicasets.get(owner);
        if (rs == null) {
            rediscover.run();
            retryScan(from, count, keys, requests, attempt, deadlineNanos, done,
                    new CairnException(ErrorCode.NO_ROUTE, "no known owner for bucket " + from.bucket()));
            return;
        }
        int end = from.bucket();
        while (end < last && owner.equals(routes.owner(end + 1))) end++;
        int rangeEnd = end;
        rs.keys(KeyQuery.listRange(from, rangeEnd, count - keys.size(), PAGE_BYTES)).whenComplete((page, e) -> {
            if (e != null) {
                retryScan(from, count, keys, requests, attempt, deadlineNanos, done, MapReduce.asCairn(e));
                return;
            }
            page.keys().forEach(k -> keys.add(k.key()));
            if (page.isError()) {
                boolean rerouted = false;
                if (page.error() == ErrorCode.WRONG_BUCKET) {
                    // the page names where the bucket went (a SENT record's peer): ask there now, else discovery must find it
                    rerouted = routes.wrongOwner(page.next().bucket(), owner, page.payload());
                    if (!rerouted) rediscover.run();
                }
                if (!keys.isEmpty()) done.complete(new ScanPage(keys, page.next()));
                else if (rerouted && requests + 1 < MAX_SCAN_REQUESTS) scanStep(page.next(), count, keys, requests + 1, attempt, deadlineNanos, done);
                else retryScan(page.next(), count, keys, requests, attempt, deadlineNanos, done, new CairnException(page.error(), page.message()));
                return;
            }
            if (page.next() != null) {
                done.complete(new ScanPage(keys, page.next()));
                return;
            }
            Position next = new Position(rangeEnd + 1, null);
            if (rangeEnd >= last) done.complete(new ScanPage(keys, null));
            else if (keys.size() >= count || requests + 1 >= MAX_SCAN_REQUESTS) done.complete(new ScanPage(keys, next));
            else scanStep(next, count, keys, requests + 1, 0, deadlineNanos, done);
        });
    }

    private void retryScan(Position from, int count, List<byte[]> keys, int requests, int attempt, long deadlineNanos,
                            CompletableFuture<ScanPage> done, CairnException why) {
        long now = clock.nanoTime();
        if (now >= deadlineNanos || why.code().retry == RetryClass.FATAL) {
            done.completeExceptionally(why);
            return;
        }
        long backoffMs = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS << Math.min(attempt, 6));
        // dropped once the router is closed: its connections, which wait for this, close with it
        clock.schedule(Math.min(TimeUnit.MILLISECONDS.toNanos(backoffMs), deadlineNanos - now),
                () -> scanStep(from, count, keys, requests, attempt + 1, deadlineNanos, done));
    }
}
