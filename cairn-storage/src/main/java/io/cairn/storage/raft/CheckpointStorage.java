package io.cairn.storage.raft;

import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Snapshots are RocksDB checkpoints (hard links, milliseconds even for large data), each a
 * directory {@code snapshot.<term>_<index>} in Ratis's state machine folder. Ratis ships the
 * files of the newest one to a follower that is too far behind (or was wiped), which then
 * rebuilds its live database from it.
 */
final class CheckpointStorage implements StateMachineStorage {
    private static final Pattern NAME = Pattern.compile("snapshot\\.(\\d+)_(\\d+)");
    private static final int KEEP = 2;

    private volatile Path smDir;
    /** Ratis asks for the latest snapshot on hot paths; list the folder only when it changes. */
    private volatile SnapshotInfo latestInfo;
    private volatile boolean stale = true;

    @Override
    public void init(RaftStorage raftStorage) {
        smDir = raftStorage.getStorageDir().getStateMachineDir().toPath();
    }

    Path dirFor(long term, long index) {
        return smDir.resolve("snapshot." + term + "_" + index);
    }

    @Override
    public SnapshotInfo getLatestSnapshot() {
        if (stale) {
            latestInfo = latest().map(CheckpointStorage::info).orElse(null);
            stale = false;
        }
        return latestInfo;
    }

    /** Call after a snapshot was taken, installed or deleted. */
    void invalidate() {
        stale = true;
    }

    Optional<Path> latest() {
        if (smDir == null || !Files.isDirectory(smDir)) return Optional.empty();
        try (Stream<Path> dirs = Files.list(smDir)) {
            return dirs.filter(p -> NAME.matcher(p.getFileName().toString()).matches() && Files.isDirectory(p))
                    .max(Comparator.comparingLong(p -> termIndex(p).getIndex()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static TermIndex termIndex(Path dir) {
        Matcher m = NAME.matcher(dir.getFileName().toString());
        if (!m.matches()) throw new IllegalArgumentException("not a snapshot dir: " + dir);
        return TermIndex.valueOf(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
    }

    private static SnapshotInfo info(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            List<FileInfo> infos = files.filter(Files::isRegularFile).filter(f -> !f.toString().endsWith(".md5"))
                    .map(f -> new FileInfo(f.toAbsolutePath(), null)).toList();
            return new FileListSnapshotInfo(infos, termIndex(dir));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void format() {
    }

    @Override
    public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
        if (smDir == null || !Files.isDirectory(smDir)) return;
        List<Path> all;
        try (Stream<Path> dirs = Files.list(smDir)) {
            all = dirs.filter(p -> NAME.matcher(p.getFileName().toString()).matches())
                    .sorted(Comparator.comparingLong((Path p) -> termIndex(p).getIndex()).reversed()).toList();
        }
        for (Path old : all.subList(Math.min(KEEP, all.size()), all.size())) deleteTree(old);
        invalidate();
    }

    /** Replaces the (closed) live database in {@code dbDir} with the checkpoint in {@code checkpoint}. */
    static void replaceDatabase(Path dbDir, Path checkpoint) throws IOException {
        deleteTree(dbDir);
        Files.createDirectories(dbDir);
        try (Stream<Path> files = Files.list(checkpoint)) {
            for (Path f : files.filter(p -> !p.toString().endsWith(".md5")).toList()) {
                // SST files are immutable and may be shared; the others RocksDB may rewrite.
                if (f.toString().endsWith(".sst")) Files.createLink(dbDir.resolve(f.getFileName()), f);
                else Files.copy(f, dbDir.resolve(f.getFileName()));
            }
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }
}
