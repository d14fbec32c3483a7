package io.cairn.core.move;

import java.nio.ByteBuffer;

/**
 * What a destination has received of one incoming bucket: chunks applied, keys and the running
 * checksum. Replicated with the chunks, so a new destination leader knows exactly which chunk
 * comes next (a chunk lost with an old leader shows up as a GAP, never as silent loss).
 */
public record ReceiveProgress(long generation, int nextSeq, long keyCount, long checksum, boolean complete) {
    public static final int ENCODED_BYTES = 8 + 4 + 8 + 8 + 1;

    public ReceiveProgress add(ChunkEntry entry) {
        return new ReceiveProgress(generation, nextSeq, keyCount + 1, checksum + entry.crc(), complete);
    }

    /** Counts a key completed here by its last piece, with the CRC of its whole move form as stored here. */
    public ReceiveProgress addKey(long crc) {
        return new ReceiveProgress(generation, nextSeq, keyCount + 1, checksum + crc, complete);
    }

    /** Takes out an entry the copy held before a changed key replaced or deleted it. */
    public ReceiveProgress remove(ChunkEntry entry) {
        return new ReceiveProgress(generation, nextSeq, keyCount - 1, checksum - entry.crc(), complete);
    }

    public byte[] encode() {
        return ByteBuffer.allocate(ENCODED_BYTES).putLong(generation).putInt(nextSeq).putLong(keyCount).putLong(checksum)
                .put((byte) (complete ? 1 : 0)).array();
    }

    public static ReceiveProgress decode(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        return new ReceiveProgress(in.getLong(), in.getInt(), in.getLong(), in.getLong(), in.get() != 0);
    }
}
