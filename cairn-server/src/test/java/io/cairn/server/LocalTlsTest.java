package io.cairn.server;

import io.cairn.core.testing.ExternalTool;
import io.cairn.core.tls.ClusterTls;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.cli.CliTestAccess;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code cairn up --tls} (issue 26 item 2): a new local cluster gets a CA and certificate made with the
 * JDK alone, speaks TLS on every port, and redis-cli {@code --tls --cacert <dir>/tls/ca.pem} talks to it.
 */
class LocalTlsTest {
    @TempDir
    Path dir;

    @AfterEach
    void plainAgain() {
        ClusterTls.install(null);
        AdminHttps.requireClientCertificates(true);
    }

    @Test
    void upWithTlsServesRedisCliOverTlsAndTheAdminPortOverHttps() throws Exception {
        String redisCli = ExternalTool.require("redis-cli", "redis-tools").toString();
        int base = Ports.freeRange(20);
        ClusterConfig config = LocalCluster.prepare(dir, new LocalCluster.Shape(1, 1, 16, base + 19, base), false, true);
        Path ca = dir.resolve(LocalCluster.TLS_DIR).resolve("ca.pem");
        assertThat(ca).exists();
        assertThat(config.security().internalTls().enabled()).isTrue();
        assertThat(config.security().tlsCertFile()).isNotEmpty();
        assertThat(Files.getPosixFilePermissions(dir.resolve(LocalCluster.TLS_DIR).resolve("cluster.key")))
                .as("keys readable by their owner only").containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);

        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(120))).isTrue();
            String port = Integer.toString(cluster.router().respPort());
            assertThat(run(redisCli, "--tls", "--cacert", ca.toString(), "-p", port, "set", "k", "over-tls")).isEqualTo("OK");
            assertThat(run(redisCli, "--tls", "--cacert", ca.toString(), "-p", port, "get", "k")).isEqualTo("over-tls");
            assertThat(run(redisCli, "-p", port, "ping")).as("plain RESP is refused").doesNotContain("PONG");

            // a browser-like client: trusts the CA, has no certificate; the try-out's admin ports let it read
            SSLContext trustOnly = TlsProbe.withoutCertificate(ClusterTls.current());
            HttpClient http = HttpClient.newBuilder().sslContext(trustOnly).version(HttpClient.Version.HTTP_1_1).build();
            int adminPort = config.topology().routers().get(0).adminPort();
            HttpResponse<String> info = http.send(HttpRequest.newBuilder(URI.create("https://localhost:" + adminPort + "/info")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(info.statusCode()).isEqualTo(200);
            assertThat(CliTestAccess.status(config)).as("cairn status").contains("LEADER");
        }
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out;
    }
}
