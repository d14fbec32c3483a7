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

    @Test
    void aNodeBackOnANewDiskInAGroupThatHasItsMemberRunsAsANewMemberAcrossRestarts() throws Exception {
        Path node = dir.resolve("n");
        DiskIdentity id = DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> true, () -> true, disk -> null);
        assertThat(id.member()).isEqualTo(io.cairn.core.topology.MemberIds.onNewDisk("s1", id.disk())).startsWith("s1~");
        makeWhole(node);
        assertThat(DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> true, () -> false, disk -> null).member()).isEqualTo(id.member());
        // a node the group has no member of (cairn node add) keeps its own id
        assertThat(DiskIdentity.open(dir.resolve("added"), "s4", "rs1", ENGINE, () -> true, () -> false, disk -> null).member()).isEqualTo("s4");
        assertThat(DiskIdentity.open(dir.resolve("first"), "s2", "rs1", ENGINE, () -> false, () -> true, disk -> null).member()).isEqualTo("s2");
    }

    @Test
    void aFolderOfAnotherDiskThanTheRecordIsSetAsideAndTheNodeComesBackAsANewMember() throws Exception {
        Path node = dir.resolve("n");
        DiskIdentity old = DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> false);
        makeWhole(node);
        Files.writeString(node.resolve("db").resolve("data"), "old");
        DiskIdentity back = DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> true, () -> false,
                disk -> disk.equals(old.disk()) ? "restarted on disk " + disk + " while replicaset rs1 records disk B" : null);
        assertThat(back.rejoining()).isTrue();
        assertThat(back.reason()).contains("records disk B").contains("damaged-");
        assertThat(back.disk()).isNotEqualTo(old.disk());
        assertThat(back.member()).isEqualTo(io.cairn.core.topology.MemberIds.onNewDisk("s1", back.disk()));
        try (Stream<Path> s = Files.list(node)) {
            Path aside = s.filter(p -> p.getFileName().toString().startsWith("damaged-")).findFirst().orElseThrow();
            assertThat(aside.resolve("db").resolve("data")).as("nothing deleted").hasContent("old");
        }
    }

    @Test
    void aFolderFoundOnAnotherDiskAfterTheStartIsSetAsideAtTheNextOne() throws Exception {
        Path node = dir.resolve("n");
        DiskIdentity id = DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> false);
        makeWhole(node);
        id.setAsideAtNextStart("restarted on disk A while the coordinator records disk B for s1");
        assertThat(id.rejoining()).isTrue();
        DiskIdentity next = DiskIdentity.open(node, "s1", "rs1", ENGINE, () -> true, () -> false, disk -> null);
        assertThat(next.reason()).contains("the coordinator records disk B");
        assertThat(next.disk()).isNotEqualTo(id.disk());
        assertThat(next.member()).startsWith("s1~");
        assertThat(next.setAside()).isFalse();
    }

    private static void makeWhole(Path node) throws Exception {
        Files.createDirectories(node.resolve("db"));
        Files.createDirectories(ENGINE.folderIn(node));
    }
}
