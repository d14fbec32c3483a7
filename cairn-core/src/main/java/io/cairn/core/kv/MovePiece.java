package io.cairn.core.kv;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A part of a collection too big for one move chunk (issue 24): a collection whose move form
 * ({@link CollectionMeta#packForMove}) passes the chunk bound travels as consecutive pieces, each a
 * move form of the metadata and a range of the elements, in element order.
 *
 * <p>Encoding, in a chunk entry's stored bytes: {@link #TYPE_PIECE}, the kind, a CRC field (sources
 * before 2026-12-03 wrote the whole collection's move-form CRC into a last piece; now 0: the driver and
 * the destination compute it from the pieces, {@link Check}), then the piece's move form. {@link #TYPE_PIECE} is never a stored
 * record's type, so a piece cannot be mistaken for a key.
 *
 * <p>Why a copy is never visible half-made: the destination applies the FIRST piece as a
 * replacement of the key (its old elements cleared), the others as added elements, and counts the
 * key in its receive progress only at the LAST piece, with a CRC it computes over what it holds.
 * A move interrupted between pieces therefore cannot pass the verdict (key count and checksum
 * compared with the source's digest): the copy is fenced and its data, partial elements included,
 * deleted with the bucket's; and the bucket is RECEIVING, serving nothing, until the verdict.
 */
public final class MovePiece {
    /** The first byte of a piece; not a {@link StoredValue} type. */
    public static final byte TYPE_PIECE = 0x50;

    public enum Kind {
        FIRST(1), MIDDLE(2), LAST(3);

        final byte code;

        Kind(int code) {
            this.code = (byte) code;
        }

        static Kind of(byte code) {
            for (Kind k : values()) if (k.code == code) return k;
            throw new IllegalArgumentException("unknown move piece kind " + code);
        }
    }

    private static final int HEADER_BYTES = 1 + 1 + 8;

    private MovePiece() {}

    public static boolean isPiece(byte[] stored) {
        return stored != null && stored.length > 0 && stored[0] == TYPE_PIECE;
    }

    public static byte[] encode(Kind kind, long wholeCrc, byte[] meta, List<KvView.Field> fields) {
        byte[] form = CollectionMeta.packForMove(meta, fields);
        return ByteBuffer.allocate(HEADER_BYTES + form.length).put(TYPE_PIECE).put(kind.code).putLong(wholeCrc).put(form).array();
    }

    public static Kind kind(byte[] piece) {
        return Kind.of(piece[1]);
    }

    /** The piece's own move form: the metadata and its range of elements. */
    public static byte[] moveForm(byte[] piece) {
        return Arrays.copyOfRange(piece, HEADER_BYTES, piece.length);
    }

    /** Refuses a malformed piece before the Raft log, as {@link CollectionMeta#checkMoveForm} does for a whole record. */
    public static void check(byte[] piece) {
        if (piece.length < HEADER_BYTES) throw new IllegalArgumentException("a move piece shorter than its header");
        kind(piece);
        byte[] form = moveForm(piece);
        if (!CollectionMeta.isCollection(form)) throw new IllegalArgumentException("a move piece that is not of a collection");
        CollectionMeta.checkMoveForm(form);
    }

    /** A collection's elements in name order, a page at a time: the {@code limit} first at or after {@code from}. */
    @FunctionalInterface
    public interface Pages {
        List<KvView.Field> from(byte[] from, int limit);
    }

    /** Elements per page: large, since the destination reads them through its entry's batch, whose overlay each page merges. */
    private static final int CRC_PAGE = 65_536;

    /**
     * What {@code ChunkEntry.crc()} of a key's whole move form ({@link CollectionMeta#packForMove} of
     * {@code meta} and every element) is, read a page at a time. The move form starts with its
     * element count: the metadata's count is taken first, and only when the elements turn out to be
     * another number (a copy ahead mixing pieces read at different times) is a second pass made.
     */
    public static long wholeCrc(byte[] key, byte[] meta, Pages pages) {
        long expected = CollectionMeta.entryCount(meta);
        Crc crc = new Crc(key, meta, expected);
        long fields = feed(crc, pages);
        if (fields == expected) return crc.value();
        Crc again = new Crc(key, meta, fields);
        feed(again, pages);
        return again.value();
    }

    private static long feed(Crc crc, Pages pages) {
        long fields = 0;
        for (byte[] from = new byte[0]; from != null; ) {
            List<KvView.Field> page = pages.from(from, CRC_PAGE);
            for (KvView.Field f : page) crc.field(f);
            fields += page.size();
            from = next(page);
        }
        return fields;
    }

    /** The smallest name after a full page's last one; null after the last page. */
    private static byte[] next(List<KvView.Field> page) {
        if (page.size() < CRC_PAGE) return null;
        byte[] last = page.get(page.size() - 1).name();
        return Arrays.copyOf(last, last.length + 1);
    }

    /**
     * A destination's check of a collection arriving in pieces, carried from piece to piece in its
     * receive progress: the CRC of the elements so far, their bytes and count, so that the LAST
     * piece yields the whole key's CRC ({@link #wholeCrc}) without reading the collection again (that
     * read held the destination's apply thread for a second per million elements). The metadata is
     * the FIRST piece's, which is what the destination holds: later pieces only add elements.
     */
    public record Check(byte[] key, byte[] meta, long elementsCrc, long elementsBytes, long elements) {
        /** After the FIRST piece, whose move form is {@code form}. */
        public static Check first(byte[] key, byte[] form) {
            return new Check(key, CollectionMeta.metaOfMoveForm(form), 0, 0, 0).then(form);
        }

        /** After one more piece of the same key, whose move form is {@code form}. */
        public Check then(byte[] form) {
            return then(CollectionMeta.fieldsOfMoveForm(form));
        }

        /** After one more piece of the same key, whose elements are {@code fields}. */
        public Check then(List<KvView.Field> fields) {
            CRC32C crc = new CRC32C();
            long bytes = 0;
            for (KvView.Field f : fields) bytes += Crc.element(crc, f.name()) + Crc.element(crc, f.value());
            return new Check(key, meta, Crc32c.combine(elementsCrc, crc.getValue(), bytes), elementsBytes + bytes, elements + fields.size());
        }

        /** What {@code ChunkEntry.crc()} of the key's whole move form, as held, is. */
        public long wholeCrc() {
            return Crc32c.combine(new Crc(key, meta, elements).value(), elementsCrc, elementsBytes);
        }

        public byte[] encode() {
            return ByteBuffer.allocate(4 + key.length + 4 + meta.length + 24).putInt(key.length).put(key).putInt(meta.length).put(meta)
                    .putLong(elementsCrc).putLong(elementsBytes).putLong(elements).array();
        }

        public static Check decode(ByteBuffer in) {
            byte[] key = new byte[in.getInt()];
            in.get(key);
            byte[] meta = new byte[in.getInt()];
            in.get(meta);
            return new Check(key, meta, in.getLong(), in.getLong(), in.getLong());
        }
    }

    /**
     * A CRC computed as {@code ChunkEntry.crc()} computes one over a key and its whole move form,
     * fed element by element so a big collection is never held whole in memory.
     */
    static final class Crc {
        private final CRC32C crc = new CRC32C();

        /** Starts with the key, the metadata's bytes and the number of packed elements (2 per field). */
        Crc(byte[] key, byte[] meta, long fieldCount) {
            ByteBuffer len = ByteBuffer.allocate(4);
            crc.update(key.length >>> 24);
            crc.update(key.length >>> 16);
            crc.update(key.length >>> 8);
            crc.update(key.length);
            crc.update(key);
            crc.update(meta, 0, CollectionMeta.metaBytes(StoredValue.type(meta)));
            crc.update(len.putInt(0, (int) (2 * fieldCount)).array());
        }

        void field(KvView.Field f) {
            element(crc, f.name());
            element(crc, f.value());
        }

        /** Feeds one element (its length, then its bytes); returns the bytes fed. */
        static int element(CRC32C crc, byte[] e) {
            crc.update(ByteBuffer.allocate(4).putInt(e == null ? -1 : e.length).array());
            if (e != null) crc.update(e);
            return 4 + (e == null ? 0 : e.length);
        }

        long value() {
            return crc.getValue();
        }
    }
}
