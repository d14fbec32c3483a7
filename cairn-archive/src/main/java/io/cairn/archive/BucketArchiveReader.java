package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Streams a bucket archive back, one entry at a time, and verifies it at the end: the trailer's
 * counts and hash against what was read, the header against the bucket and generation the caller
 * expects, and (when given) the hash against the one recorded when the archive was made.
 *
 * <p>The hash can only be checked after the last entry, so a caller MUST stage what it reads and
 * commit only once {@link #hasNext()} has returned false without throwing (a restore writes an SST
 * file and ingests it after verification). Any mismatch, truncation or bad length throws
 * {@code ARCHIVE_CORRUPT}; I/O failures of the underlying stream throw {@code OBJECT_STORE_UNAVAILABLE}.
 */
public final class BucketArchiveReader implements Iterator<ArchiveEntry>, Closeable {
    private final DataInputStream in;
    private final MessageDigest digest = BucketArchiveFormat.sha256();
    private final DataInputStream body;
    private final int bucket;
    private final long generation;
    private final long headerKeyCount;
    private final long headerByteCount;
    private final String expectedHash;
    private long keyCount;
    private long byteCount;
    private byte[] previousKey;
    private ArchiveEntry next;
    private ArchiveSummary summary;

    /**
     * @param expectedHash the content hash on record, or null to accept any that matches the contents
     */
    public BucketArchiveReader(InputStream stream, int bucket, long generation, String expectedHash) {
        this.in = new DataInputStream(new BufferedInputStream(stream, 256 * 1024));
        this.body = new DataInputStream(new DigestInputStream(in, digest));
        this.bucket = bucket;
        this.generation = generation;
        this.expectedHash = expectedHash;
        try {
            byte[] magic = in.readNBytes(8);
            if (!Arrays.equals(magic, BucketArchiveFormat.HEADER_MAGIC)) throw corrupt("not a bucket archive (bad magic)");
            int version = in.readInt();
            if (version != BucketArchiveFormat.VERSION) throw corrupt("unknown archive format version " + version);
            int b = in.readInt();
            long g = in.readLong();
            if (b != bucket || g != generation)
                throw corrupt("holds bucket " + b + " generation " + g + ", expected bucket " + bucket + " generation " + generation);
            headerKeyCount = in.readLong();
            headerByteCount = in.readLong();
        } catch (IOException e) {
            throw failure(e);
        }
    }

    @Override
    public boolean hasNext() {
        if (next != null) return true;
        if (summary != null) return false;
        try {
            byte tag = body.readByte();
            if (tag == BucketArchiveFormat.TAG_END) {
                verifyTrailer();
                return false;
            }
            if (tag != BucketArchiveFormat.TAG_ENTRY) throw corrupt("bad entry tag " + tag + " after " + keyCount + " keys");
            byte[] key = readBytes(BucketArchiveFormat.MAX_KEY_BYTES, "key");
            byte[] value = readBytes(BucketArchiveFormat.MAX_VALUE_BYTES, "value");
            long expiresAtMs = body.readLong();
            if (expiresAtMs < 0) throw corrupt("negative expiry after " + keyCount + " keys");
            if (previousKey != null && Arrays.compareUnsigned(previousKey, key) >= 0)
                throw corrupt("keys out of order after " + keyCount + " keys");
            previousKey = key;
            keyCount++;
            byteCount += key.length + (long) value.length;
            next = new ArchiveEntry(key, value, expiresAtMs);
            return true;
        } catch (IOException e) {
            throw failure(e);
        } catch (CairnException e) {
            throw e;
        } catch (RuntimeException e) {
            // an S3 response stream reports a broken connection as an unchecked SDK exception
            throw new CairnException(ErrorCode.OBJECT_STORE_UNAVAILABLE, "reading the archive of bucket " + bucket + ": " + e);
        }
    }

    @Override
    public ArchiveEntry next() {
        if (!hasNext()) throw new NoSuchElementException();
        ArchiveEntry e = next;
        next = null;
        return e;
    }

    /** The verified summary; only after the last entry was read. */
    public ArchiveSummary summary() {
        if (summary == null) throw new IllegalStateException("the archive is not read to its end yet");
        return summary;
    }

    /** Reads and verifies the rest without keeping it; returns the summary. */
    public ArchiveSummary verifyToEnd() {
        while (hasNext()) next();
        return summary();
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException ignored) {
            // a read stream; nothing to flush
        }
    }

    private byte[] readBytes(int max, String what) throws IOException {
        int length = body.readInt();
        if (length < 0 || length > max) throw corrupt("bad " + what + " length " + length + " after " + keyCount + " keys");
        byte[] bytes = new byte[length];
        body.readFully(bytes);
        return bytes;
    }

    private void verifyTrailer() throws IOException {
        byte[] hash = BucketArchiveFormat.finish(digest, bucket, generation, keyCount, byteCount);
        long trailerKeys = in.readLong();
        long trailerBytes = in.readLong();
        byte[] trailerHash = in.readNBytes(32);
        byte[] magic = in.readNBytes(8);
        if (!Arrays.equals(magic, BucketArchiveFormat.TRAILER_MAGIC)) throw corrupt("truncated or bad trailer");
        if (in.read() != -1) throw corrupt("bytes after the trailer");
        if (trailerKeys != keyCount || headerKeyCount != keyCount || trailerBytes != byteCount || headerByteCount != byteCount)
            throw corrupt("read " + keyCount + " keys / " + byteCount + " bytes; header says " + headerKeyCount + " / "
                    + headerByteCount + ", trailer " + trailerKeys + " / " + trailerBytes);
        String hex = BucketArchiveFormat.hex(hash);
        if (!MessageDigest.isEqual(hash, trailerHash)) throw corrupt("content hash mismatch: contents hash to " + hex);
        if (expectedHash != null && !expectedHash.equals(hex))
            throw corrupt("content hash " + hex + " is not the recorded " + expectedHash);
        long size = BucketArchiveFormat.HEADER_BYTES + BucketArchiveFormat.TRAILER_BYTES + 1
                + keyCount * (1 + 4 + 4 + 8) + byteCount;
        summary = new ArchiveSummary(bucket, generation, keyCount, byteCount, size, hex);
    }

    private CairnException corrupt(String why) {
        return new CairnException(ErrorCode.ARCHIVE_CORRUPT, "archive of bucket " + bucket + " generation " + generation + ": " + why);
    }

    private RuntimeException failure(IOException e) {
        if (e instanceof EOFException) return corrupt("truncated after " + keyCount + " keys");
        if (e.getCause() instanceof CairnException c) return c;
        return new CairnException(ErrorCode.OBJECT_STORE_UNAVAILABLE, "reading the archive of bucket " + bucket + ": " + e);
    }
}
