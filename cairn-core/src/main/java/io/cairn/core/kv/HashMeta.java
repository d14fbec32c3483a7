package io.cairn.core.kv;

import java.nio.ByteBuffer;
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

    /** The move form of a hash (see {@link CollectionMeta#packForMove}, which every collection type shares). */
    public static byte[] packForMove(byte[] meta, List<KvView.Field> fields) {
        return CollectionMeta.packForMove(meta, fields);
    }

    public static byte[] metaOfMoveForm(byte[] moveForm) {
        return CollectionMeta.metaOfMoveForm(moveForm);
    }

    public static byte[] packedFieldsOfMoveForm(byte[] moveForm) {
        return CollectionMeta.packedFieldsOfMoveForm(moveForm);
    }

    public static List<KvView.Field> fieldsOfMoveForm(byte[] moveForm) {
        return CollectionMeta.fieldsOfMoveForm(moveForm);
    }
}
