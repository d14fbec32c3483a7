package io.cairn.server.cli;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FolderLockTest {
    @TempDir
    Path dir;

    @Test
    void aSecondClusterOnTheSameFolderIsRefusedUntilTheFirstStops() throws Exception {
        FolderLock first = FolderLock.acquire(dir);
        assertThatThrownBy(() -> FolderLock.acquire(dir)).isInstanceOfSatisfying(CairnException.class, e -> {
            org.assertj.core.api.Assertions.assertThat(e.code()).isEqualTo(ErrorCode.FOLDER_IN_USE);
            org.assertj.core.api.Assertions.assertThat(e.getMessage()).contains("in use by another running cairn");
        });
        first.close();
        FolderLock.acquire(dir).close();
    }
}
