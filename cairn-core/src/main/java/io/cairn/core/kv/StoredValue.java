package io.cairn.core.kv;

import java.nio.ByteBuffer;
import java.util.Arrays;

/** Stored layout of a value: 8 bytes of absolute expiry in unix ms (0 = none), then the data. */
public final class StoredValue {
    public static final int HEADER_BYTES = 8;

    private StoredValue() {}

    public static byte[] encode(byte[] data, long expireAtMs) {
        byte[] out = new byte[HEADER_BYTES + data.length];
        ByteBuffer.wrap(out).putLong(expireAtMs);
        System.arraycopy(data, 0, out, HEADER_BYTES, data.length);
        return out;
    }

    public static long expireAtMs(byte[] stored) {
        return ByteBuffer.wrap(stored).getLong(0);
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
