package io.cairn.router;

import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The router's request loop: sends each operation to the replicaset its {@link RouteMap} names,
 * and sends again, after a backoff and within the request's deadline, the operations whose
 * refusal guarantees nothing was applied (wrong owner, bucket locked or restoring, owner unknown;
 * a read that found no leader). The code's {@link io.cairn.core.RetryClass} decides, with the
 * exceptions {@link #sentAgain} names. A wrong-owner answer that names the new owner
 * ({@link io.cairn.core.ErrorPayload}: the old owner's SENT record) routes the bucket there and sends again at
 * once; one that does not forgets that route and asks discovery for the new one. A failure whose
 * outcome is unknown (a write that timed out in the log) is returned, never blindly retried, so a
 * non-idempotent INCR is not applied twice.
 *
 * <p>Plain logic: the replicasets are reached through {@link Replicasets} and time through a
 * {@link RouterClock}, so cairn-sim runs this very loop against simulated replicasets.
 */
final class Dispatcher {
    private static final long MIN_BACKOFF_MS = 5;
    private static final long MAX_BACKOFF_MS = 200;
    /**
     * The longest pause while only moving buckets refused: their new owner can take over at any
     * moment and the discovery that finds it runs every 20 ms, so a long pause would only add to
     * the client's wait.
     */
    private static final long MAX_LOCKED_BACKOFF_MS = 20;
    /**
     * A bucket that refuses requests while it moves (BUCKET_LOCKED) is looked for elsewhere at
     * most this often: a copied bucket's new owner takes over before its old one is SENT, and
     * only discovery tells.
     */
    private static final long LOCKED_DISCOVERY_MS = 20;
    /**
     * Attempts that may follow a payload's new owner without a pause. Each hop is a move to a higher
     * generation, so a chain is short; the bound keeps a faulty hint from spinning until the deadline.
     */
    private static final int MAX_IMMEDIATE_REROUTES = 3;

    /** Where the operations go. */
    interface Replicasets {
        /** Sends one replicaset's operations; null when this router has no client for it (then they get NO_ROUTE). */
        CompletableFuture<List<OpResult>> submit(String replicaset, List<KvOp> ops, long deadlineNs);
    }

    private final RouteMap routes;
    private final Replicasets replicasets;
    private final RouterClock clock;
    private final long requestTimeoutNs;
    private final Runnable rediscover;
    private final BooleanSupplier closed;
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong movesFollowed = new AtomicLong();
    private final AtomicLong lockedDiscoveryAtNs;

    /**
     * @param rediscover asks for a discovery round now (after a wrong-owner answer, or a locked bucket)
     * @param closed     true once the router closes: answer what is known, send nothing more
     */
    Dispatcher(RouteMap routes, Replicasets replicasets, RouterClock clock, Duration requestTimeout, Runnable rediscover,
               BooleanSupplier closed) {
        this.routes = routes;
        this.replicasets = replicasets;
        this.clock = clock;
        this.requestTimeoutNs = requestTimeout.toNanos();
        this.rediscover = rediscover;
        this.closed = closed;
        this.lockedDiscoveryAtNs = new AtomicLong(clock.nanoTime());
    }

    /** Runs {@code ops}; the answer has one result per op, in order. */
    CompletableFuture<List<OpResult>> execute(List<KvOp> ops) {
        OpResult[] results = new OpResult[ops.size()];
        int[] all = new int[ops.size()];
        Arrays.setAll(all, i -> i);
        long deadline = clock.nanoTime() + requestTimeoutNs;
        CompletableFuture<List<OpResult>> done = new CompletableFuture<>();
        attempt(ops, all, results, deadline, 0, done);
        return done;
    }

    /** Requests sent again, over all requests. */
    long retries() {
        return retries.get();
    }

    /**
     * Operations sent again at once to another owner after a wrong-owner answer that named one (the
     * answer's, or a newer one discovery had found meanwhile), without asking discovery.
     */
    long movesFollowed() {
        return movesFollowed.get();
    }

    private void attempt(List<KvOp> ops, int[] pending, OpResult[] results, long deadline, int attemptNo,
                         CompletableFuture<List<OpResult>> done) {
        Map<String, List<Integer>> byOwner = new LinkedHashMap<>();
        String[] sentTo = new String[ops.size()];
        for (int i : pending) {
            if (!ops.get(i).readOnly() && routes.writesRefused(ops.get(i).bucket())) {
                results[i] = OpResult.error(ErrorCode.BUCKET_READONLY, "bucket " + ops.get(i).bucket()
                        + " is claimed by two replicasets at the same generation (suspected doubled); writes are refused");
                continue;
            }
            String owner = routes.owner(ops.get(i).bucket());
            if (owner == null) {
                results[i] = noRoute(ops.get(i));
            } else {
                byOwner.computeIfAbsent(owner, k -> new ArrayList<>()).add(i);
                sentTo[i] = owner;
            }
        }
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> e : byOwner.entrySet()) {
            List<Integer> idx = e.getValue();
            List<KvOp> unit = idx.stream().map(ops::get).toList();
            CompletableFuture<List<OpResult>> answer = replicasets.submit(e.getKey(), unit, deadline);
            if (answer == null) {
                for (int i : idx) {
                    results[i] = noRoute(ops.get(i));
                    sentTo[i] = null;
                }
                continue;
            }
            sent.add(answer.thenAccept(rs -> {
                for (int k = 0; k < idx.size(); k++) results[idx.get(k)] = rs.get(k);
            }));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).whenComplete((v, err) -> {
            Again next = retryable(ops, pending, results, sentTo);
            int[] again = next.indices();
            long now = clock.nanoTime();
            if (again.length == 0 || now >= deadline || closed.getAsBoolean()) {
                // Out of time while following a moved bucket: the client can only retry, so say TRYAGAIN
                // (nothing was applied) rather than pass on the internal wrong-owner answer.
                for (int i : again) {
                    if (results[i].error() == ErrorCode.WRONG_BUCKET) {
                        results[i] = OpResult.error(ErrorCode.BUCKET_LOCKED, "bucket " + ops.get(i).bucket()
                                + " moved and its new owner is not known yet; retry");
                    }
                }
                done.complete(Arrays.asList(results));
                return;
            }
            retries.incrementAndGet();
            long delayNs;
            if (next.allRerouted() && attemptNo < MAX_IMMEDIATE_REROUTES) {
                delayNs = 0; // the answer said where to go: nothing to wait for
            } else {
                // A restoring bucket is served within milliseconds of its restore: poll it as a locked one, not with the long backoff.
                boolean onlyLocked = Arrays.stream(again).allMatch(i -> results[i].error() == ErrorCode.BUCKET_LOCKED
                        || results[i].error() == ErrorCode.BUCKET_RESTORING);
                long backoffMs = Math.min(onlyLocked ? MAX_LOCKED_BACKOFF_MS : MAX_BACKOFF_MS, MIN_BACKOFF_MS << Math.min(attemptNo, 6));
                delayNs = Math.min(TimeUnit.MILLISECONDS.toNanos(backoffMs), deadline - now);
            }
            clock.schedule(delayNs, () -> attempt(ops, again, results, deadline, attemptNo + 1, done));
        });
    }

    private static OpResult noRoute(KvOp op) {
        return OpResult.error(ErrorCode.NO_ROUTE, "no known owner for bucket " + op.bucket());
    }

    /** The ops to send again, and whether every one of them goes to a new owner an answer named. */
    private record Again(int[] indices, boolean allRerouted) {}

    /** Ops whose error guarantees they were not applied, so sending again is safe; fixes their routes first. */
    private Again retryable(List<KvOp> ops, int[] pending, OpResult[] results, String[] sentTo) {
        List<Integer> again = new ArrayList<>();
        boolean rediscoverNow = false;
        boolean locked = false;
        boolean allRerouted = true;
        for (int i : pending) {
            OpResult r = results[i];
            if (r == null || !r.isError() || !sentAgain(r.error(), ops.get(i))) continue;
            again.add(i);
            int bucket = ops.get(i).bucket();
            boolean rerouted = false;
            switch (r.error().retry) {
                case REROUTE -> { // WRONG_BUCKET, the one REROUTE code sent again here
                    rerouted = sentTo[i] != null && routes.wrongOwner(bucket, sentTo[i], r.payload());
                    if (rerouted) movesFollowed.incrementAndGet();
                    else rediscoverNow = true;
                }
                case RETRY_LATER -> {
                    if (r.error() == ErrorCode.NO_ROUTE) rediscoverNow = true; // no owner to wait for: discovery must find one
                    if (r.error() == ErrorCode.BUCKET_LOCKED) locked = true;
                }
                case REFRESH_TOPOLOGY, FATAL -> { } // never sent again (sentAgain)
            }
            allRerouted &= rerouted;
        }
        if (rediscoverNow || (locked && lockedDiscoveryDue())) rediscover.run();
        return new Again(again.stream().mapToInt(Integer::intValue).toArray(), allRerouted && !again.isEmpty());
    }

    /**
     * Whether an op refused with {@code code} is sent again by this loop: the code's retry class
     * decides, except where today's rules are stricter, each for its reason below (the catalogue
     * says what may help; only here is it known whether this loop is the one to do it).
     */
    private static boolean sentAgain(ErrorCode code, KvOp op) {
        return switch (code.retry) {
            // WRONG_BUCKET. NOT_LEADER never ends here (the data-plane client follows the leader it names).
            // STALE_READ never ends here either: ReplicasetClient asks the leader when a follower refuses an op with it.
            case REROUTE -> code == ErrorCode.WRONG_BUCKET;
            case RETRY_LATER -> switch (code) {
                // the replicaset did not answer: a read is safe to send again, a write may have been applied
                case UNAVAILABLE -> op.readOnly();
                // load shed by a full queue: sending again here would hold the load it shed; the client retries later
                case QUEUE_FULL, RESTORE_QUEUE_FULL -> false;
                // answers meant for other callers, never sent again here: map-reduce refs (MapReduce retries its
                // own), the archive tier's, AUTH's
                case MOVE_IN_PROGRESS, REF_NOT_HELD, OBJECT_STORE_UNAVAILABLE, AUTH_RATE_LIMITED -> false;
                default -> true; // BUCKET_LOCKED, BUCKET_RESTORING, NO_ROUTE: nothing was applied, the bucket will be served
            };
            // STALE_EPOCH: the data-plane client refreshes its epoch and sends again itself; an answer here is final
            case REFRESH_TOPOLOGY, FATAL -> false;
        };
    }

    /** An extra round now (after a locked bucket), besides the periodic ones, at most every {@link #LOCKED_DISCOVERY_MS}. */
    private boolean lockedDiscoveryDue() {
        long now = clock.nanoTime();
        long last = lockedDiscoveryAtNs.get();
        return now - last >= TimeUnit.MILLISECONDS.toNanos(LOCKED_DISCOVERY_MS) && lockedDiscoveryAtNs.compareAndSet(last, now);
    }
}
