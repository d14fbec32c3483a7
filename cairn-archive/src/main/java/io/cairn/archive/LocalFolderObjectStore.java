package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import java.time.Duration;
import java.time.Instant;

/**
 * The default object store of {@code cairn up}: one folder on the local disk.
 *
 * <p>Layout: {@code <root>/objects/<key>} holds each object, {@code <root>/tmp/} holds writes in
 * progress. An object file is a small header (magic, metadata length, metadata as UTF-8
 * {@code key=value} lines) followed by the object's bytes, so that metadata and data are committed
 * together by ONE rename: a crash leaves either the old object or the new one, never new data
 * with old metadata. A put writes and fsyncs a temp file, then renames it over the key (replace)
 * or hard-links it to the key (if-absent: {@code link(2)} fails when the key exists, atomically)
 * and fsyncs the directory. Copy hard-links too: objects are never modified in place, so two names
 * for one inode are safe, and the copy costs no bytes, like a server-side copy.
 *
 * <p>Listing walks only the directory of the prefix and sorts in memory per page; the per-replicaset
 * archive prefix holds one object per bucket, so a walk is bounded by the bucket count.
 */
public final class LocalFolderObjectStore implements ObjectStore {
    private static final int MAGIC = 0x43414f31; // "CAO1": Cairn archive object, layout 1
    private static final String OBJECTS = "objects";
    private static final String TMP = "tmp";
    /**
     * Temp files older than this are leftovers of a crashed writer and are removed when a store
     * opens. Not all of them: under {@code cairn up} several processes share one folder, and a
     * young temp file may be another process's write in progress.
     */
    static final Duration STALE_TEMP_AGE = Duration.ofHours(1);

    private final Path objects;
    private final Path tmp;

    public LocalFolderObjectStore(Path root) {
        this.objects = root.resolve(OBJECTS);
        this.tmp = root.resolve(TMP);
        try {
            Files.createDirectories(objects);
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new CairnException(ErrorCode.OBJECT_STORE_REFUSED, "cannot create the object store folder " + root + ": " + e);
        }
        removeStaleTempFiles(Instant.now().minus(STALE_TEMP_AGE));
    }

    private void removeStaleTempFiles(Instant olderThan) {
        try (Stream<Path> files = Files.list(tmp)) {
            files.filter(f -> {
                try {
                    return Files.getLastModifiedTime(f).toInstant().isBefore(olderThan);
                } catch (IOException e) {
                    return false; // gone already
                }
            }).forEach(LocalFolderObjectStore::deleteQuietly);
        } catch (IOException e) {
            // leftovers only waste disk; the store works without removing them
        }
    }

    @Override
    public void put(String key, ObjectBody body, Map<String, String> metadata) {
        Path target = pathOf(key);
        Path temp = writeTemp(body, ObjectKeys.checkMetadata(metadata));
        try {
            Files.createDirectories(target.getParent());
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fsyncDirectory(target.getParent());
        } catch (IOException e) {
            throw unavailable("put " + key, e);
        } finally {
            deleteQuietly(temp);
        }
    }

    @Override
    public boolean putIfAbsent(String key, ObjectBody body, Map<String, String> metadata) {
        Path target = pathOf(key);
        Path temp = writeTemp(body, ObjectKeys.checkMetadata(metadata));
        try {
            Files.createDirectories(target.getParent());
            Files.createLink(target, temp);
            fsyncDirectory(target.getParent());
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        } catch (IOException e) {
            throw unavailable("put-if-absent " + key, e);
        } finally {
            deleteQuietly(temp);
        }
    }

    @Override
    public InputStream get(String key) {
        return get(key, 0, Long.MAX_VALUE);
    }

