package io.cairn.core;

import java.util.zip.CRC32;

/**
 * Maps a key to its bucket: {@code 1 + crc32(shardKey) mod bucketCount}.
 *
 * <p>The shard key is the text inside the first {@code {...}} of the key when that text is
 * non-empty (Redis Cluster hash tags), otherwise the whole key. Keys sharing a tag share a
 * bucket, so multi-key commands on them are atomic.
 */
public final class BucketHasher {
    private BucketHasher() {}

    public static int bucketOf(byte[] key, int bucketCount) {
        if (bucketCount <= 0) throw new IllegalArgumentException("bucketCount must be positive: " + bucketCount);
        CRC32 crc = new CRC32();
        int open = indexOf(key, (byte) '{', 0);
        int close = open < 0 ? -1 : indexOf(key, (byte) '}', open + 1);
        if (open >= 0 && close > open + 1) {
            crc.update(key, open + 1, close - open - 1);
        } else {
            crc.update(key, 0, key.length);
        }
        return 1 + (int) (crc.getValue() % bucketCount);
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = from; i < bytes.length; i++) if (bytes[i] == b) return i;
        return -1;
    }
}
