package io.cairn.core.kv;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Stored layout of a key's record in the data column: an 8-byte header, then the data. The
 * header's first byte is the type ({@link #TYPE_STRING}, {@link #TYPE_HASH}, {@link #TYPE_LIST}, {@link #TYPE_SET}, {@link #TYPE_ZSET}), the other 7 the
 * absolute expiry in unix ms (0 = none; 56 bits last until the year 2^56 ms ~ 2.2 million AD).
 * Strings written before types existed have a zero first byte, so they read as strings unchanged.
 * A string's data is its value; a collection's its element count and more (see {@link CollectionMeta}).
 */
public final class StoredValue {
    public static final int HEADER_BYTES = 8;
    public static final byte TYPE_STRING = 0;
    public static final byte TYPE_HASH = 1;
    public static final byte TYPE_LIST = 2;
    public static final byte TYPE_SET = 3;
    public static final byte TYPE_ZSET = 4;
    private static final long EXPIRY_MASK = 0x00FF_FFFF_FFFF_FFFFL;

    private StoredValue() {}

    public static byte[] encode(byte[] data, long expireAtMs) {
        return encode(TYPE_STRING, data, expireAtMs);
    }

    public static byte[] encode(byte type, byte[] data, long expireAtMs) {
        byte[] out = new byte[HEADER_BYTES + data.length];
        ByteBuffer.wrap(out).putLong(header(type, expireAtMs));
        System.arraycopy(data, 0, out, HEADER_BYTES, data.length);
        return out;
    }

    private static long header(byte type, long expireAtMs) {
        return ((long) type << 56) | (expireAtMs & EXPIRY_MASK);
    }

    /** The same record with another expiry (type and data kept). */
    public static byte[] withExpiry(byte[] stored, long expireAtMs) {
        byte[] out = stored.clone();
        ByteBuffer.wrap(out).putLong(0, header(type(stored), expireAtMs));
        return out;
    }

    public static byte type(byte[] stored) {
        return stored[0];
    }

    public static boolean isString(byte[] stored) {
        return stored[0] == TYPE_STRING;
    }

    /** Redis's name of the type, as TYPE answers it. */
    public static String typeName(byte[] stored) {
        return switch (type(stored)) {
            case TYPE_STRING -> "string";
            case TYPE_HASH -> "hash";
            case TYPE_LIST -> "list";
            case TYPE_SET -> "set";
            case TYPE_ZSET -> "zset";
            default -> "unknown";
        };
    }

    public static long expireAtMs(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong(0) & EXPIRY_MASK;
    }

    public static byte[] data(byte[] stored) {
        return Arrays.copyOfRange(stored, HEADER_BYTES, stored.length);
    }

    public static int dataLength(byte[] stored) {
        return stored.length - HEADER_BYTES;
    }

    public static boolean isExpired(byte[] stored, long nowMs) {
        long at = expireAtMs(stored);
        return at != 0 && at <= nowMs;
    }
}
