package io.cairn.replication.microraft;

import io.cairn.replication.ReplicaStateMachine;
import io.cairn.core.topology.MemberIds;
import io.netty.buffer.ByteBuf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A member's snapshot folders under {@code dataDir/snapshots}: {@code <index>/} holds a sealed
 * snapshot (a checkpoint this member took, or one it received whole), {@code <index>.from-<member>/}
 * one being received. A snapshot is cut into {@link SnapshotPiece}s of at most {@link #PIECE_BYTES};
 * their bytes are read from disk as a piece is sent and written at their offset as one arrives,
 * each checked by a CRC32C. Pieces of a snapshot from a second member while one from a first is
 * being received are dropped: the two checkpoints' files differ and must not be mixed.
 * <p>
 * Sending and receiving run on I/O threads; checkpoint, seal and clean-up on the Raft thread.
 */
final class SnapshotFiles {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotFiles.class);
    static final int PIECE_BYTES = 1 << 20;
    private static final String STAGING = ".from-";

    private final Path root;
    private final String selfId;
    /** Snapshot index -> the member whose pieces are being staged for it. */
    private final Map<Long, String> stagingSource = new ConcurrentHashMap<>();

    SnapshotFiles(Path root, String selfId) throws IOException {
        this.root = root;
        this.selfId = selfId;
        Files.createDirectories(root);
    }

    Path sealed(long index) {
        return root.resolve(Long.toString(index));
    }

    /** Takes a checkpoint of {@code stateMachine} at {@code index} into {@code <index>/}, forced, and cuts it into pieces. */
    List<SnapshotPiece> checkpoint(long index, ReplicaStateMachine stateMachine) throws IOException {
        Path dir = sealed(index);
        deleteTree(dir);
        Files.createDirectories(dir);
        List<Path> files = stateMachine.checkpoint(dir, index);
        List<SnapshotPiece> pieces = new ArrayList<>();
        for (Path relative : files) {
            String name = checkedRelative(relative.toString());
            Path file = dir.resolve(name);
            long size = Files.size(file);
            force(file);
            long offset = 0;
            do {
                int length = (int) Math.min(PIECE_BYTES, size - offset);
                pieces.add(new SnapshotPiece(index, selfId, name, offset, length));
                offset += length;
            } while (offset < size);
        }
        if (pieces.isEmpty()) pieces.add(new SnapshotPiece(index, selfId, SnapshotPiece.NO_FILE, 0, 0));
        forceTree(dir);
        return pieces;
    }

    /** Appends the piece's bytes and their CRC32C to {@code out}. */
    void readPiece(SnapshotPiece piece, ByteBuf out) throws IOException {
        out.writeInt(piece.length());
        if (piece.length() > 0) {
            Path file = sealed(piece.snapshotIndex()).resolve(checkedRelative(piece.file()));
            try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
                int at = out.writerIndex();
                int read = 0;
                while (read < piece.length()) {
                    int n = out.writeBytes(in, piece.offset() + read, piece.length() - read);
                    if (n < 0) throw new IOException(file + " ends before " + (piece.offset() + piece.length()));
                    read += n;
                }
                out.writeInt(crc(out, at, piece.length()));
                return;
            }
        }
        out.writeInt(0);
    }

    /**
     * Writes the piece's bytes (read from {@code in}) into the staging folder of its snapshot;
     * false when it is dropped because pieces of another member's snapshot at that index are being staged.
     */
    boolean receivePiece(SnapshotPiece piece, ByteBuf in) throws IOException {
        int length = ModelCodec.checkedLength(in.readInt(), in);
        if (length != piece.length()) throw new IllegalArgumentException("piece of " + piece.length() + " bytes carries " + length);
        int at = in.readerIndex();
        in.skipBytes(length);
        if (in.readInt() != crc(in, at, length)) throw new IllegalArgumentException("snapshot piece fails its checksum: " + piece);
        String source = checkedName(piece.source());
        String staging = stagingSource.putIfAbsent(piece.snapshotIndex(), source);
        if (staging != null && !staging.equals(source)) {
            LOG.warn("{}: dropped a piece of {}'s snapshot at {}: {}'s is being received", selfId, source, piece.snapshotIndex(), staging);
            return false;
        }
        if (length == 0 && piece.file().isEmpty()) return true;
        Path file = stagingDir(piece.snapshotIndex(), source).resolve(checkedRelative(piece.file()));
        Files.createDirectories(file.getParent());
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            int written = 0;
            while (written < length) written += in.getBytes(at + written, out, piece.offset() + written, length - written);
        }
        return true;
    }

    /**
     * Makes the snapshot at {@code index} from {@code source} durable under {@code <index>/} before
     * the log store records it: a received one is forced and moved out of staging.
     */
    void seal(long index, String source) throws IOException {
        if (source.equals(selfId)) return; // a checkpoint of this member: forced when taken
        Path staging = stagingDir(index, checkedName(source));
        Path dir = sealed(index);
        if (!Files.exists(staging)) {
            if (Files.isDirectory(dir)) return; // sealed before (a restart replays the record)
            Files.createDirectories(staging); // a snapshot of no files
        }
        forceTree(staging);
        deleteTree(dir);
        Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
        force(root);
        stagingSource.remove(index);
    }

    /** Keeps the sealed snapshot at {@code latest} and the one before it; drops the others and stale staging folders. */
    void retain(long latest) {
        try (Stream<Path> children = Files.list(root)) {
            List<Path> all = children.toList();
            List<Long> sealed = new ArrayList<>();
            for (Path p : all) {
                String name = p.getFileName().toString();
                int staging = name.indexOf(STAGING);
                if (staging > 0) {
                    if (Long.parseLong(name.substring(0, staging)) <= latest) deleteTree(p);
                } else if (name.chars().allMatch(Character::isDigit)) {
                    sealed.add(Long.parseLong(name));
                }
            }
            sealed.sort(Comparator.reverseOrder());
            boolean keptPrevious = false;
            for (long index : sealed) {
                if (index == latest) continue;
                if (index < latest && !keptPrevious) {
                    keptPrevious = true;
                    continue;
                }
                deleteTree(sealed(index)); // older than the two kept, or an unfinished checkpoint past the latest
            }
            stagingSource.keySet().removeIf(i -> i <= latest);
        } catch (IOException | NumberFormatException e) {
            LOG.warn("{}: could not clean up old snapshots in {}: {}", selfId, root, e.toString());
        }
    }

    /** At start: pieces being received before a restart are received again, so staging folders go. */
    void dropStaging() throws IOException {
        try (Stream<Path> children = Files.list(root)) {
            for (Path p : children.toList()) {
                if (p.getFileName().toString().contains(STAGING)) deleteTree(p);
            }
        }
    }

    private Path stagingDir(long index, String source) {
        return root.resolve(index + STAGING + source);
    }

    /** A path inside a snapshot folder: relative, without "..", or refused. */
    private static String checkedRelative(String name) {
        if (name.isEmpty() || name.startsWith("/") || name.startsWith("\\") || name.contains(":")) {
            throw new IllegalArgumentException("snapshot file name not relative: " + name);
        }
        for (String part : name.split("[/\\\\]")) {
            if (part.equals("..") || part.equals(".")) throw new IllegalArgumentException("snapshot file name leaves its folder: " + name);
        }
        return name;
    }

    /** A member id as a folder name: a node's id, or a node's id and its disk ({@link MemberIds}), nothing that leaves the folder. */
    private static String checkedName(String id) {
        if (id.isEmpty() || id.startsWith(".") || !id.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '-' || c == '_' || c == '.'
                || c == MemberIds.SEPARATOR)) {
            throw new IllegalArgumentException("not a member id fit for a folder name: " + id);
        }
        return id;
    }

    private static int crc(ByteBuf b, int at, int length) {
        CRC32C crc = new CRC32C();
        crc.update(b.nioBuffer(at, length));
        return (int) crc.getValue();
    }

    static void force(Path path) throws IOException {
        try (FileChannel c = FileChannel.open(path, StandardOpenOption.READ)) {
            c.force(true);
        }
    }

    private static void forceTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.toList()) force(p);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
