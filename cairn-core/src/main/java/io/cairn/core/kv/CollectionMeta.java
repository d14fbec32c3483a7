package io.cairn.core.kv;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What every collection type (hash, list, set) shares, in the manner of Kvrocks: one metadata
 * record in the data column ({@link StoredValue} header with the type and expiry, then the
 * element count and, for a list, its head), and one entry per element in the fields column under
 * the key's field prefix ({@link KvView#putField}). Each type chooses its field names:
 * <ul>
 *   <li>hash: the field name, value the field's value ({@link HashMeta});</li>
 *   <li>list: the element's sequence number as 8 order-preserving bytes ({@link ListMeta#seqField}),
 *       value the element; the metadata holds the head's sequence number, so a push at either end
 *       writes one entry and never renumbers the others;</li>
 *   <li>set: the member, value empty;</li>
 *   <li>sorted set: two entries per member, its score and a score index ({@link ZSetMeta}).</li>
 * </ul>
 * Because all of them live under the bucket's prefix in both columns, a bucket still moves,
 * archives and is deleted as one range; deleting or expiring a big collection is one range
 * tombstone over its field prefix ({@link KvView#clearFields}), never a rewrite.
 *
 * <p>A bucket move ships a collection as one chunk entry: the metadata followed by its elements as
 * a {@link Packed} list of name, value, name, value... ({@link #packForMove}), so the move's per-key
 * change marks, counts and checksums work unchanged whatever the type.
 */
public final class CollectionMeta {
    private CollectionMeta() {}

    public static boolean isCollection(byte[] stored) {
        if (stored == null || stored.length == 0) return false;
        byte type = StoredValue.type(stored);
        return type == StoredValue.TYPE_HASH || type == StoredValue.TYPE_LIST || type == StoredValue.TYPE_SET
                || type == StoredValue.TYPE_ZSET;
    }

    /** Bytes of the metadata record of a collection of {@code type}: header, count, and a list's head. */
    public static int metaBytes(byte type) {
        return type == StoredValue.TYPE_LIST ? StoredValue.HEADER_BYTES + 16 : StoredValue.HEADER_BYTES + 8;
    }

    /** The element count every collection's metadata carries right after the header. */
    public static long count(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong(StoredValue.HEADER_BYTES);
    }

    /** The number of field entries (what {@link KvView#clearFields} is told): one per element, two per sorted set member. */
    public static long entryCount(byte[] stored) {
        return StoredValue.type(stored) == StoredValue.TYPE_ZSET ? 2 * count(stored) : count(stored);
    }

    /** A collection's metadata with the same type, count and head but another expiry is {@link StoredValue#withExpiry}. */
    static byte[] encode(byte type, long count, long expireAtMs) {
        return StoredValue.encode(type, ByteBuffer.allocate(8).putLong(count).array(), expireAtMs);
    }

    /**
     * Clears the elements a record left behind when it expired and was not yet swept, before a
     * write makes a new key under the same name: none of them may reappear in it.
     */
    static void clearIfExpired(KvOp op, byte[] raw, byte[] stored, KvView view) {
        if (stored == null && isCollection(raw)) view.clearFields(op.bucket(), op.key(), entryCount(raw));
    }

    /** The move form: metadata, then the elements as a {@link Packed} list of name, value, name, value... */
    public static byte[] packForMove(byte[] meta, List<KvView.Field> fields) {
        List<byte[]> flat = new ArrayList<>(fields.size() * 2);
        for (KvView.Field f : fields) {
            flat.add(f.name());
            flat.add(f.value());
        }
        byte[] packed = Packed.encode(flat);
        int metaBytes = metaBytes(StoredValue.type(meta));
        ByteBuffer out = ByteBuffer.allocate(metaBytes + packed.length);
        out.put(meta, 0, metaBytes).put(packed);
        return out.array();
    }

    /** The metadata part of a move form. */
    public static byte[] metaOfMoveForm(byte[] moveForm) {
        return java.util.Arrays.copyOf(moveForm, metaBytes(StoredValue.type(moveForm)));
    }

    /** The elements part of a move form: a {@link Packed} list of name, value, name, value... */
    public static byte[] packedFieldsOfMoveForm(byte[] moveForm) {
        return java.util.Arrays.copyOfRange(moveForm, metaBytes(StoredValue.type(moveForm)), moveForm.length);
    }

    /**
     * Checks a record as a move chunk carries it (a string record, or a collection's move form), so
     * that a malformed one is refused before the Raft log rather than failing the apply on every replica.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static void checkMoveForm(byte[] stored) {
        if (stored.length < StoredValue.HEADER_BYTES) {
            throw new IllegalArgumentException("a moved record of " + stored.length + " bytes, shorter than its header");
        }
        byte type = StoredValue.type(stored);
        if (type < StoredValue.TYPE_STRING || type > StoredValue.TYPE_ZSET) throw new IllegalArgumentException("a moved record of unknown type " + type);
        if (!isCollection(stored)) return;
        if (stored.length < metaBytes(type)) throw new IllegalArgumentException("a moved collection shorter than its metadata");
        try {
            fieldsOfMoveForm(stored);
        } catch (IndexOutOfBoundsException | java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("a moved collection whose elements do not decode");
        }
    }

    public static List<KvView.Field> fieldsOfMoveForm(byte[] moveForm) {
        int metaBytes = metaBytes(StoredValue.type(moveForm));
        List<byte[]> flat = Packed.decode(ByteBuffer.wrap(moveForm, metaBytes, moveForm.length - metaBytes));
        if (flat.size() % 2 != 0) throw new IllegalArgumentException("odd number of field elements: " + flat.size());
        List<KvView.Field> out = new ArrayList<>(flat.size() / 2);
        for (int i = 0; i < flat.size(); i += 2) out.add(new KvView.Field(flat.get(i), flat.get(i + 1)));
        return out;
    }
}
