package io.cairn.archive;

/**
 * A bucket archive that is durably in the object store: what the replicated bucket record will
 * keep (the object key, the content hash, the counts) to restore, verify or move it later.
 */
public record ArchiveRef(String objectKey, int bucket, long generation, long keyCount, long byteCount,
                         long sizeBytes, String contentHash) {
    static ArchiveRef of(String objectKey, ArchiveSummary s) {
        return new ArchiveRef(objectKey, s.bucket(), s.generation(), s.keyCount(), s.byteCount(), s.sizeBytes(), s.contentHash());
    }
}
