package io.cairn.core.wire;

import io.cairn.core.kv.OpCodec;

import java.nio.ByteBuffer;

/**
 * A replicaset's counters as seen by the member that answered (the leader for linearizable reads).
 *
 * @param ownedBuckets buckets counted toward its share (ACTIVE, PINNED, SENDING)
 * @param heldBuckets  buckets whose data or move the cluster still needs here: the owned ones,
 *                     RECEIVING and READONLY, SENT until the data is dropped, quarantined
 *                     copies (kept for export). A replicaset may be removed only at zero.
 * @param expiringKeys live keys with a TTL, as the answering leader's expiry sweeper counted them
 *                     in its last full pass over the data (INFO keyspace's expires; an estimate
 *                     that lags by one pass, 0 before the first pass of a new leader)
 * @param avgTtlMs     their average remaining TTL at that pass, in milliseconds (INFO's avg_ttl)
 * @param keyspaceHits reads of a live key this member served since its process started (INFO stats' keyspace_hits)
 * @param keyspaceMisses reads of a missing key, likewise (keyspace_misses)
 * @param expiredKeys  expired keys its applied entries deleted since its process started (expired_keys)
 */
public record StorageStats(long keyCount, int ownedBuckets, long lastBsn, long appliedIndex, long incarnation, boolean bootstrapped,
                           int heldBuckets, long expiringKeys, long avgTtlMs, long keyspaceHits, long keyspaceMisses, long expiredKeys) {
    /** Bytes of the encoding before the expiry counters (2026-12-03) were appended. */
    private static final int WITHOUT_EXPIRY_BYTES = 8 + 4 + 8 + 8 + 8 + 1 + 4;

    public StorageStats(long keyCount, int ownedBuckets, long lastBsn, long appliedIndex, long incarnation, boolean bootstrapped,
                        int heldBuckets) {
        this(keyCount, ownedBuckets, lastBsn, appliedIndex, incarnation, bootstrapped, heldBuckets, 0, 0);
    }

    public StorageStats(long keyCount, int ownedBuckets, long lastBsn, long appliedIndex, long incarnation, boolean bootstrapped,
                        int heldBuckets, long expiringKeys, long avgTtlMs) {
        this(keyCount, ownedBuckets, lastBsn, appliedIndex, incarnation, bootstrapped, heldBuckets, expiringKeys, avgTtlMs, 0, 0, 0);
    }

    public byte[] encode() {
        return ByteBuffer.allocate(WITHOUT_EXPIRY_BYTES + 16 + 24).putLong(keyCount).putInt(ownedBuckets).putLong(lastBsn)
                .putLong(appliedIndex).putLong(incarnation).put((byte) (bootstrapped ? 1 : 0)).putInt(heldBuckets)
                .putLong(expiringKeys).putLong(avgTtlMs).putLong(keyspaceHits).putLong(keyspaceMisses).putLong(expiredKeys).array();
    }

    /**
     * A node older than 2026-12-02 sends no held count: its owned count stands in; one older than 2026-12-03 no expiry
     * counters, nor (issue 24's INFO stats) hit, miss and expired counters: 0.
     */
    public static StorageStats decode(ByteBuffer in) {
        long keys = in.getLong();
        int owned = in.getInt();
        long bsn = in.getLong();
        long applied = in.getLong();
        long incarnation = in.getLong();
        boolean bootstrapped = OpCodec.readBoolean(in);
        int held = in.remaining() >= 4 ? in.getInt() : owned;
        long expiring = in.remaining() >= 16 ? in.getLong() : 0;
        long avgTtl = in.remaining() >= 8 ? in.getLong() : 0;
        boolean lookups = in.remaining() >= 24;
        long hits = lookups ? in.getLong() : 0;
        long misses = lookups ? in.getLong() : 0;
        long expired = lookups ? in.getLong() : 0;
        return new StorageStats(keys, owned, bsn, applied, incarnation, bootstrapped, held, expiring, avgTtl, hits, misses, expired);
    }
}
