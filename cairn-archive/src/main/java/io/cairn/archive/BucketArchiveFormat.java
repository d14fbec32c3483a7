package io.cairn.archive;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.nio.ByteBuffer;

/**
 * Layout of one bucket archive object, format version 1. All integers big-endian.
 *
 * <pre>
 * header  (40 bytes)  magic "CAIRNBKT" | version int | bucket int | generation long | keyCount long | byteCount long
 * entries (repeated)  0x01 | keyLength int | key | valueLength int | value | expiresAtMs long
 * end     (1 byte)    0x00
 * trailer (56 bytes)  keyCount long | byteCount long | sha256 (32 bytes) | magic "CAIRNEND"
 * </pre>
 *
 * Keys are in strictly increasing unsigned byte order (RocksDB's iteration order), so a restore can
 * build an SST file from the stream directly and a duplicate key is a detectable bug. The writer does
 * not know keyCount and byteCount until the end, so it patches the header; the hash therefore covers
 * the entry bytes (from the first tag to the end tag) FOLLOWED by the header fields, which are all
 * known at the end: a flipped bit anywhere but in the magics changes the hash. byteCount is the sum of
 * key and value lengths (the logical size a restore will write), not the object size.
 */
final class BucketArchiveFormat {
    static final int VERSION = 1;
    static final byte[] HEADER_MAGIC = {'C', 'A', 'I', 'R', 'N', 'B', 'K', 'T'};
    static final byte[] TRAILER_MAGIC = {'C', 'A', 'I', 'R', 'N', 'E', 'N', 'D'};
    static final int HEADER_BYTES = 8 + 4 + 4 + 8 + 8 + 8;
    static final int TRAILER_BYTES = 8 + 8 + 32 + 8;
    static final byte TAG_ENTRY = 1;
    static final byte TAG_END = 0;
    /** Bounds a reader enforces before allocating, so a corrupt length cannot exhaust the heap. */
    static final int MAX_KEY_BYTES = 64 * 1024;
    static final int MAX_VALUE_BYTES = 512 * 1024 * 1024;

    private BucketArchiveFormat() {}

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Feeds the header fields into the digest after the entries (see the class comment). */
    static byte[] finish(MessageDigest digest, int bucket, long generation, long keyCount, long byteCount) {
        ByteBuffer fields = ByteBuffer.allocate(4 + 4 + 8 + 8 + 8);
        fields.putInt(VERSION).putInt(bucket).putLong(generation).putLong(keyCount).putLong(byteCount);
        digest.update(fields.array());
        return digest.digest();
    }

    static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) s.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        return s.toString();
    }
}
