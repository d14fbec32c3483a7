package io.cairn.archive;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Iterator;

/**
 * Streams one bucket's entries into a local file in {@link BucketArchiveFormat}: memory use is one
 * buffer plus the current entry, whatever the bucket size. The file, not a stream to the store, is
 * the target because the object's key carries the content hash, known only at the end, and because
 * an upload retry needs the bytes again.
 */
final class BucketArchiveWriter {
    private static final int BUFFER_BYTES = 256 * 1024;

    private BucketArchiveWriter() {}

    static ArchiveSummary write(Path file, int bucket, long generation, Iterator<ArchiveEntry> entries) throws IOException {
        MessageDigest digest = BucketArchiveFormat.sha256();
        long keyCount = 0;
        long byteCount = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel), BUFFER_BYTES));
            out.write(header(bucket, generation, 0, 0)); // counts patched below, once known
            DataOutputStream body = new DataOutputStream(new DigestOutputStream(out, digest));
            byte[] previousKey = null;
            while (entries.hasNext()) {
                ArchiveEntry e = entries.next();
                if (previousKey != null && Arrays.compareUnsigned(previousKey, e.key()) >= 0)
                    throw new IllegalArgumentException("bucket " + bucket + ": archive keys must be strictly increasing; entry "
                            + keyCount + " is not");
                if (e.key().length > BucketArchiveFormat.MAX_KEY_BYTES || e.value().length > BucketArchiveFormat.MAX_VALUE_BYTES)
                    throw new IllegalArgumentException("bucket " + bucket + ": entry " + keyCount + " exceeds the archive's size bounds");
                body.writeByte(BucketArchiveFormat.TAG_ENTRY);
                body.writeInt(e.key().length);
                body.write(e.key());
                body.writeInt(e.value().length);
                body.write(e.value());
                body.writeLong(e.expiresAtMs());
                keyCount++;
                byteCount += e.key().length + (long) e.value().length;
                previousKey = e.key();
            }
            body.writeByte(BucketArchiveFormat.TAG_END);
            body.flush();
            byte[] hash = BucketArchiveFormat.finish(digest, bucket, generation, keyCount, byteCount);
            out.writeLong(keyCount);
            out.writeLong(byteCount);
            out.write(hash);
            out.write(BucketArchiveFormat.TRAILER_MAGIC);
            out.flush();
            channel.write(ByteBuffer.wrap(header(bucket, generation, keyCount, byteCount)), 0);
            channel.force(false);
            return new ArchiveSummary(bucket, generation, keyCount, byteCount, channel.size(), BucketArchiveFormat.hex(hash));
        }
    }

    private static byte[] header(int bucket, long generation, long keyCount, long byteCount) {
        return ByteBuffer.allocate(BucketArchiveFormat.HEADER_BYTES).put(BucketArchiveFormat.HEADER_MAGIC)
                .putInt(BucketArchiveFormat.VERSION).putInt(bucket).putLong(generation)
                .putLong(keyCount).putLong(byteCount).array();
    }
}
