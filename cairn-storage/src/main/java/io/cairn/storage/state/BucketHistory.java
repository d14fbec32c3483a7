package io.cairn.storage.state;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.wire.DiscoveryCursor;
import io.cairn.core.wire.DiscoveryPage;
import io.cairn.storage.DiscoveryServed;
import io.cairn.storage.rocks.RocksStore;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The replicaset's bucket history as discovery (design 001) serves it: which records changed
 * after a router's cursor, and whether that cursor still names this replicaset's history.
 *
 * <p>Every BSN handed out gets a history entry: a chain hash over all record changes up to it
 * and the leader's stamp of the entry that made the change. A router's cursor carries the hash
 * it saw at its BSN. A replicaset restored from an old copy hands the same BSNs out again for
 * other changes (other stamps), so the hashes differ and the router is told to resync once,
 * however far the restored copy has moved on since.
 *
 * <p>Tombstones (SENT or GARBAGE records whose data is dropped) tell routers that a bucket left.
 * They are kept for a retention time (leader-stamped, default 24 h), then collected through the
 * log ({@code COLLECT}); the horizon is the highest BSN collected, and a cursor below it could
 * have missed a deletion, so it gets a full resync. Why a time window and not router cursors:
 * a router that stopped reporting would hold tombstones forever, and any timeout that frees
 * them is a retention window again; a router that was away longer than the window pays one
 * full listing, which is paged and bounded.
 *
 * <p>Concurrency: the apply thread writes ({@link #append}, {@link #collected}); discovery
 * queries read under one RocksDB snapshot, so a page never mixes two states.
 */
final class BucketHistory {
    /** Upper bound of records in one discovery page, whatever the router asks for. */
    static final int MAX_PAGE_RECORDS = 100_000;

    private final RocksStore store;
    private long hash;
    private volatile long horizonBsn;
    private final LongAdder requests = new LongAdder();
    private final LongAdder records = new LongAdder();
    private final LongAdder resyncs = new LongAdder();
    private final LongAdder bytes = new LongAdder();

    BucketHistory(RocksStore store) {
        this.store = store;
        this.hash = store.getLong(RocksStore.HISTORY_HASH);
        this.horizonBsn = store.getLong(RocksStore.HORIZON_BSN);
    }

    /** Whether {@code r} is a tombstone the collector may delete once it is old enough. */
    static boolean collectable(BucketRecord r) {
        return (r.state() == BucketState.SENT || r.state() == BucketState.GARBAGE)
                && (r.flags() & BucketRecord.FLAG_DATA_DROPPED) != 0;
    }

    long horizonBsn() {
        return horizonBsn;
    }

    /** Apply thread: {@code r} just took its BSN in an entry stamped {@code stampMs}. */
    void append(WriteBatch batch, BucketRecord r, long stampMs) {
        hash = chain(hash, r, stampMs);
        try {
            batch.put(store.history, RocksStore.longKey(r.bsn()), ByteBuffer.allocate(16).putLong(hash).putLong(stampMs).array());
            batch.put(store.system, RocksStore.HISTORY_HASH, RocksStore.longKey(hash));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
    }

    /** Apply thread: tombstones up to {@code highestBsn} were deleted in this batch; history below the horizon goes too. */
    void collected(WriteBatch batch, long highestBsn) {
        if (highestBsn <= horizonBsn) return;
        try {
            batch.deleteRange(store.history, RocksStore.longKey(0), RocksStore.longKey(highestBsn));
            batch.put(store.system, RocksStore.HORIZON_BSN, RocksStore.longKey(highestBsn));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch delete failed", e);
        }
        horizonBsn = highestBsn;
    }

    /** Answers DISCOVER: the records after {@code after}, or a full listing when the cursor is not ours. */
    DiscoveryPage discover(DiscoveryCursor after, int limit, long incarnation) {
        int bounded = Math.max(1, Math.min(limit, MAX_PAGE_RECORDS));
        DiscoveryPage page = store.consistent(read -> {
            long lastBsn = store.getLong(RocksStore.LAST_BSN, read);
            long horizon = store.getLong(RocksStore.HORIZON_BSN, read);
            boolean resync = after.incarnation() != incarnation || after.bsn() < horizon || after.bsn() > lastBsn
                    || hashAt(after.bsn(), read) != after.historyHash();
            long from = resync ? 0 : after.bsn();
            List<BucketRecord> found = store.bucketsAfter(from, bounded, read);
            // A short page saw everything up to lastBsn: the cursor goes there, past collected tombstones too.
            long next = found.size() < bounded ? lastBsn : found.get(found.size() - 1).bsn();
            DiscoveryCursor cursor = new DiscoveryCursor(incarnation, next, hashAt(next, read));
            return new DiscoveryPage(cursor, lastBsn, horizon, resync, next < lastBsn, found);
        });
        requests.increment();
        records.add(page.records().size());
        if (page.resync()) resyncs.increment();
        return page;
    }

    /** {@link #discover}, encoded for the wire and counted in the bytes served. */
    byte[] answer(DiscoveryCursor after, int limit, long incarnation) {
        byte[] encoded = discover(after, limit, incarnation).encode();
        bytes.add(encoded.length);
        return encoded;
    }

    /** Discovery answers served by this member. */
    DiscoveryServed served() {
        return new DiscoveryServed(requests.sum(), records.sum(), resyncs.sum(), bytes.sum());
    }

    /**
     * Leader side: the oldest tombstones whose change is older than {@code cutoffStampMs}, at most
     * {@code limit}, in BSN order. The log entry re-checks state, BSN and age.
     */
    List<BucketRecord> expiredTombstones(Collection<BucketRecord> current, long cutoffStampMs, int limit) {
        List<BucketRecord> tombstones = new ArrayList<>();
        for (BucketRecord r : current) if (collectable(r)) tombstones.add(r);
        tombstones.sort(Comparator.comparingLong(BucketRecord::bsn));
        List<BucketRecord> expired = new ArrayList<>();
        for (BucketRecord r : tombstones) {
            if (expired.size() >= limit || stampAt(r.bsn()) > cutoffStampMs) break; // stamps grow with BSNs
            expired.add(r);
        }
        return expired;
    }

    /** The history hash at {@code bsn}; 0 at BSN 0 and for BSNs written before history was kept. */
    private long hashAt(long bsn, ReadOptions read) {
        if (bsn == 0) return 0;
        byte[] v = store.get(store.history, RocksStore.longKey(bsn), read);
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }

    /** The leader stamp of the change that took {@code bsn}; 0 (old enough) when not recorded. */
    long stampAt(long bsn) {
        byte[] v = store.get(store.history, RocksStore.longKey(bsn));
        return v == null ? 0 : ByteBuffer.wrap(v).getLong(8);
    }

    static long chain(long previous, BucketRecord r, long stampMs) {
        long h = mix(previous ^ r.bsn());
        h = mix(h ^ ((long) r.id() << 32 | r.state().code() << 16 | r.flags()));
        h = mix(h ^ r.generation());
        h = mix(h ^ r.peer().hashCode());
        return mix(h ^ stampMs);
    }

    /** MurmurHash3's 64-bit finaliser: every input bit flips about half of the output bits. */
    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
