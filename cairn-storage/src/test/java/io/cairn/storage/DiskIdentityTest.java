package io.cairn.storage;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DiskIdentityTest {
    private static final ReplicationEngine ENGINE = ReplicationEngine.MICRORAFT;

    @TempDir
    Path dir;

    @Test
    void aNewFolderVotesAtOnceInANewGroupAndRejoinsInAGroupThatHoldsData() throws Exception {
        DiskIdentity first = DiskIdentity.open(dir.resolve("a"), "s1", "rs1", ENGINE, () -> false);
        assertThat(first.rejoining()).isFalse();
        DiskIdentity replaced = DiskIdentity.open(dir.resolve("b"), "s1", "rs1", ENGINE, () -> true);
        assertThat(replaced.rejoining()).isTrue();
        assertThat(replaced.reason()).contains("empty folder");
        assertThat(replaced.disk()).isNotEqualTo(first.disk());
    }

    @Test
    void theFolderOfAnotherNodeOrReplicasetIsRefused() throws Exception {
        Path node = dir.resolve("n");
        DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> false);
        assertThatThrownBy(() -> DiskIdentity.open(node, "s2", "rs1", ENGINE, () -> false))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.FOREIGN_FOLDER))
                .hasMessageContaining("belongs to node s1 of replicaset rs1");
        assertThatThrownBy(() -> DiskIdentity.open(node, "s1", "rs2", ENGINE, () -> false)).isInstanceOf(CairnException.class);
    }

    @Test
    void aRejoiningNodeStaysSoAcrossRestartsUntilItCaughtUp() throws Exception {
        Path node = dir.resolve("n");
        DiskIdentity id = DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> true);
        makeWhole(node);
        AtomicInteger asked = new AtomicInteger();
        DiskIdentity again = DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> asked.incrementAndGet() > 0);
        assertThat(again.rejoining()).isTrue();
        assertThat(again.disk()).isEqualTo(id.disk());
        assertThat(asked).as("a folder with its data is not new: the coordinator is not asked").hasValue(0);

        again.caughtUp();
        assertThat(DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> true).rejoining()).isFalse();
    }

    @Test
    void aFolderMissingItsDatabaseOrItsLogIsMovedAsideAndRejoins() throws Exception {
        Path node = dir.resolve("n");
        DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> false);
        makeWhole(node);
        Files.writeString(ENGINE.folderIn(node).resolve("log-1"), "entries");
        Files.delete(node.resolve("db"));

        DiskIdentity damaged = DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> false);
        assertThat(damaged.rejoining()).isTrue();
        assertThat(damaged.reason()).contains("db/");
        assertThat(ENGINE.folderIn(node)).doesNotExist();
        try (Stream<Path> s = Files.list(node)) {
            Path aside = s.filter(p -> p.getFileName().toString().startsWith("damaged-")).findFirst().orElseThrow();
            assertThat(aside.resolve(ENGINE.configName()).resolve("log-1")).hasContent("entries");
        }
    }

    @Test
    void aFolderFromBeforeIdentitiesWithItsDataIsMarkedAndTrusted() throws Exception {
        Path node = dir.resolve("n");
        makeWhole(node);
        DiskIdentity id = DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> true);
        assertThat(id.rejoining()).isFalse();
        assertThat(node.resolve(DiskIdentity.FILE)).exists();
    }

    private static void makeWhole(Path node) throws Exception {
        Files.createDirectories(node.resolve("db"));
        Files.createDirectories(ENGINE.folderIn(node));
    }
}
