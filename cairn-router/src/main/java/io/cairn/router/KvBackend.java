package io.cairn.router;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.KeyPage;
import io.cairn.core.wire.StorageStats;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * What the RESP front end needs from the cluster: executes operations (which may span many
 * buckets and replicasets) and answers with one result per operation, in order. Operations of
 * one call that fall in the same bucket are applied atomically, in order. Failures of single
 * operations are {@link OpResult} errors; the future fails only on a bug.
 *
 * <p>The whole-keyspace calls ({@link #exactKeyCount}, {@link #keys}, {@link #flushAll},
 * {@link #scan}) fail their future with a {@link io.cairn.core.CairnException} when the cluster
 * cannot answer within the request deadline.
 */
public interface KvBackend {
    CompletableFuture<List<OpResult>> execute(List<KvOp> ops);

    /**
     * Number of live keys over all replicasets, from each leader's counter: cheap, for INFO; a
     * bucket in transfer may be counted twice.
     */
    CompletableFuture<Long> dbSize();

    /**
     * INFO keyspace's figures: live keys (as {@link #dbSize}), keys with a TTL and their average
     * remaining TTL in ms; and INFO stats' keyspace hits, misses and expired keys. Backends that do
     * not count TTLs or lookups answer zeros for them.
     */
    default CompletableFuture<KeyspaceStats> keyspaceStats() {
        return dbSize().thenApply(keys -> new KeyspaceStats(keys, 0, 0));
    }

    record KeyspaceStats(long keys, long expires, long avgTtlMs, long hits, long misses, long expiredKeys) {
        public KeyspaceStats(long keys, long expires, long avgTtlMs) {
            this(keys, expires, avgTtlMs, 0, 0, 0);
        }

        /** Over replicasets: counts add up, the average TTL is weighted by each one's keys with a TTL. */
        public static KeyspaceStats sum(Collection<StorageStats> replicasets) {
            long keys = 0, expires = 0, ttlSum = 0, hits = 0, misses = 0, expired = 0;
            for (StorageStats s : replicasets) {
                keys += s.keyCount();
                expires += s.expiringKeys();
                ttlSum += s.expiringKeys() * s.avgTtlMs();
                hits += s.keyspaceHits();
                misses += s.keyspaceMisses();
                expired += s.expiredKeys();
            }
            return new KeyspaceStats(keys, expires, expires == 0 ? 0 : ttlSum / expires, hits, misses, expired);
        }
    }

    /** Keys of every bucket, counted once each even while buckets move (DBSIZE). */
    CompletableFuture<Long> exactKeyCount();

    /** Every live key accepted by {@code match} (KEYS); fails with TOO_MANY_KEYS past {@code maxKeys}. */
    CompletableFuture<List<byte[]>> keys(Predicate<byte[]> match, int maxKeys);

    /** Deletes every key (FLUSHALL), replicaset by replicaset: not atomic across replicasets. Returns the keys deleted. */
    CompletableFuture<Long> flushAll();

    /**
     * One page of a scan in (bucket, key) order starting at {@code from}: about {@code count}
     * keys (possibly none) and where to continue. Every key present for the whole scan is
     * returned at least once.
     */
    CompletableFuture<ScanPage> scan(KeyPage.Position from, int count);

    int bucketCount();

    /** Sections for the INFO command: section name to ordered key/value pairs. */
    Map<String, Map<String, String>> info();

    /** @param next where the scan continues, or null when it is complete */
    record ScanPage(List<byte[]> keys, KeyPage.Position next) {}
}
