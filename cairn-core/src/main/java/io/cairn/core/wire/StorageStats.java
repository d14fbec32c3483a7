package io.cairn.core.wire;

import java.nio.ByteBuffer;

/** A replicaset's counters as seen by the member that answered (the leader for linearizable reads). */
public record StorageStats(long keyCount, int ownedBuckets, long lastBsn, long appliedIndex, long incarnation, boolean bootstrapped) {
    public byte[] encode() {
        return ByteBuffer.allocate(8 + 4 + 8 + 8 + 8 + 1).putLong(keyCount).putInt(ownedBuckets).putLong(lastBsn)
                .putLong(appliedIndex).putLong(incarnation).put((byte) (bootstrapped ? 1 : 0)).array();
    }

    public static StorageStats decode(ByteBuffer in) {
        return new StorageStats(in.getLong(), in.getInt(), in.getLong(), in.getLong(), in.getLong(), io.cairn.core.kv.OpCodec.readBoolean(in));
    }
}
