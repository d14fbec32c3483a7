package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Writes, verifies, copies and opens bucket archives in an {@link ObjectStore} (issue 23, seed 002's
 * archive tier and S3 data plane). Not wired to live buckets yet: the storage node will call
 * {@link #archive} with an iterator over a RocksDB snapshot of the bucket, record the returned
 * {@link ArchiveRef} as ARCHIVED in the replicated bucket record, and only then drop local data.
 *
 * <p>Key layout: {@code <replicasetPrefix>/buckets/<bucket>/<generation>-<sha256>}. The key is
 * content-addressed, so an object, once written, never changes: a re-archive of the same contents
 * lands on the same key (and is a no-op), a different one on a new key; the old object is deleted
 * only after the new one is durable (restore copies, it never deletes; seed 002 §2.5).
 *
 * <p>Durable means verified: {@link #archive} and {@link #copyTo} HEAD the object they wrote and
 * compare its size and recorded hash before they return. {@link #verify} is the "durable ACK"
 * check a replicaset makes before saying "I hold this archived bucket".
 */
public final class BucketArchiver {
    static final String META_FORMAT = "cairn-archive-format";
    static final String META_BUCKET = "cairn-bucket";
    static final String META_GENERATION = "cairn-generation";
    static final String META_KEYS = "cairn-keys";
    static final String META_BYTES = "cairn-bytes";
    static final String META_HASH = "cairn-sha256";

    private final ObjectStore store;
    private final Path tempDir;

    /** @param tempDir where archives are staged before upload (the node's data folder, not /tmp: it may be small) */
    public BucketArchiver(ObjectStore store, Path tempDir) {
        this.store = store;
        this.tempDir = tempDir;
    }

    public static String objectKey(String replicasetPrefix, int bucket, long generation, String contentHash) {
        return ObjectKeys.checkKey(replicasetPrefix + "/buckets/" + bucket + "/" + generation + "-" + contentHash);
    }

    /** The folder, under a replicaset's prefix, that holds every archive of one bucket. */
    public static String bucketPrefix(String replicasetPrefix, int bucket) {
        return replicasetPrefix + "/buckets/" + bucket + "/";
    }

    /**
     * Streams the entries into an archive, uploads it under the replicaset's prefix and verifies it.
     * Idempotent: the same contents at the same generation end at the same key.
     */
    public ArchiveRef archive(String replicasetPrefix, int bucket, long generation, Iterator<ArchiveEntry> entries) {
        Path staged = null;
        try {
            Files.createDirectories(tempDir);
            staged = Files.createTempFile(tempDir, "bucket-" + bucket + "-", ".archive");
            ArchiveSummary summary = BucketArchiveWriter.write(staged, bucket, generation, entries);
            ArchiveRef ref = ArchiveRef.of(objectKey(replicasetPrefix, bucket, generation, summary.contentHash()), summary);
            // If absent: an object at a content-addressed key already holds these very bytes, so
            // finding one is success, and verification below proves it.
            store.putIfAbsent(ref.objectKey(), ObjectBody.of(staged), metadata(ref));
            return verify(ref, ref.objectKey());
        } catch (IOException e) {
            throw new CairnException(ErrorCode.OBJECT_STORE_UNAVAILABLE,
                    "staging the archive of bucket " + bucket + " in " + tempDir + ": " + e);
        } finally {
            if (staged != null) deleteQuietly(staged);
        }
    }

    /**
     * Server-side copy of an archive to another replicaset's prefix (a move of an archived bucket):
     * no archive bytes pass through this process. Verified at the destination before returning.
     */
    public ArchiveRef copyTo(ArchiveRef ref, String destinationPrefix) {
        String destination = objectKey(destinationPrefix, ref.bucket(), ref.generation(), ref.contentHash());
        store.copy(ref.objectKey(), destination);
        ArchiveRef copied = new ArchiveRef(destination, ref.bucket(), ref.generation(), ref.keyCount(), ref.byteCount(),
                ref.sizeBytes(), ref.contentHash());
        return verify(copied, destination);
    }

    /** The durable-ACK check: the object exists with the recorded size and hash; else ARCHIVE_CORRUPT or OBJECT_NOT_FOUND. */
    public ArchiveRef verify(ArchiveRef ref) {
        return verify(ref, ref.objectKey());
    }

    /** Whether the object is there and matches, as a value (for "do you hold bucket B?" answers). */
    public boolean isDurable(ArchiveRef ref) {
        Optional<ObjectInfo> info = store.head(ref.objectKey());
        return info.isPresent() && mismatch(ref, info.get()) == null;
    }

    /** Streams the archive back; the reader verifies counts and the hash at the end (see its class comment). */
    public BucketArchiveReader open(ArchiveRef ref) {
        return new BucketArchiveReader(store.get(ref.objectKey()), ref.bucket(), ref.generation(), ref.contentHash());
    }

    /** Deletes an archive object (after a newer archive is durable, or the bucket left for good). */
    public void delete(ArchiveRef ref) {
        store.delete(ref.objectKey());
    }

    private ArchiveRef verify(ArchiveRef ref, String key) {
        ObjectInfo info = store.head(key).orElseThrow(() -> new CairnException(ErrorCode.OBJECT_NOT_FOUND,
                "archive of bucket " + ref.bucket() + " is missing at " + key));
        String mismatch = mismatch(ref, info);
        if (mismatch != null) throw new CairnException(ErrorCode.ARCHIVE_CORRUPT, "archive " + key + ": " + mismatch);
        return ref;
    }

    private static String mismatch(ArchiveRef ref, ObjectInfo info) {
        if (info.sizeBytes() != ref.sizeBytes()) return "size " + info.sizeBytes() + " is not the written " + ref.sizeBytes();
        String hash = info.metadata().get(META_HASH);
        if (!ref.contentHash().equals(hash)) return "recorded hash " + hash + " is not " + ref.contentHash();
        if (!String.valueOf(ref.keyCount()).equals(info.metadata().get(META_KEYS))) return "key count differs";
        return null;
    }

    private static Map<String, String> metadata(ArchiveRef ref) {
        return Map.of(META_FORMAT, String.valueOf(BucketArchiveFormat.VERSION),
                META_BUCKET, String.valueOf(ref.bucket()),
                META_GENERATION, String.valueOf(ref.generation()),
                META_KEYS, String.valueOf(ref.keyCount()),
                META_BYTES, String.valueOf(ref.byteCount()),
                META_HASH, ref.contentHash());
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a leftover staged file wastes disk but is never read again (a fresh temp name each time)
        }
    }
}
