package io.cairn.archive;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

class LocalFolderBucketArchiverTest extends BucketArchiverContract {
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
}
