package io.cairn.server.config;

import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code cairn up} writes a config file the loader accepts, and reuses it on the next start. */
class LocalClusterConfigTest {
    @TempDir
    Path dir;

    @Test
    void preparedConfigIsAcceptedByTheLoader() throws IOException {
        ClusterConfig config = LocalCluster.prepare(dir, new LocalCluster.Shape(2, 3, 64, 16379, 20000));

        Path file = dir.resolve(LocalCluster.CONFIG_FILE);
        assertThat(file).isRegularFile();
        assertThat(ConfigLoader.load(file)).isEqualTo(config);
        assertThat(config.dataDir()).isEqualTo(dir.toAbsolutePath().normalize());
        assertThat(config.topology().bucketCount()).isEqualTo(64);
        assertThat(config.topology().coordinators()).hasSize(1);
        assertThat(config.topology().replicasets()).hasSize(2).allSatisfy(rs -> assertThat(rs.nodes()).hasSize(3));
        assertThat(config.topology().routers()).singleElement().satisfies(r -> assertThat(r.respPort()).isEqualTo(16379));
    }

    @Test
    void secondPrepareReusesTheFileUnchanged() throws IOException {
        ClusterConfig first = LocalCluster.prepare(dir, new LocalCluster.Shape(1, 3, 128, 16379, 20000));
        Path file = dir.resolve(LocalCluster.CONFIG_FILE);
        byte[] written = Files.readAllBytes(file);

        ClusterConfig second = LocalCluster.prepare(dir, new LocalCluster.Shape(3, 1, 999, 26379, 30000));

        assertThat(Files.readAllBytes(file)).isEqualTo(written);
        assertThat(second).isEqualTo(first);
        assertThat(second.topology().bucketCount()).isEqualTo(128);
    }

    @Test
    void largestShapeHasNoPortOrIdClash() throws IOException {
        ClusterConfig config = LocalCluster.prepare(dir, new LocalCluster.Shape(50, 5, 3000, 6379, 20000));
        assertThat(config.topology().replicasets()).hasSize(50);
        assertThat(config.topology().replicasets().stream().mapToInt(rs -> rs.nodes().size()).sum()).isEqualTo(250);
        assertThat(config.topology().replicasets().stream().flatMap(rs -> rs.nodes().stream()).map(NodeAddress::id))
                .doesNotHaveDuplicates();
        assertThat(config.topology().replicasets().stream().mapToInt(ReplicasetSpec::weight)).containsOnly(1);
    }

    @Test
    void singleNodeClusterIsAccepted() throws IOException {
        ClusterConfig config = LocalCluster.prepare(dir, new LocalCluster.Shape(1, 1, 1, 6379, 1024));
        assertThat(config.topology().replicasets()).singleElement().satisfies(rs -> assertThat(rs.nodes()).hasSize(1));
    }

    @Test
    void invalidShapeIsRejectedBeforeAnythingIsWritten() {
        assertThatThrownBy(() -> new LocalCluster.Shape(1, 2, 64, 6379, 20000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LocalCluster.Shape(0, 3, 64, 6379, 20000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LocalCluster.Shape(51, 3, 64, 6379, 20000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LocalCluster.Shape(1, 3, 64, 6379, 1023)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LocalCluster.Shape(50, 5, 64, 6379, 65100)).isInstanceOf(IllegalArgumentException.class);
        assertThat(dir.resolve(LocalCluster.CONFIG_FILE)).doesNotExist();
    }
}
