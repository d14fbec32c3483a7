package io.cairn.server.cli;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a data folder for the life of this process, so a second `cairn up` on
 * the same folder fails at once with a clear message instead of fighting over Raft logs.
 */
final class FolderLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private FolderLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    static FolderLock acquire(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve("cairn.lock");
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException heldByThisProcess) {
            lock = null;
        }
        if (lock == null) {
            String holder = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).trim();
            channel.close();
            throw new CairnException(ErrorCode.FOLDER_IN_USE, dir.toAbsolutePath() + " is in use by another running cairn"
                    + (holder.isEmpty() ? "" : " (pid " + holder + ")") + "; stop it first or use another --dir");
        }
        channel.truncate(0);
        channel.write(ByteBuffer.wrap(Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8)));
        return new FolderLock(channel, lock);
    }

    @Override
    public void close() throws IOException {
        lock.release();
        channel.close();
    }
}
