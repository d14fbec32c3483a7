package io.cairn.storage.state;

import io.cairn.core.BucketRecord;
import io.cairn.core.ErrorCode;
import io.cairn.core.ErrorPayload;
import io.cairn.core.kv.StoredValue;
import io.cairn.core.wire.KeyPage.Entry;
import io.cairn.core.wire.KeyPage.Position;
import io.cairn.core.wire.KeyPage;
import io.cairn.core.wire.KeyQuery;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * Answers {@link KeyQuery}s (DBSIZE, KEYS, SCAN) from a member's current state. Read-only; pages
 * are bounded in keys, bytes and keys examined. Each bucket is read under its read ref, like a
 * GET, so the garbage collector cannot delete it between the state check and the last key.
 */
final class KeyQueries {
    /** Expired keys examined per returned key before a page ends early (bounds the work of one page). */
    private static final int SCAN_FACTOR = 10;

    private KeyQueries() {}

    static byte[] answer(ByteBuffer request, ReplicasetState state, long nowMs) {
        return answer(KeyQuery.decode(request), state, nowMs).encode();
    }

    static KeyPage answer(KeyQuery q, ReplicasetState state, long nowMs) {
        if (q.scope() != KeyQuery.Scope.LIST_RANGE && !state.refs().held(q.refId(), nowMs)) {
            return KeyPage.refused(ErrorCode.REF_NOT_HELD, "storage ref " + q.refId() + " is not held", List.of(), q.from());
        }
        return switch (q.scope()) {
            case COUNT_OWNED -> KeyPage.count(countOwned(state));
            case LIST_OWNED -> listOwned(q, state, nowMs);
            case LIST_RANGE -> listRange(q, state, nowMs);
        };
    }

    /**
     * Keys of owned buckets: the replicaset's key count minus the keys of buckets it holds but does
     * not own (a READONLY doubled copy, or a copy ahead RECEIVING here: refs do not stop those), so
     * it costs a walk of those buckets only. All of it from one snapshot: chunks keep arriving
     * meanwhile, and a chunk counted in a bucket's walk but not in the total once made DBSIZE 991
     * instead of 1,000.
     */
    static long countOwned(ReplicasetState state) {
        RocksStore store = state.store();
        return store.consistent(options -> {
            long count = store.getLong(RocksStore.KEY_COUNT, options);
            for (BucketRecord r : store.allBuckets(options)) {
                if (!r.state().isOwned() && (r.flags() & BucketRecord.FLAG_DATA_DROPPED) == 0) count -= store.countKeys(r.id(), options);
            }
            return count;
        });
    }

    private static KeyPage listOwned(KeyQuery q, ReplicasetState state, long nowMs) {
        List<Integer> owned = new ArrayList<>();
        for (BucketRecord r : state.records()) if (r.state().isOwned() && r.id() >= q.from().bucket()) owned.add(r.id());
        owned.sort(null);
        Page page = new Page(q);
        for (int bucket : owned) {
            byte[] after = bucket == q.from().bucket() ? q.from().afterKey() : null;
            Lock ref = state.readRef(bucket);
            ref.lock();
            try {
                BucketRecord r = state.record(bucket);
                if (r == null || !r.state().isOwned()) continue;
                if (!page.readBucket(state.store(), bucket, after, nowMs)) return page.result();
            } finally {
                ref.unlock();
            }
        }
        return page.result();
    }

    private static KeyPage listRange(KeyQuery q, ReplicasetState state, long nowMs) {
        Page page = new Page(q);
        for (int bucket = q.from().bucket(); bucket <= q.toBucket(); bucket++) {
            byte[] after = bucket == q.from().bucket() ? q.from().afterKey() : null;
            Lock ref = state.readRef(bucket);
            ref.lock();
            try {
                BucketRecord r = state.record(bucket);
                if (r == null || !r.servesReads()) {
                    String where = r == null ? "" : " (" + r.state() + (r.peer().isEmpty() ? "" : ", peer " + r.peer()) + ")";
                    return KeyPage.refused(ErrorCode.WRONG_BUCKET, "bucket " + bucket + " is not served here" + where,
                            page.keys, new Position(bucket, after), ErrorPayload.of(r));
                }
                if (!page.readBucket(state.store(), bucket, after, nowMs)) return page.result();
            } finally {
                ref.unlock();
            }
        }
        return page.result();
    }

    /** Keys gathered so far and the bounds left. */
    private static final class Page {
        final List<Entry> keys = new ArrayList<>();
        final int maxKeys;
        final int maxBytes;
        final long maxExamined;
        int bytes;
        long examined;
        Position stoppedAt;

        Page(KeyQuery q) {
            maxKeys = q.boundedMaxKeys();
            maxBytes = q.boundedMaxBytes();
            maxExamined = (long) maxKeys * SCAN_FACTOR + 1_000;
        }

        /** Adds the live keys of {@code bucket} after {@code after}; false when the page is full (stoppedAt is set). */
        boolean readBucket(RocksStore store, int bucket, byte[] after, long nowMs) {
            try (StoreIterator it = store.newIterator(store.data)) {
                it.seek(RocksStore.dataKey(bucket, after == null ? new byte[0] : after));
                if (after != null && it.isValid() && RocksStore.bucketOf(it.key()) == bucket && Arrays.equals(RocksStore.userKey(it.key()), after)) it.next();
                for (; it.isValid() && RocksStore.bucketOf(it.key()) == bucket; it.next()) {
                    byte[] key = RocksStore.userKey(it.key());
                    examined++;
                    if (!StoredValue.isExpired(it.value(), nowMs)) {
                        keys.add(new Entry(bucket, key));
                        bytes += key.length + 8;
                    }
                    if (keys.size() >= maxKeys || bytes >= maxBytes || examined >= maxExamined) {
                        stoppedAt = new Position(bucket, key);
                        return false;
                    }
                }
            }
            return true;
        }

        KeyPage result() {
            return new KeyPage(null, "", keys.size(), keys, stoppedAt, null);
        }
    }

}
