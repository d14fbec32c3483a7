package io.cairn.archive;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The bytes of a put: a file (archives are staged in a temp file, so their length and hash are known
 * before the upload starts, and a retry can re-read them) or a small array. Never an unbounded stream:
 * S3 needs the length up front and a retry needs the bytes again.
 */
public final class ObjectBody {
    private final Path file;
    private final byte[] bytes;
    private final long lengthBytes;

    private ObjectBody(Path file, byte[] bytes, long lengthBytes) {
        this.file = file;
        this.bytes = bytes;
        this.lengthBytes = lengthBytes;
    }

    public static ObjectBody of(byte[] bytes) {
        return new ObjectBody(null, bytes.clone(), bytes.length);
    }

    public static ObjectBody of(Path file) {
        try {
            return new ObjectBody(file, null, Files.size(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the size of " + file, e);
        }
    }

    public long lengthBytes() {
        return lengthBytes;
    }

    /** The file behind this body, or null for an in-memory body. */
    Path file() {
        return file;
    }

    /** A fresh stream over the bytes; the caller closes it. */
    public InputStream open() throws IOException {
        return file != null ? Files.newInputStream(file) : new ByteArrayInputStream(bytes);
    }
}
