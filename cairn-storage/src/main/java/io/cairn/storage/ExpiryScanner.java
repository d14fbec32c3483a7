package io.cairn.storage;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.StoredValue;
import org.rocksdb.RocksIterator;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds expired keys so the leader can delete them (expired keys are hidden at once, but
 * without this they would stay on disk until a write touches them). Walks the data column
 * family bucket by bucket (the buckets that have a record here) in bounded steps, resuming
 * where the previous step stopped and wrapping around after the last bucket.
 * The deletes it proposes are conditional ({@link KvOp.Type#DEL_IF_EXPIRED}), re-checked
 * with the leader's stamped time when applied, so a key written again meanwhile survives.
 * Not thread-safe: one caller (the storage process's timer).
 */
final class ExpiryScanner {
    private int bucket;
    /** The next key of {@link #bucket} to examine; empty: its first. */
    private byte[] fromKey = new byte[0];

    /**
     * Examines at most {@code scanLimit} keys (a bucket visited counts as one, so a pass over
     * many empty buckets is bounded too); returns the expired ones as conditional deletes.
     */
    List<KvOp> next(RocksStore store, int scanLimit, long nowMs) {
        List<KvOp> expired = new ArrayList<>();
        int examined = 0;
        while (examined < scanLimit) {
            int recorded = store.recordedBucketFrom(bucket);
            if (recorded < 0) { // past the last bucket: start over next time
                bucket = 0;
                fromKey = new byte[0];
                break;
            }
            if (recorded != bucket) {
                bucket = recorded;
                fromKey = new byte[0];
            }
            examined++;
            try (RocksIterator it = store.newIterator(store.data)) {
                for (it.seek(RocksStore.dataKey(bucket, fromKey)); it.isValid() && RocksStore.bucketOf(it.key()) == bucket; it.next()) {
                    if (examined >= scanLimit) {
                        fromKey = RocksStore.userKey(it.key());
                        return expired;
                    }
                    examined++;
                    if (StoredValue.isExpired(it.value(), nowMs)) expired.add(KvOp.of(KvOp.Type.DEL_IF_EXPIRED, bucket, RocksStore.userKey(it.key())));
                }
            }
            bucket++;
            fromKey = new byte[0];
        }
        return expired;
    }
}
