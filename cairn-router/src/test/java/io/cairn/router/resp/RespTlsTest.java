package io.cairn.router.resp;

import io.cairn.core.testing.ExternalTool;
import io.cairn.core.testing.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * TLS on the RESP port (issue 26, {@link RespTls}) with certificates made by openssl for the test: a
 * client that trusts the CA (Jedis, redis-cli --tls) talks as over TCP; with client authentication a
 * client without a certificate of that CA is refused; a certificate replaced on disk is served to new
 * connections with no restart.
 */
class RespTlsTest {
    @TempDir
    Path dir;

    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    @Test
    void clientsTrustingTheCaTalkOverTlsAndPlainTcpIsRefused() throws Exception {
        TestCertificates certs = TestCertificates.make(dir, "server", "client");
        server = tlsServer(certs, false);
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().ssl(true).sslSocketFactory(certs.socketFactory(null)).build())) {
            assertThat(jedis.set("k", "v")).isEqualTo("OK");
            assertThat(jedis.get("k")).isEqualTo("v");
        }
        try (RawClient plain = new RawClient(server.port())) {
            plain.send("*1\r\n$4\r\nPING\r\n");
            assertThat(plain.readsToEndOfStream()).as("a plain TCP client gets no answer and is closed").isTrue();
        }
        Path cli = ExternalTool.require("redis-cli", "redis-tools");
        Process p = new ProcessBuilder(cli.toString(), "--tls", "--cacert", certs.ca().toString(), "-p", Integer.toString(server.port()), "get", "k")
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(p.getInputStream().readAllBytes()).trim()).isEqualTo("v");
    }

    @Test
    void withClientAuthenticationOnlyAClientCertificateOfTheCaGetsIn() throws Exception {
        TestCertificates certs = TestCertificates.make(dir, "server", "client");
        server = tlsServer(certs, true);
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().ssl(true).sslSocketFactory(certs.socketFactory("client")).build())) {
            assertThat(jedis.ping()).isEqualTo("PONG");
        }
        assertThatThrownBy(() -> {
            try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                    DefaultJedisClientConfig.builder().ssl(true).sslSocketFactory(certs.socketFactory(null)).build())) {
                jedis.ping();
            }
        }).as("no client certificate").isInstanceOf(RuntimeException.class);
    }

    @Test
    void aReplacedCertificateIsServedToNewConnectionsWithoutARestart() throws Exception {
        TestCertificates certs = TestCertificates.make(dir, "server", "client");
        server = tlsServer(certs, false);
        BigInteger first = certs.servedSerial(server.port());
        certs.reissue("server"); // a new serial, same CA
        BigInteger now = await().atMost(Duration.ofSeconds(20)).until(() -> certs.servedSerial(server.port()), s -> !s.equals(first));
        assertThat(now).isEqualTo(certs.serial("server"));
    }

    private TestServer tlsServer(TestCertificates certs, boolean authClients) {
        RespServer tls = new RespServer(new InMemoryKvBackend(), RespConfig.builder().host("127.0.0.1").port(0).build())
                .tls(RespTls.load(new RespTls.Certificates(certs.cert("server"), certs.key("server"), authClients ? certs.ca() : null, authClients)))
                .start();
        return new TestServer(tls);
    }
}
