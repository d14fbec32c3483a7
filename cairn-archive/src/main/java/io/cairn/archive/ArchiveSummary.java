package io.cairn.archive;

/**
 * What a written (or fully read) bucket archive holds: the bucket at one generation, how many keys
 * and key+value bytes, the object's size, and the SHA-256 of its contents (hex), which names it.
 */
public record ArchiveSummary(int bucket, long generation, long keyCount, long byteCount, long sizeBytes, String contentHash) {
}
