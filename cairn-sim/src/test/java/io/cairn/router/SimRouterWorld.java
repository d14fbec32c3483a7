package io.cairn.router;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.ErrorCode;
import io.cairn.core.ErrorPayload;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.DiscoveryCursor;
import io.cairn.core.wire.DiscoveryPage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The world a simulated router lives in: virtual time ({@link Clock}, the router's
 * {@link RouterClock}) and replicasets modelled as their committed state ({@link Store}), which
 * answer discovery pages and admit or refuse operations as a storage leader does. The router's
 * side ({@link Dispatcher}, {@link Discovery}, {@link RouteMap}) is the production code.
 */
final class SimRouterWorld {
    private SimRouterWorld() {}

    /** Virtual nanoseconds and an event queue, run on the test's one thread in (time, insertion) order. */
    static final class Clock implements RouterClock {
        private record Event(long atNs, long seq, Runnable task) {}

        private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> a.atNs != b.atNs ? Long.compare(a.atNs, b.atNs)
                : Long.compare(a.seq, b.seq));
        private long nowNs;
        private long seq;
        private long events;

        @Override
        public long nanoTime() {
            return nowNs;
        }

        @Override
        public void schedule(long delayNs, Runnable task) {
            queue.add(new Event(nowNs + Math.max(0, delayNs), seq++, task));
        }

        void afterMs(long ms, Runnable task) {
            schedule(ms * 1_000_000, task);
        }

        long nowMs() {
            return nowNs / 1_000_000;
        }

        long events() {
            return events;
        }

        /** Runs every event due until {@code endMs}, then sets the clock there. */
        void runUntilMs(long endMs) {
            long endNs = endMs * 1_000_000;
            while (!queue.isEmpty() && queue.peek().atNs <= endNs) {
                Event e = queue.poll();
                nowNs = e.atNs;
                events++;
                e.task.run();
            }
            nowNs = Math.max(nowNs, endNs);
        }
    }

    /**
     * One replicaset's committed state as the router meets it: bucket records with their BSNs and
     * history (a running hash per BSN, as storage's cursor check uses), and per bucket the values
     * written to it in order. Writes are admitted as a storage leader admits them: ACTIVE or
     * PINNED applies, SENDING refuses with BUCKET_LOCKED (nothing applied), anything else with
     * WRONG_BUCKET, naming the new owner when the record is SENT (storage's rule, {@link ErrorPayload#of}).
     */
    static final class Store {
        final String id;
        private long incarnation = 1;
        private long bsn;
        private final Map<Integer, BucketRecord> records = new TreeMap<>();
        private final TreeMap<Long, BucketRecord> byBsn = new TreeMap<>();
        /** The history hash after each BSN handed out. */
        private final TreeMap<Long, Long> history = new TreeMap<>();
        final Map<Integer, List<String>> data = new HashMap<>();

        Store(String id) {
            this.id = id;
            history.put(0L, 0L);
        }

        BucketRecord record(int bucket) {
            return records.get(bucket);
        }

        /** Stores {@code r} with the next BSN. */
        void put(BucketRecord r) {
            BucketRecord old = records.get(r.id());
            if (old != null) byBsn.remove(old.bsn());
            BucketRecord stored = new BucketRecord(r.id(), r.state(), r.generation(), ++bsn, r.peer(), r.flags());
            records.put(r.id(), stored);
            byBsn.put(stored.bsn(), stored);
            history.put(bsn, history.get(bsn - 1) * 31 + stored.hashCode() + 17);
        }

        /** The answer to a DISCOVER after {@code after}: a full listing when the cursor is not from this history. */
        ByteBuffer discover(DiscoveryCursor after, int limit) {
            Long hashThere = history.get(after.bsn());
            boolean resync = after.incarnation() != incarnation || hashThere == null || hashThere != after.historyHash();
            long from = resync ? 0 : after.bsn();
            List<BucketRecord> page = new ArrayList<>();
            boolean more = false;
            for (BucketRecord r : byBsn.tailMap(from, false).values()) {
                if (page.size() == limit) {
                    more = true;
                    break;
                }
                page.add(r);
            }
            long next = more ? page.get(page.size() - 1).bsn() : bsn;
            DiscoveryCursor cursor = new DiscoveryCursor(incarnation, next, history.get(next));
            return ByteBuffer.wrap(new DiscoveryPage(cursor, bsn, 0, resync, more, page).encode());
        }

        /** Applies or refuses one operation, as a leader does. */
        OpResult apply(KvOp op) {
            BucketRecord r = records.get(op.bucket());
            if (r != null && r.state() == BucketState.SENDING) return OpResult.error(ErrorCode.BUCKET_LOCKED, "bucket " + op.bucket() + " is moving");
            if (r == null || !r.state().servesWrites()) {
                return OpResult.error(ErrorCode.WRONG_BUCKET, "bucket " + op.bucket() + " is not here: " + r, ErrorPayload.of(r));
            }
            data.computeIfAbsent(op.bucket(), b -> new ArrayList<>()).add(new String(op.value(), StandardCharsets.UTF_8));
            return OpResult.status("OK");
        }

        /** The records and history as they are now (what a backup holds; the data is not part of it here). */
        Snapshot snapshot() {
            return new Snapshot(bsn, new TreeMap<>(records), new TreeMap<>(history));
        }

        /**
         * Restores the records and history of {@code s}: the same incarnation, BSNs handed out
         * again from the snapshot's, so only the history hash tells a router's cursor is from
         * a history this replicaset no longer has.
         */
        void restore(Snapshot s) {
            bsn = s.bsn;
            records.clear();
            records.putAll(s.records);
            byBsn.clear();
            for (BucketRecord r : records.values()) byBsn.put(r.bsn(), r);
            history.clear();
            history.putAll(s.history);
        }

        record Snapshot(long bsn, Map<Integer, BucketRecord> records, TreeMap<Long, Long> history) {}
    }

    /** Completes {@code answer} with {@code value} after {@code delayMs} of virtual time. */
    static <T> CompletableFuture<T> later(Clock clock, long delayMs, Supplier<T> value) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        clock.afterMs(delayMs, () -> answer.complete(value.get()));
        return answer;
    }
}
