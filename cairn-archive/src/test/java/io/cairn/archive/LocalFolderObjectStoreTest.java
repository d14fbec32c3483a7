package io.cairn.archive;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The contract on the folder store, plus what only a folder can show (no temp files left behind). */
class LocalFolderObjectStoreTest extends ObjectStoreContract {
    @TempDir
    static Path root;
    private static LocalFolderObjectStore store;

    @BeforeAll
    static void open() {
        store = new LocalFolderObjectStore(root);
    }

    @AfterAll
    static void close() {
        store.close();
    }

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Test
    void writesLeaveNoTempFilesAndCopiesShareTheInode() throws IOException {
        store.put("inode/a", ObjectBody.of(new byte[1000]), Map.of());
        store.copy("inode/a", "inode/b");
        assertThat(store.putIfAbsent("inode/a", ObjectBody.of(new byte[1]), Map.of())).isFalse();
        try (Stream<Path> tmp = Files.list(root.resolve("tmp"))) {
            assertThat(tmp).isEmpty();
        }
        Object a = Files.getAttribute(root.resolve("objects/inode/a"), "unix:ino");
        Object b = Files.getAttribute(root.resolve("objects/inode/b"), "unix:ino");
        assertThat(b).as("a folder copy is a hard link: no bytes copied").isEqualTo(a);
    }

    @Test
    void openingRemovesOnlyTempFilesLeftLongAgo() throws IOException {
        Path stale = Files.writeString(root.resolve("tmp/put-crashed.tmp"), "half an object");
        Path young = Files.writeString(root.resolve("tmp/put-in-progress.tmp"), "another process writing");
        Files.setLastModifiedTime(stale, java.nio.file.attribute.FileTime.from(
                java.time.Instant.now().minus(LocalFolderObjectStore.STALE_TEMP_AGE).minusSeconds(60)));
        try (LocalFolderObjectStore again = new LocalFolderObjectStore(root)) {
            assertThat(stale).doesNotExist();
            assertThat(young).exists();
        } finally {
            Files.deleteIfExists(young);
        }
    }

    @Test
    void aSecondStoreOnTheSameFolderSeesTheObjects() {
        store.put("reopen/x", ObjectBody.of(new byte[] {1, 2, 3}), Map.of("k", "v"));
        try (LocalFolderObjectStore again = new LocalFolderObjectStore(root)) {
            assertThat(again.head("reopen/x").orElseThrow().metadata()).containsEntry("k", "v");
        }
    }
}
