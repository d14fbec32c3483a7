package io.cairn.archive;

import java.io.Closeable;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;

/**
 * The archive tier's one port to an object store (SYSTEM.md, component 4): a local folder by
 * default, any S3-compatible service through the AWS SDK. Both implementations pass the same
 * contract test ({@code ObjectStoreContract}), so code above this port never asks which one it has.
 *
 * <p>Keys are '/'-separated, never start with '/', and have no empty, "." or ".." segments.
 * Metadata keys are lower-case ASCII (S3 lower-cases user metadata; we refuse the difference up
 * front rather than discover it in production). Expected failures are {@link io.cairn.core.CairnException}s
 * with an archive-tier code: {@code OBJECT_NOT_FOUND}, {@code OBJECT_STORE_UNAVAILABLE} (retry later),
 * {@code OBJECT_STORE_REFUSED} (fix the configuration).
 *
 * <p>Objects are treated as immutable once written (archive keys are content-addressed), which is
 * what lets the folder store implement {@link #copy} with a hard link.
 */
public interface ObjectStore extends Closeable {
    /** The most keys a {@link #list} page may ask for (S3's own cap). */
    int MAX_PAGE_KEYS = 1000;

    /** Writes (or replaces) an object; visible to readers only once complete. */
    void put(String key, ObjectBody body, Map<String, String> metadata);

    /**
     * Writes an object only if no object has this key. Returns false, and changes nothing, when one
     * exists (on S3 also when a concurrent conditional write of the key was in progress: false means
     * "not written by this call"). Atomic against concurrent writers of the same key.
     */
    boolean putIfAbsent(String key, ObjectBody body, Map<String, String> metadata);

    /** The whole object as a stream; the caller closes it. Missing: {@code OBJECT_NOT_FOUND}. */
    InputStream get(String key);

    /** {@code lengthBytes} bytes from {@code offsetBytes} (fewer at the end of the object). */
    InputStream get(String key, long offsetBytes, long lengthBytes);

    /** Size and metadata, or empty when the object does not exist. */
    Optional<ObjectInfo> head(String key);

    /**
     * Server-side copy with metadata: no object bytes pass through this process. Missing source:
     * {@code OBJECT_NOT_FOUND}. Replaces an existing destination.
     */
    void copy(String sourceKey, String destinationKey);

    /** Deletes the object; deleting a missing object is not an error (S3 semantics). */
    void delete(String key);

    /**
     * One page of the objects whose keys start with {@code prefix}, in ascending key order.
     * {@code pageToken} is null for the first page, then the previous page's {@link ObjectPage#nextPageToken()}.
     */
    ObjectPage list(String prefix, String pageToken, int maxKeys);

    @Override
    void close();
}
