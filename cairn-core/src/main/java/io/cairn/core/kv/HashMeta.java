package io.cairn.core.kv;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * How a hash is stored, in the manner of Kvrocks and Pika: one metadata record in the data
 * column under the key ({@link StoredValue} header with type {@link StoredValue#TYPE_HASH} and
 * the expiry, then the field count), and one entry per field in a separate column, keyed
 * [bucket][key length][key][field], so every field sits under its key's bucket prefix and a
 * bucket is still moved, counted and deleted as one range.
 *
 * <p>Why no version number (Kvrocks bumps one on delete and lets a compaction filter collect the
 * old fields): a version needs that background collector to reclaim space, and a collector that
 * runs on every replica at its own pace is one more thing to keep deterministic. Instead a
 * delete, an overwrite or an expiry of a hash removes its fields in the same Raft entry: a small
 * hash by point deletes, a big one by one range tombstone over its key's field prefix (O(1)
 * whatever the size, never rewriting a field). Until the expiry sweeper's delete lands, an
 * expired hash's fields stay on disk but are unreachable: every read checks the metadata first.
 * The metadata is the only record counted as a key, listed by SCAN/KEYS or seen by the sweeper.
 *
 * <p>A bucket move ships a hash as one chunk entry: the metadata followed by its fields
 * ({@link #packForMove}), so the move's per-key change marks, counts and checksums work unchanged.
 */
public final class HashMeta {
    /** Metadata bytes: the header and the 8-byte field count. */
    public static final int META_BYTES = StoredValue.HEADER_BYTES + 8;

    private HashMeta() {}

    public static byte[] encode(long fieldCount, long expireAtMs) {
        return StoredValue.encode(StoredValue.TYPE_HASH, ByteBuffer.allocate(8).putLong(fieldCount).array(), expireAtMs);
    }

    public static long fieldCount(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong(StoredValue.HEADER_BYTES);
    }

    public static boolean isHash(byte[] stored) {
        return stored != null && stored.length > 0 && StoredValue.type(stored) == StoredValue.TYPE_HASH;
    }

    /** The move form: metadata, then the fields as a {@link Packed} list of name, value, name, value... */
    public static byte[] packForMove(byte[] meta, List<KvView.Field> fields) {
        List<byte[]> flat = new ArrayList<>(fields.size() * 2);
        for (KvView.Field f : fields) {
            flat.add(f.name());
            flat.add(f.value());
        }
        byte[] packed = Packed.encode(flat);
        ByteBuffer out = ByteBuffer.allocate(META_BYTES + packed.length);
        out.put(meta, 0, META_BYTES).put(packed);
        return out.array();
    }

    /** The metadata part of a move form. */
    public static byte[] metaOfMoveForm(byte[] moveForm) {
        return java.util.Arrays.copyOf(moveForm, META_BYTES);
    }

    /** The fields part of a move form: a {@link Packed} list of name, value, name, value... */
    public static byte[] packedFieldsOfMoveForm(byte[] moveForm) {
        return java.util.Arrays.copyOfRange(moveForm, META_BYTES, moveForm.length);
    }

    public static List<KvView.Field> fieldsOfMoveForm(byte[] moveForm) {
        List<byte[]> flat = Packed.decode(ByteBuffer.wrap(moveForm, META_BYTES, moveForm.length - META_BYTES));
        if (flat.size() % 2 != 0) throw new IllegalArgumentException("odd number of field elements: " + flat.size());
        List<KvView.Field> out = new ArrayList<>(flat.size() / 2);
        for (int i = 0; i < flat.size(); i += 2) out.add(new KvView.Field(flat.get(i), flat.get(i + 1)));
        return out;
    }
}
