package io.cairn.core.kv;

import java.nio.ByteBuffer;

/**
 * How a list is stored (see {@link CollectionMeta}): the metadata is the header, the element count
 * and the head's sequence number; element i (from the left) is the field entry named by
 * {@link #seqField}(head + i). LPUSH takes head - 1, RPUSH head + count: a push or pop at either end
 * touches one entry and the metadata, and positions stay dense, so element i is one point read
 * and a range of the list is a range of the field prefix.
 */
public final class ListMeta {
    private ListMeta() {}

    public static byte[] encode(long count, long head, long expireAtMs) {
        return StoredValue.encode(StoredValue.TYPE_LIST, ByteBuffer.allocate(16).putLong(count).putLong(head).array(), expireAtMs);
    }

    public static boolean isList(byte[] stored) {
        return stored != null && stored.length > 0 && StoredValue.type(stored) == StoredValue.TYPE_LIST;
    }

    public static long count(byte[] stored) {
        return CollectionMeta.count(stored);
    }

    public static long head(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong(StoredValue.HEADER_BYTES + 8);
    }

    /**
     * A sequence number as a field name whose unsigned byte order is the numbers' signed order
     * (the sign bit flipped), so fields sort left to right even after pushes below zero.
     */
    public static byte[] seqField(long seq) {
        return ByteBuffer.allocate(8).putLong(seq ^ Long.MIN_VALUE).array();
    }
}
