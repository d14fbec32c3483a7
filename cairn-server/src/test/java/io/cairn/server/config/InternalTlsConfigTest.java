package io.cairn.server.config;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.tls.ClusterTls;
import io.cairn.core.tls.LocalCertificateAuthority;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code security.internalTls} (issue 26 item 2): checked when the config loads, with the file and the fault named. */
class InternalTlsConfigTest {
    @TempDir
    Path dir;

    @AfterEach
    void plainAgain() {
        ClusterTls.install(null);
    }

    private Path write(String security) throws Exception {
        Path file = dir.resolve("cluster.yaml");
        Files.writeString(file, ConfigLoaderTest.minimalYaml() + security);
        return file;
    }

    private static String internalTls(String cert, String key, String ca) {
        return "security:\n  internalTls:\n    certFile: " + cert + "\n    keyFile: " + key + "\n    caFile: " + ca + "\n";
    }

    @Test
    void withoutTheSettingTheProcessRunsPlainTcp() throws Exception {
        ClusterConfig c = ConfigLoader.load(write(""));
        assertThat(c.security().internalTls().enabled()).isFalse();
        assertThat(ClusterTls.current()).isNull();
    }

    @Test
    void filesRelativeToTheConfigAreLoadedAndInstalledForTheProcess() throws Exception {
        LocalCertificateAuthority ca = LocalCertificateAuthority.create(dir.resolve("tls"), "ca", Duration.ofDays(1));
        ca.issue("node", List.of("127.0.0.1"));
        ClusterConfig c = ConfigLoader.load(write(internalTls("tls/node.pem", "tls/node.key", "tls/ca.pem")));
        assertThat(c.security().internalTls().adminClientCerts()).as("the default: admin ports require client certificates").isTrue();
        assertThat(ClusterTls.current()).isNotNull();
        assertThat(ClusterTls.current().certificate().getSubjectX500Principal().getName()).isEqualTo("CN=node");
        assertThat(c.security().toString()).contains("internalTls=");
    }

    @Test
    void missingFilesMismatchedKeysForeignCertificatesAndPartialSettingsAreRefused() throws Exception {
        LocalCertificateAuthority ca = LocalCertificateAuthority.create(dir.resolve("tls"), "ca", Duration.ofDays(1));
        ca.issue("a", List.of());
        ca.issue("b", List.of());
        LocalCertificateAuthority foreign = LocalCertificateAuthority.create(dir.resolve("foreign"), "other", Duration.ofDays(1));
        foreign.issue("x", List.of());
        Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");

        assertRefused(write(internalTls("tls/none.pem", "tls/a.key", "tls/ca.pem")), "security.internalTls", "none.pem does not exist");
        assertRefused(write(internalTls("tls/a.pem", "tls/b.key", "tls/ca.pem")), "security.internalTls", "b.key does not match certificate");
        assertRefused(write(internalTls("foreign/x.pem", "foreign/x.key", "tls/ca.pem")), "security.internalTls",
                "is not signed by the cluster CA");
        assertRefused(write(internalTls("tls/a.pem", "tls/a.key", "garbage.pem")), "security.internalTls", "garbage.pem holds no PEM certificate");
        assertRefused(write("security:\n  internalTls:\n    certFile: tls/a.pem\n"), "needs certFile, keyFile and caFile together");
        assertRefused(write("security:\n  internalTls:\n    certFile: tls/a.pem\n    keyFile: tls/a.key\n    caFile: tls/ca.pem\n    ciphers: all\n"),
                "security.internalTls", "ciphers");
        assertThat(ClusterTls.current()).as("nothing installed from a refused config").isNull();
    }

    private static void assertRefused(Path file, String... fragments) {
        assertThatThrownBy(() -> ConfigLoader.load(file)).isInstanceOfSatisfying(CairnException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_CONFIG)).hasMessageContainingAll(fragments);
    }
}
