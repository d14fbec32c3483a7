package io.cairn.storage.state;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.StoredValue;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Finds expired keys so the leader can delete them (expired keys are hidden at once, but
 * without this they would stay on disk until a write touches them). Walks the data column
 * family in bounded steps, resuming where the previous step stopped and wrapping around.
 * The deletes it proposes are conditional ({@link KvOp.Type#DEL_IF_EXPIRED}), re-checked
 * with the leader's stamped time when applied, so a key written again meanwhile survives.
 * Not thread-safe: one caller (the storage process's timer).
 */
public final class ExpiryScanner {
    /**
     * Live keys with a TTL and their average remaining TTL, counted over one full pass of the scan
     * (INFO keyspace's expires and avg_ttl): exact for the pass, but keys written since count only
     * at the next one.
     */
    record Tally(long expiringKeys, long avgTtlMs) {}

    private byte[] cursor = new byte[0];
    private long passExpiring;
    private long passTtlSumMs;
    private volatile Tally lastPass;

    /** The last full pass's counts; before the first one ends, the current pass's so far. */
    public Tally tally() {
        Tally done = lastPass;
        return done != null ? done : new Tally(passExpiring, passExpiring == 0 ? 0 : passTtlSumMs / passExpiring);
    }

    /** Examines at most {@code scanLimit} keys; returns the expired ones as conditional deletes. */
    public List<KvOp> next(RocksStore store, int scanLimit, long nowMs) {
        List<KvOp> expired = new ArrayList<>();
        try (StoreIterator it = store.newIterator(store.data)) {
            it.seek(cursor);
            int scanned = 0;
            for (; it.isValid() && scanned < scanLimit; it.next(), scanned++) {
                long expireAtMs = StoredValue.expireAtMs(it.value());
                if (expireAtMs > nowMs) {
                    passExpiring++;
                    passTtlSumMs += expireAtMs - nowMs;
                }
                if (StoredValue.isExpired(it.value(), nowMs)) {
                    byte[] dataKey = it.key();
                    int bucket = ByteBuffer.wrap(dataKey).getInt();
                    byte[] key = Arrays.copyOfRange(dataKey, 4, dataKey.length);
                    expired.add(KvOp.of(KvOp.Type.DEL_IF_EXPIRED, bucket, key));
                }
            }
            if (it.isValid()) {
                cursor = it.key();
            } else {
                cursor = new byte[0]; // wrapped: start over next time
                lastPass = new Tally(passExpiring, passExpiring == 0 ? 0 : passTtlSumMs / passExpiring);
                passExpiring = 0;
                passTtlSumMs = 0;
            }
        }
        return expired;
    }
}
