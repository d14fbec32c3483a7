package io.cairn.core.move;

import io.cairn.core.kv.MovePiece;

import java.nio.ByteBuffer;

/**
 * What a destination has received of one incoming bucket: chunks applied, keys and the running
 * checksum. Replicated with the chunks, so a new destination leader knows exactly which chunk
 * comes next (a chunk lost with an old leader shows up as a GAP, never as silent loss).
 *
 * @param piece the check of a collection arriving in pieces whose LAST has not come yet, else null
 */
public record ReceiveProgress(long generation, int nextSeq, long keyCount, long checksum, boolean complete, MovePiece.Check piece) {
    public static final int ENCODED_BYTES = 8 + 4 + 8 + 8 + 1;

    public ReceiveProgress(long generation, int nextSeq, long keyCount, long checksum, boolean complete) {
        this(generation, nextSeq, keyCount, checksum, complete, null);
    }

    public ReceiveProgress add(ChunkEntry entry) {
        return new ReceiveProgress(generation, nextSeq, keyCount + 1, checksum + entry.crc(), complete, piece);
    }

    /** Counts a key completed here by its last piece, with the CRC of its whole move form as stored here. */
    public ReceiveProgress addKey(long crc) {
        return new ReceiveProgress(generation, nextSeq, keyCount + 1, checksum + crc, complete, piece);
    }

    /** Takes out an entry the copy held before a changed key replaced or deleted it. */
    public ReceiveProgress remove(ChunkEntry entry) {
        return new ReceiveProgress(generation, nextSeq, keyCount - 1, checksum - entry.crc(), complete, piece);
    }

    public ReceiveProgress withPiece(MovePiece.Check check) {
        return new ReceiveProgress(generation, nextSeq, keyCount, checksum, complete, check);
    }

    /** After one more chunk applied. */
    public ReceiveProgress nextChunk() {
        return new ReceiveProgress(generation, nextSeq + 1, keyCount, checksum, false, piece);
    }

    /** Progress written before 2026-12-03 ends after {@link #ENCODED_BYTES}; a piece's check follows when there is one. */
    public byte[] encode() {
        byte[] check = piece == null ? new byte[0] : piece.encode();
        return ByteBuffer.allocate(ENCODED_BYTES + check.length).putLong(generation).putInt(nextSeq).putLong(keyCount).putLong(checksum)
                .put((byte) (complete ? 1 : 0)).put(check).array();
    }

    public static ReceiveProgress decode(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        return new ReceiveProgress(in.getLong(), in.getInt(), in.getLong(), in.getLong(), in.get() != 0,
                in.hasRemaining() ? MovePiece.Check.decode(in) : null);
    }
}
