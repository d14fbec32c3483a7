package io.cairn.core.move;

import io.cairn.core.kv.CollectionMeta;
import io.cairn.core.kv.KvView;
import io.cairn.core.kv.MovePiece;

import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * One stored key of a bucket in transfer: the user key and the raw stored value (expiry
 * included). A changed key sent while a copied-ahead bucket is SENDING may be a deletion: an
 * empty {@code stored} (a stored value always has its expiry header).
 */
public record ChunkEntry(byte[] key, byte[] stored) {
    private static final byte[] NONE = new byte[0];

    /** The key no longer exists at the source. */
    public static ChunkEntry deletion(byte[] key) {
        return new ChunkEntry(key, NONE);
    }

    public boolean isDeletion() {
        return stored.length == 0;
    }

    /** A part of a collection too big for one chunk ({@link MovePiece}). */
    public boolean isPiece() {
        return MovePiece.isPiece(stored);
    }

    /** Keys this entry completes: 1, except a collection's pieces before its last (0). */
    public int keys() {
        return isPiece() && MovePiece.kind(stored) != MovePiece.Kind.LAST ? 0 : 1;
    }

    /**
     * Where the next read resumes inside this entry's key: the last element name of a FIRST or
     * MIDDLE piece; empty for anything else (the next read starts after the key).
     */
    public byte[] resumeElement() {
        if (keys() != 0) return NONE;
        List<KvView.Field> fields = CollectionMeta.fieldsOfMoveForm(MovePiece.moveForm(stored));
        return fields.get(fields.size() - 1).name();
    }

    /** The number of keys {@code entries} complete (a key sent in pieces counts once). */
    public static long keyCount(List<ChunkEntry> entries) {
        long n = 0;
        for (ChunkEntry e : entries) n += e.keys();
        return n;
    }

    /**
     * Contribution of a whole entry to a bucket's checksum. Checksums are sums of per-entry CRCs,
     * so they can be accumulated chunk by chunk and compared whatever the order. A key sent in pieces
     * counts through {@link #checksum(List, MovePiece.Check)} instead.
     */
    public long crc() {
        CRC32C crc = new CRC32C();
        crc.update(key.length >>> 24);
        crc.update(key.length >>> 16);
        crc.update(key.length >>> 8);
        crc.update(key.length);
        crc.update(key);
        crc.update(stored);
        return crc.getValue();
    }

    /** The checksum contribution of {@code entries}, whose collections in pieces start and end among them. */
    public static long checksum(List<ChunkEntry> entries) {
        return checksum(entries, null).sum();
    }

    /** What some entries add to a checksum, and the check of a collection whose pieces go on after them (else null). */
    public record Checksum(long sum, MovePiece.Check open) {}

    /**
     * What {@code entries} add to the digest of what was streamed, {@code open} being the check of a
     * collection whose pieces began before them: a whole key its CRC, a collection in pieces the CRC of
     * all of them at its LAST, computed from the pieces as the destination computes it (the source does
     * not read the key again for it). A LAST or MIDDLE piece without its FIRST adds nothing.
     */
    public static Checksum checksum(List<ChunkEntry> entries, MovePiece.Check open) {
        long sum = 0;
        for (ChunkEntry e : entries) {
            if (!e.isPiece()) {
                sum += e.crc();
                continue;
            }
            byte[] form = MovePiece.moveForm(e.stored());
            MovePiece.Kind kind = MovePiece.kind(e.stored());
            open = kind == MovePiece.Kind.FIRST ? MovePiece.Check.first(e.key(), form) : open == null ? null : open.then(form);
            if (kind == MovePiece.Kind.LAST) {
                if (open != null) sum += open.wholeCrc();
                open = null;
            }
        }
        return new Checksum(sum, open);
    }

    public int sizeBytes() {
        return key.length + stored.length + 8;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChunkEntry e && Arrays.equals(key, e.key) && Arrays.equals(stored, e.stored);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(key) + Arrays.hashCode(stored);
    }
}
