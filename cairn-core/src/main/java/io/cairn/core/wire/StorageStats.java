package io.cairn.core.wire;

import java.nio.ByteBuffer;

/**
 * A replicaset's counters as seen by the member that answered (the leader for linearizable reads).
 *
 * @param ownedBuckets buckets counted toward its share (ACTIVE, PINNED, SENDING)
 * @param heldBuckets  buckets whose data or move the cluster still needs here: the owned ones,
 *                     RECEIVING and READONLY, SENT until the data is dropped, quarantined
 *                     copies (kept for export). A replicaset may be removed only at zero.
 */
public record StorageStats(long keyCount, int ownedBuckets, long lastBsn, long appliedIndex, long incarnation, boolean bootstrapped,
                           int heldBuckets) {
    public byte[] encode() {
        return ByteBuffer.allocate(8 + 4 + 8 + 8 + 8 + 1 + 4).putLong(keyCount).putInt(ownedBuckets).putLong(lastBsn)
                .putLong(appliedIndex).putLong(incarnation).put((byte) (bootstrapped ? 1 : 0)).putInt(heldBuckets).array();
    }

    /** A node older than 2026-12-02 sends no held count: its owned count stands in. */
    public static StorageStats decode(ByteBuffer in) {
        long keys = in.getLong();
        int owned = in.getInt();
        long bsn = in.getLong();
        long applied = in.getLong();
        long incarnation = in.getLong();
        boolean bootstrapped = io.cairn.core.kv.OpCodec.readBoolean(in);
        return new StorageStats(keys, owned, bsn, applied, incarnation, bootstrapped, in.remaining() >= 4 ? in.getInt() : owned);
    }
}
