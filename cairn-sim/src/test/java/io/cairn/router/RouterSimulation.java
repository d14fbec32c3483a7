package io.cairn.router;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.DiscoveryCursor;
import io.cairn.router.SimRouterWorld.Clock;
import io.cairn.router.SimRouterWorld.Store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One seeded run of a router against simulated replicasets, on virtual time: the production
 * {@link Dispatcher} (routing, retries, backoff, deadlines), {@link Discovery} (cursors, pages,
 * resyncs, page timeouts) and {@link RouteMap}, driven by {@link SimRouterWorld.Clock}. Clients
 * write unique values; buckets move between replicasets (SENDING, the new owner ACTIVE one
 * generation up with the data, the old one SENT), so the router's map is stale between its
 * discovery rounds and requests reach old owners. Per scenario, also: a replicaset restored from
 * an old copy of its records (same incarnation, BSNs handed out again), or discovery pages lost or
 * answered after their timeout.
 *
 * <p>Checked at the end of every run: every write got a final answer; an acknowledged value is in
 * its bucket's owner exactly once and nowhere else; a refused one is nowhere (a refusal the router
 * retries guarantees nothing was applied); and, once moves and faults stop, the router's map names
 * every bucket's owner and the state of its record within a few discovery rounds.
 */
final class RouterSimulation {
    enum Scenario {
        /** Moves all the time, the router's map often a round behind. */
        STALE_MAP_DURING_MOVES,
        /** Also: a replicaset restored from an old copy of its records, then changed again (reusing BSNs). */
        RESTORED_REPLICASET,
        /** Also: discovery pages lost, or answered after the page timeout. */
        LOST_PAGES
    }

    /** What a run did, for the summary line and the checks that the scenario tested something. */
    record Result(long events, int acknowledged, int refused, long retries, int wrongOwnerAnswers, int lockedAnswers, int moves,
                  long resyncs, int restores, int pagesLost, int pagesLate, long movesFollowed) {}

    static final long CHAOS_MS = 3_000;
    static final long DISCOVERY_INTERVAL_MS = 100;
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
    /** After the last fault: this many discovery intervals for the map to name every owner. */
    static final int CONVERGE_ROUNDS = 10;

    private final Scenario scenario;
    private final Random random;
    private final Clock clock = new Clock();
    private final int bucketCount;
    private final Map<String, Store> stores = new LinkedHashMap<>();
    private final RouteMap routes;
    private final Map<String, Discovery> discoveries = new LinkedHashMap<>();
    private final Dispatcher dispatcher;
    private final Set<Integer> moving = new HashSet<>();
    /** value -> bucket of every write answered OK, and of every write answered with an error. */
    private final Map<String, Integer> acknowledged = new HashMap<>();
    private final Map<String, Integer> refused = new HashMap<>();
    private int inFlight;
    private boolean chaos = true;
    private int wrongOwnerAnswers, lockedAnswers, moves, restores, pagesLost, pagesLate;

    RouterSimulation(Scenario scenario, long seed) {
        this.scenario = scenario;
        this.random = new Random(seed * 1_000_003 + scenario.ordinal());
        this.bucketCount = 8 + random.nextInt(40);
        this.routes = new RouteMap(bucketCount);
        // With a restored replicaset (whose buckets stay put), two others keep moving buckets between them.
        int replicasets = (scenario == Scenario.RESTORED_REPLICASET ? 3 : 2) + random.nextInt(3);
        for (int i = 0; i < replicasets; i++) stores.put("rs" + i, new Store("rs" + i));
        List<Store> all = new ArrayList<>(stores.values());
        for (int b = 1; b <= bucketCount; b++) all.get((b - 1) % replicasets).put(new BucketRecord(b, BucketState.ACTIVE, 1, 0, "", 0));
        int pageLimit = 1 + random.nextInt(8);
        for (Store s : all) {
            discoveries.put(s.id, new Discovery(s.id, (after, limit) -> discover(s, after, limit), routes, pageLimit,
                    REQUEST_TIMEOUT.multipliedBy(2), clock));
        }
        this.dispatcher = new Dispatcher(routes, this::submit, clock, REQUEST_TIMEOUT, this::rediscover, () -> false);
    }

