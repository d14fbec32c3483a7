package io.cairn.core.move;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Where an archived bucket's data is: the object key in the replicaset's prefix of the object
 * store, the generation it was archived at, its key and byte counts, the object's size and the
 * SHA-256 of its contents (hex). Replicated with the bucket's record (docs/archive.md); kept after a
 * restore as the bucket's last archive object, which a newer archive replaces (and deletes) later.
 */
public record ArchivePointer(String objectKey, long generation, long keyCount, long byteCount, long sizeBytes, String contentHash) {
    public ArchivePointer {
        if (objectKey == null || objectKey.isEmpty()) throw new IllegalArgumentException("an archive pointer needs an object key");
        if (contentHash == null || contentHash.isEmpty()) throw new IllegalArgumentException("an archive pointer needs a content hash");
        if (keyCount < 0 || byteCount < 0 || sizeBytes < 0) throw new IllegalArgumentException("negative counts in " + objectKey);
    }

    public byte[] encode() {
        byte[] key = objectKey.getBytes(StandardCharsets.UTF_8);
        byte[] hash = contentHash.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + key.length + 8 * 4 + 4 + hash.length).putInt(key.length).put(key)
                .putLong(generation).putLong(keyCount).putLong(byteCount).putLong(sizeBytes).putInt(hash.length).put(hash).array();
    }

    public static ArchivePointer decode(ByteBuffer in) {
        String key = string(in);
        long generation = in.getLong();
        long keys = in.getLong();
        long bytes = in.getLong();
        long size = in.getLong();
        return new ArchivePointer(key, generation, keys, bytes, size, string(in));
    }

    public static ArchivePointer decode(byte[] bytes) {
        return decode(ByteBuffer.wrap(bytes));
    }

    private static String string(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) throw new IllegalArgumentException("bad string length " + n + " in an archive pointer");
        byte[] b = new byte[n];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