    @Override
    public InputStream get(String key, long offsetBytes, long lengthBytes) {
        if (offsetBytes < 0 || lengthBytes < 0) throw ObjectKeys.refused("negative range " + offsetBytes + "+" + lengthBytes);
        Path path = pathOf(key);
        InputStream in = null;
        try {
            in = new BufferedInputStream(Files.newInputStream(path), 64 * 1024);
            DataInputStream data = new DataInputStream(in);
            readMetadata(data, key);
            in.skipNBytes(offsetBytes);
            return new BoundedInputStream(in, lengthBytes);
        } catch (NoSuchFileException e) {
            throw ObjectKeys.notFound(key);
        } catch (EOFException e) {
            closeQuietly(in);
            return InputStream.nullInputStream(); // a range past the end reads nothing, as S3 clamps it
        } catch (IOException e) {
            closeQuietly(in);
            throw unavailable("get " + key, e);
        }
    }

    @Override
    public Optional<ObjectInfo> head(String key) {
        Path path = pathOf(key);
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(path), 4096))) {
            HeaderAndMetadata h = readMetadata(in, key);
            return Optional.of(new ObjectInfo(key, Files.size(path) - h.headerBytes, h.metadata, Files.getLastModifiedTime(path).toMillis()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw unavailable("head " + key, e);
        }
    }

    @Override
    public void copy(String sourceKey, String destinationKey) {
        Path source = pathOf(sourceKey);
        Path target = pathOf(destinationKey);
        if (source.equals(target)) {
            if (!Files.exists(source)) throw ObjectKeys.notFound(sourceKey);
            return;
        }
        Path temp = tmp.resolve("copy-" + UUID.randomUUID() + ".tmp"); // unique across the processes sharing the folder
        try {
            Files.createLink(temp, source);
            // A link shares its source's times: the copy is new to the sweeper's age guard (the source looks new too, which is safe).
            Files.setLastModifiedTime(temp, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()));
            Files.createDirectories(target.getParent());
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fsyncDirectory(target.getParent());
        } catch (NoSuchFileException e) {
            throw ObjectKeys.notFound(sourceKey);
        } catch (IOException e) {
            throw unavailable("copy " + sourceKey + " -> " + destinationKey, e);
        } finally {
            deleteQuietly(temp);
        }
    }

    @Override
    public void delete(String key) {
        try {
            Files.deleteIfExists(pathOf(key));
        } catch (IOException e) {
            throw unavailable("delete " + key, e);
        }
    }

    @Override
    public ObjectPage list(String prefix, String pageToken, int maxKeys) {
        String p = ObjectKeys.checkPrefix(prefix);
        ObjectKeys.checkPageSize(maxKeys);
        // Walk only below the deepest folder the prefix names; the rest cannot match.
        int slash = p.lastIndexOf('/');
        Path start = slash < 0 ? objects : objects.resolve(p.substring(0, slash));
        TreeMap<String, Path> matches = new TreeMap<>();
        if (Files.isDirectory(start)) {
            try (Stream<Path> walk = Files.walk(start)) {
                walk.filter(Files::isRegularFile).forEach(f -> {
                    String key = keyOf(f);
                    if (key.startsWith(p) && (pageToken == null || key.compareTo(pageToken) > 0)) {
                        matches.put(key, f);
                        if (matches.size() > maxKeys) matches.pollLastEntry(); // keep the page bounded
                    }
                });
            } catch (IOException | UncheckedIOException e) {
                throw unavailable("list " + p, e instanceof UncheckedIOException u ? u.getCause() : (IOException) e);
            }
        }
        List<ObjectInfo> page = new ArrayList<>(matches.size());
        for (Map.Entry<String, Path> m : matches.entrySet()) {
            Optional<ObjectInfo> info = head(m.getKey()); // deleted since the walk: leave it out
            info.ifPresent(i -> page.add(new ObjectInfo(i.key(), i.sizeBytes(), Map.of(), i.lastModifiedMs())));
        }
        Optional<String> next = matches.size() == maxKeys ? Optional.of(matches.lastKey()) : Optional.empty();
        return new ObjectPage(page, next);
    }

    @Override
    public void close() {
        // nothing held open between calls
    }

    private Path pathOf(String key) {
        return objects.resolve(ObjectKeys.checkKey(key));
    }

    private String keyOf(Path file) {
        return objects.relativize(file).toString().replace(java.io.File.separatorChar, '/');
    }

    private Path writeTemp(ObjectBody body, Map<String, String> metadata) {
        Path temp;
        try {
            temp = Files.createTempFile(tmp, "put-", ".tmp");
        } catch (IOException e) {
            throw unavailable("create a temp file in " + tmp, e);
        }
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE);
             OutputStream out = new java.io.BufferedOutputStream(java.nio.channels.Channels.newOutputStream(channel), 64 * 1024);
             InputStream in = body.open()) {
            writeMetadata(new DataOutputStream(out), metadata);
            long copied = in.transferTo(out);
            if (copied != body.lengthBytes())
                throw unavailable("put body changed while read: " + copied + " of " + body.lengthBytes() + " bytes", null);
            out.flush();
            channel.force(true); // durable before it becomes visible under its key
            return temp;
        } catch (IOException | RuntimeException e) {
            deleteQuietly(temp);
            if (e instanceof CairnException c) throw c;
            throw unavailable("write a temp file", e instanceof IOException io ? io : new IOException(e));
        }
    }

    private static void writeMetadata(DataOutputStream out, Map<String, String> metadata) throws IOException {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(metadata).forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        byte[] bytes = text.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        out.writeInt(MAGIC);
        out.writeInt(bytes.length);
        out.write(bytes);
        out.flush();
    }

    private record HeaderAndMetadata(long headerBytes, Map<String, String> metadata) {}

    private static HeaderAndMetadata readMetadata(DataInputStream in, String key) throws IOException {
        if (in.readInt() != MAGIC) throw new CairnException(ErrorCode.ARCHIVE_CORRUPT, "object " + key + " has no valid header");
        int length = in.readInt();
        if (length < 0 || length > ObjectKeys.MAX_METADATA_BYTES * 2)
            throw new CairnException(ErrorCode.ARCHIVE_CORRUPT, "object " + key + " has a bad metadata length " + length);
        String text = new String(in.readNBytes(length), java.nio.charset.StandardCharsets.US_ASCII);
        Map<String, String> metadata = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) metadata.put(line.substring(0, eq), line.substring(eq + 1));
        }
        return new HeaderAndMetadata(8L + length, metadata);
    }

    private static void fsyncDirectory(Path dir) {
        // A rename is durable only once its directory is; Linux allows opening a directory to fsync it.
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // some file systems refuse to fsync a directory; the rename itself is still atomic
        }
    }

    private static CairnException unavailable(String what, IOException cause) {
        return new CairnException(ErrorCode.OBJECT_STORE_UNAVAILABLE, "local object store: " + what
                + (cause == null ? "" : " failed: " + cause));
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a leftover temp file is harmless; the tmp folder can be cleared at start
        }
    }

    private static void closeQuietly(InputStream in) {
        if (in == null) return;
        try {
            in.close();
        } catch (IOException ignored) {
            // closing a read-only file
        }
    }

    /** Reads at most {@code remaining} bytes of the wrapped stream. */
    private static final class BoundedInputStream extends FilterInputStream {
        private long remaining;

        BoundedInputStream(InputStream in, long remaining) {
            super(in);
            this.remaining = remaining;
        }

        @Override
        public int read() throws IOException {
            if (remaining <= 0) return -1;
            int b = super.read();
            if (b >= 0) remaining--;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (remaining <= 0) return -1;
            int n = super.read(b, off, (int) Math.min(len, remaining));
            if (n > 0) remaining -= n;
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(Math.min(n, remaining));
            remaining -= skipped;
            return skipped;
        }

        @Override
        public int available() throws IOException {
            return (int) Math.min(super.available(), remaining);
        }
    }
}