    Result run() {
        discoveryLoop();
        int clients = 1 + random.nextInt(4);
        for (int c = 0; c < clients; c++) client(c, 0);
        scheduleMove();
        if (scenario == Scenario.RESTORED_REPLICASET) scheduleRestore();
        if (scenario != Scenario.RESTORED_REPLICASET) schedulePins();
        clock.runUntilMs(CHAOS_MS);
        chaos = false;
        // Clients stop; moves in flight finish; every request gets its answer (bounded by its deadline).
        clock.runUntilMs(CHAOS_MS + REQUEST_TIMEOUT.toMillis() + 1_000);
        if (inFlight > 0) throw new AssertionError(inFlight + " requests never answered");
        clock.runUntilMs(clock.nowMs() + CONVERGE_ROUNDS * DISCOVERY_INTERVAL_MS);
        checkData();
        checkRoutes();
        long resyncs = discoveries.values().stream().mapToLong(d -> d.stats().resyncs()).sum();
        return new Result(clock.events(), acknowledged.size(), refused.size(), dispatcher.retries(), wrongOwnerAnswers, lockedAnswers,
                moves, resyncs, restores, pagesLost, pagesLate, dispatcher.movesFollowed());
    }

    // ---- the router's edges ----

    /** A page asked of {@code s}: answered after 0-5 ms, or (LOST_PAGES) lost or answered after the page timeout. */
    private CompletableFuture<ByteBuffer> discover(Store s, DiscoveryCursor after, int limit) {
        if (scenario == Scenario.LOST_PAGES && chaos) {
            int fault = random.nextInt(10);
            if (fault == 0) {
                pagesLost++;
                return new CompletableFuture<>();
            }
            if (fault == 1) {
                pagesLate++;
                return SimRouterWorld.later(clock, REQUEST_TIMEOUT.multipliedBy(2).toMillis() + 1 + random.nextInt(500), () -> s.discover(after, limit));
            }
        }
        // Read when the request arrives, answered a little later: the records may have changed meanwhile.
        CompletableFuture<ByteBuffer> answer = new CompletableFuture<>();
        clock.afterMs(random.nextInt(3), () -> {
            ByteBuffer page = s.discover(after, limit);
            clock.afterMs(random.nextInt(3), () -> answer.complete(page));
        });
        return answer;
    }

    /** A batch sent to a replicaset's leader: applied when it arrives (0-4 ms), answered 0-4 ms later. */
    private CompletableFuture<List<OpResult>> submit(String replicaset, List<KvOp> ops, long deadlineNs) {
        Store s = stores.get(replicaset);
        if (s == null) return null;
        CompletableFuture<List<OpResult>> answer = new CompletableFuture<>();
        clock.afterMs(random.nextInt(5), () -> {
            List<OpResult> results = new ArrayList<>();
            for (KvOp op : ops) {
                OpResult r = s.apply(op);
                if (r.error() == ErrorCode.WRONG_BUCKET) wrongOwnerAnswers++;
                if (r.error() == ErrorCode.BUCKET_LOCKED) lockedAnswers++;
                results.add(r);
            }
            clock.afterMs(random.nextInt(5), () -> answer.complete(results));
        });
        return answer;
    }

    /** The router's discovery loop: every replicaset's round each interval (Router's own loop adds doubled-bucket checks). */
    private void discoveryLoop() {
        rediscover();
        clock.afterMs(DISCOVERY_INTERVAL_MS, this::discoveryLoop);
    }

    private void rediscover() {
        clock.execute(() -> discoveries.values().forEach(Discovery::round));
    }

    // ---- clients, moves, faults ----

    private void client(int client, int n) {
        if (!chaos) return;
        int bucket = 1 + random.nextInt(bucketCount);
        String value = "c" + client + "-" + n;
        byte[] key = ("k" + bucket).getBytes(StandardCharsets.UTF_8);
        inFlight++;
        dispatcher.execute(List.of(KvOp.set(bucket, key, value.getBytes(StandardCharsets.UTF_8)))).whenComplete((results, e) -> {
            inFlight--;
            if (e != null) throw new AssertionError("request " + value + " failed: " + e, e);
            OpResult r = results.get(0);
            if (r.isError()) {
                if (r.error() != ErrorCode.BUCKET_LOCKED && r.error() != ErrorCode.NO_ROUTE) {
                    throw new AssertionError("write " + value + " to bucket " + bucket + " answered " + r.error() + ": " + r.message());
                }
                refused.put(value, bucket);
            } else {
                acknowledged.put(value, bucket);
            }
            clock.afterMs(random.nextInt(20), () -> client(client, n + 1));
        });
    }

    /** Every 5-60 ms a bucket not moving now moves to another replicaset, in three steps 1-150 ms apart. */
    private void scheduleMove() {
        clock.afterMs(5 + random.nextInt(55), () -> {
            if (!chaos) return;
            int bucket = 1 + random.nextInt(bucketCount);
            Store from = owner(bucket);
            List<Store> others = new ArrayList<>(stores.values());
            others.remove(from);
            if (scenario == Scenario.RESTORED_REPLICASET) others.remove(stores.get("rs0"));
            if (!moving.contains(bucket) && from != null && !others.isEmpty()
                    && !(scenario == Scenario.RESTORED_REPLICASET && from.id.equals("rs0"))) {
                move(bucket, from, others.get(random.nextInt(others.size())));
            }
            scheduleMove();
        });
    }

