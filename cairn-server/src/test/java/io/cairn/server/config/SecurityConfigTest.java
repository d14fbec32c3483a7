package io.cairn.server.config;

import io.cairn.core.CairnException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code security:} section (issue 26): defaults, the token file, and refusals naming the setting. */
class SecurityConfigTest {
    @TempDir
    Path dir;

    private Path write(String security) throws Exception {
        Path file = dir.resolve("cluster.yaml");
        Files.writeString(file, ConfigLoaderTest.minimalYaml() + security);
        return file;
    }

    @Test
    void withoutTheSectionNothingIsRequired() throws Exception {
        ClusterConfig c = ConfigLoader.load(write(""));
        assertThat(c.security().respAuth().required()).isFalse();
        assertThat(c.security().adminAccess().tokenRequired()).isFalse();
        assertThat(c.security().adminReadOpen()).isTrue();
    }

    @Test
    void thePasswordAndATokenFileRelativeToTheConfigAreRead() throws Exception {
        Files.writeString(dir.resolve("admin-token"), "  abc123\n");
        ClusterConfig c = ConfigLoader.load(write("security:\n  requirepass: pw\n  adminTokenFile: admin-token\n  adminReadOpen: false\n"));
        assertThat(c.security().respAuth().required()).isTrue();
        assertThat(c.security().adminToken()).isEqualTo("abc123");
        assertThat(c.security().adminAccess().allows("GET", "/info", null)).isFalse();
        assertThat(c.security().adminAccess().allows("GET", "/info", "Bearer abc123")).isTrue();
        assertThat(c.security().toString()).doesNotContain("abc123").doesNotContain("pw,").contains("requirepass=set", "adminToken=set");
    }

    @Test
    void badSecuritySettingsAreRefusedWithTheirName() throws Exception {
        assertRefused(write("security:\n  adminToken: a\n  adminTokenFile: f\n"), "adminToken or adminTokenFile, not both");
        assertRefused(write("security:\n  adminTokenFile: missing-file\n"), "security.adminTokenFile", "is not a file of at most 4096 bytes");
        Files.writeString(dir.resolve("big"), "x".repeat(5000));
        assertRefused(write("security:\n  adminTokenFile: big\n"), "security.adminTokenFile", "is not a file of at most 4096 bytes");
        Files.writeString(dir.resolve("empty"), "\n");
        assertRefused(write("security:\n  adminTokenFile: empty\n"), "security.adminTokenFile", "is empty");
        assertRefused(write("security:\n  authMaxFailures: 0\n"), "security.authMaxFailures must be 1..1000000");
        assertRefused(write("security:\n  password: x\n"), "unknown key 'security.password'");
    }

    private static void assertRefused(Path file, String... fragments) {
        assertThatThrownBy(() -> ConfigLoader.load(file)).isInstanceOf(CairnException.class).hasMessageContainingAll(fragments);
    }
}
