package io.cairn.storage;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A node's folder stays with the engine that wrote it, and MicroRaft needs every data-plane port named. */
class EngineFolderTest {
    @TempDir
    Path dir;

    private StorageConfig config(ReplicationEngine engine) {
        return new StorageConfig(dir, StorageConfig.DEFAULT_MAX_VALUE_BYTES, Duration.ofMillis(1000), 1_000, 64 << 10, engine);
    }

    @Test
    void aFolderWrittenByRatisIsRefusedByMicroRaftWithTheWayOut() throws IOException {
        Files.createDirectories(dir.resolve("ratis"));
        Files.createDirectories(dir.resolve("db"));
        ReplicasetSpec rs = new ReplicasetSpec("rs1", 1, List.of(new NodeAddress("s1", "127.0.0.1", 1, 2, 3)));
        assertThatThrownBy(() -> new StorageNode(rs.nodes().get(0), rs, config(ReplicationEngine.MICRORAFT)))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_CONFIG))
                .hasMessageContaining("holds the data of a ratis member").hasMessageContaining("storage.engine: ratis");
        assertThat(dir.resolve("microraft")).as("nothing written for the refused engine").doesNotExist();
    }

    @Test
    void aFolderWrittenByMicroRaftIsRefusedByRatis() throws IOException {
        Files.createDirectories(dir.resolve("microraft"));
        assertThatThrownBy(() -> ReplicationEngine.RATIS.requireOwnFolder(dir))
                .isInstanceOf(CairnException.class).hasMessageContaining("storage.engine: microraft");
        assertThatCode(() -> ReplicationEngine.MICRORAFT.requireOwnFolder(dir)).doesNotThrowAnyException();
    }

    @Test
    void microRaftNeedsEveryMembersDataPort() {
        ReplicasetSpec rs = new ReplicasetSpec("rs1", 1, List.of(new NodeAddress("s1", "127.0.0.1", 1, 2, 3),
                new NodeAddress("s2", "127.0.0.1", 4, 5), new NodeAddress("s3", "127.0.0.1", 7, 8, 9)));
        assertThatThrownBy(() -> new StorageNode(rs.nodes().get(0), rs, config(ReplicationEngine.MICRORAFT)))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_CONFIG))
                .hasMessageContaining("storage node s2 of replicaset rs1 names no dataPort");
    }
}