    private void move(int bucket, Store from, Store to) {
        moving.add(bucket);
        moves++;
        BucketRecord r = from.record(bucket);
        from.put(new BucketRecord(bucket, BucketState.SENDING, r.generation(), 0, to.id, 0));
        clock.afterMs(1 + random.nextInt(150), () -> {
            to.data.put(bucket, new ArrayList<>(from.data.getOrDefault(bucket, List.of())));
            to.put(new BucketRecord(bucket, BucketState.ACTIVE, r.generation() + 1, 0, "", 0));
            clock.afterMs(1 + random.nextInt(150), () -> {
                from.put(new BucketRecord(bucket, BucketState.SENT, r.generation(), 0, to.id, BucketRecord.FLAG_DATA_DROPPED));
                from.data.remove(bucket);
                moving.remove(bucket);
            });
        });
    }

    /** An operator pins or unpins a bucket where it is (a record change that moves nothing). */
    private void schedulePins() {
        clock.afterMs(20 + random.nextInt(200), () -> {
            if (!chaos) return;
            pinOrUnpin(1 + random.nextInt(bucketCount), null);
            schedulePins();
        });
    }

    private void pinOrUnpin(int bucket, Store only) {
        Store s = owner(bucket);
        if (s == null || moving.contains(bucket) || (only != null && s != only)) return;
        BucketRecord r = s.record(bucket);
        BucketState next = r.state() == BucketState.PINNED ? BucketState.ACTIVE : BucketState.PINNED;
        s.put(new BucketRecord(bucket, next, r.generation(), 0, r.peer(), r.flags()));
    }

    /**
     * rs0 (whose buckets never move in this scenario) is backed up, changes its records (pins), is
     * restored from the backup, then changes them again: BSNs handed out again with other records.
     */
    private void scheduleRestore() {
        Store rs0 = stores.get("rs0");
        clock.afterMs(100 + random.nextInt(600), () -> {
            if (!chaos) return;
            Store.Snapshot backup = rs0.snapshot();
            for (int i = 1 + random.nextInt(6); i > 0; i--) pinOrUnpin(1 + random.nextInt(bucketCount), rs0);
            clock.afterMs(50 + random.nextInt(400), () -> {
                rs0.restore(backup);
                restores++;
                for (int i = 1 + random.nextInt(6); i > 0; i--) pinOrUnpin(1 + random.nextInt(bucketCount), rs0);
                scheduleRestore();
            });
        });
    }

    private Store owner(int bucket) {
        for (Store s : stores.values()) {
            BucketRecord r = s.record(bucket);
            if (r != null && (r.state().servesWrites() || r.state() == BucketState.SENDING)) return s;
        }
        return null;
    }

    // ---- checks ----

    /** An acknowledged value is in its bucket's owner exactly once and on no other replicaset; a refused one is nowhere. */
    private void checkData() {
        Map<String, Integer> seen = new HashMap<>();
        for (Store s : stores.values()) {
            s.data.forEach((bucket, values) -> {
                BucketRecord r = s.record(bucket);
                if (r == null || !r.state().servesWrites()) {
                    if (!values.isEmpty()) throw new AssertionError(s.id + " keeps data of bucket " + bucket + " it does not own: " + r);
                    return;
                }
                for (String v : values) {
                    if (seen.merge(v, 1, Integer::sum) > 1) throw new AssertionError("value " + v + " applied twice (bucket " + bucket + ")");
                    if (refused.containsKey(v)) throw new AssertionError("value " + v + " was refused but applied on " + s.id);
                    if (!acknowledged.containsKey(v)) throw new AssertionError("value " + v + " applied but never answered");
                }
            });
        }
        for (String v : acknowledged.keySet()) {
            if (!seen.containsKey(v)) throw new AssertionError("acknowledged value " + v + " of bucket " + acknowledged.get(v) + " is lost");
        }
    }

    /** The router's map names every bucket's owner and its record's state (a stale cursor would keep an old state). */
    private void checkRoutes() {
        for (int b = 1; b <= bucketCount; b++) {
            Store s = owner(b);
            RouteMap.OwnerRecord known = routes.ownerRecord(b);
            if (s == null || !s.id.equals(known.owner()) || s.record(b).state() != known.state()) {
                throw new AssertionError("bucket " + b + ": the router says " + known + " but it is " + (s == null ? "nowhere" : s.id + " " + s.record(b))
                        + " after " + CONVERGE_ROUNDS + " quiet discovery rounds; discovery " + discoveryStats());
            }
        }
    }

    private Map<String, DiscoveryStats> discoveryStats() {
        Map<String, DiscoveryStats> out = new LinkedHashMap<>();
        discoveries.forEach((id, d) -> out.put(id, d.stats()));
        return out;
    }
}
