package io.cairn.archive;

/**
 * One key of a bucket as archived: the stored key bytes, the value bytes, and the absolute expiry
 * in epoch milliseconds ({@link #NO_EXPIRY} when the key does not expire). The arrays are not copied:
 * a writer reads them once, a reader hands out fresh ones.
 */
public record ArchiveEntry(byte[] key, byte[] value, long expiresAtMs) {
    public static final long NO_EXPIRY = 0L;

    public ArchiveEntry {
        if (key == null || value == null) throw new IllegalArgumentException("an archive entry needs a key and a value");
        if (expiresAtMs < 0) throw new IllegalArgumentException("negative expiry " + expiresAtMs);
    }
}
