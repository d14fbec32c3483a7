package io.cairn.server;

import io.cairn.core.testing.TestCertificates;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A cluster whose config names a RESP certificate and key (security.tlsCertFile, tlsKeyFile): its router speaks TLS. */
class TlsClusterTest {
    @TempDir
    Path dir;
    @TempDir
    Path certDir;

    @Test
    void theRouterServesRespOverTlsWithTheConfiguredCertificate() throws Exception {
        TestCertificates certs = TestCertificates.make(certDir, "router");
        ClusterConfig config = TestClusters.config(dir, 1, 1, 16, Map.of("security", Map.of(
                "tlsCertFile", certs.cert("router").toString(), "tlsKeyFile", certs.key("router").toString())));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", cluster.router().respPort()),
                    DefaultJedisClientConfig.builder().ssl(true).sslSocketFactory(certs.socketFactory(null)).build())) {
                assertThat(jedis.set("over", "tls")).isEqualTo("OK");
                assertThat(jedis.get("over")).isEqualTo("tls");
            }
            assertThat(certs.servedSerial(cluster.router().respPort())).isEqualTo(certs.serial("router"));
        }
    }
}
