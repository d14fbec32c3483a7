package io.cairn.core.tls;

import io.cairn.core.testing.ExternalTool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Cluster-internal TLS over real loopback sockets: certificates the JDK-made CA issues, mutual
 * authentication (a foreign CA's certificate or none is refused at the handshake), checks at load with
 * clear messages, and renewed files used by new connections without a restart.
 */
class ClusterTlsTest {
    private static final ReloadingFiles.Events SILENT = ReloadingFiles.quiet(why -> { });

    @TempDir
    Path dir;

    @Test
    void peersOfOneCaHandshakeBothWaysAndSeeEachOthersCertificate() throws Exception {
        LocalCertificateAuthority ca = LocalCertificateAuthority.create(dir.resolve("ca"), "cairn-ca", Duration.ofDays(1));
        ClusterTls server = ClusterTls.load(ca.issue("s1", List.of("127.0.0.1")), SILENT);
        ClusterTls client = ClusterTls.load(ca.issue("c1", List.of("localhost")), SILENT);

        Handshake h = handshake(server, client);

        assertThat(h.error()).isNull();
        assertThat(h.serverSawClient().getSubjectX500Principal().getName()).isEqualTo("CN=c1");
        assertThat(h.clientSawServer().getSubjectX500Principal().getName()).isEqualTo("CN=s1");
    }

    @Test
    void aCertificateOfAnotherCaIsRefusedByTheServerAndByTheClient() throws Exception {
        LocalCertificateAuthority ours = LocalCertificateAuthority.create(dir.resolve("ours"), "cairn-ca", Duration.ofDays(1));
        LocalCertificateAuthority foreign = LocalCertificateAuthority.create(dir.resolve("foreign"), "cairn-ca", Duration.ofDays(1));
        ClusterTls server = ClusterTls.load(ours.issue("s1", List.of()), SILENT);
        ClusterTls intruder = ClusterTls.load(foreign.issue("x", List.of()), SILENT);

        assertThat(handshake(server, intruder).error()).isInstanceOf(SSLException.class);
        assertThat(handshake(intruder, server).error()).isInstanceOf(SSLException.class);
    }

    @Test
    void aClientWithoutCertificateIsRefused() throws Exception {
        LocalCertificateAuthority ca = LocalCertificateAuthority.create(dir.resolve("ca"), "cairn-ca", Duration.ofDays(1));
        ClusterTls server = ClusterTls.load(ca.issue("s1", List.of()), SILENT);
        javax.net.ssl.SSLContext trustOnly = javax.net.ssl.SSLContext.getInstance("TLS");
        trustOnly.init(null, new javax.net.ssl.TrustManager[] {server.trustManager()}, null);

        try (SSLServerSocket listening = listen(server)) {
            CompletableFuture<Void> accepted = acceptOne(listening);
            try (SSLSocket s = (SSLSocket) trustOnly.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), listening.getLocalPort())) {
                s.setSoTimeout(10_000);
                // TLS 1.3: the client's handshake may finish before the server's refusal arrives; the first read sees it
                assertThatThrownBy(() -> {
                    s.startHandshake();
                    s.getInputStream().read();
                }).isInstanceOf(IOException.class);
            }
            assertThatThrownBy(() -> accepted.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(SSLException.class);
        }
    }

    @Test
    void loadRefusesMissingFilesMismatchedKeysForeignCertificatesAndOldKeyForms() throws Exception {
        LocalCertificateAuthority ca = LocalCertificateAuthority.create(dir.resolve("ca"), "cairn-ca", Duration.ofDays(1));
        LocalCertificateAuthority foreign = LocalCertificateAuthority.create(dir.resolve("foreign"), "other-ca", Duration.ofDays(1));
        ClusterTls.Files a = ca.issue("a", List.of());
        ClusterTls.Files b = ca.issue("b", List.of());
        ClusterTls.Files x = foreign.issue("x", List.of());
        Path pkcs1 = dir.resolve("old.key");
        Files.writeString(pkcs1, "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n");

        assertThatThrownBy(() -> ClusterTls.load(new ClusterTls.Files(dir.resolve("none.pem"), a.key(), a.ca()), SILENT))
                .hasMessageContaining("none.pem").hasMessageContaining("does not exist");
        assertThatThrownBy(() -> ClusterTls.load(new ClusterTls.Files(a.cert(), b.key(), a.ca()), SILENT))
                .hasMessageContaining("b.key does not match certificate").hasMessageContaining("a.pem");
        assertThatThrownBy(() -> ClusterTls.load(new ClusterTls.Files(x.cert(), x.key(), a.ca()), SILENT))
                .hasMessageContaining("is not signed by the cluster CA");
        assertThatThrownBy(() -> ClusterTls.load(new ClusterTls.Files(a.cert(), pkcs1, a.ca()), SILENT))
                .hasMessageContaining("openssl pkcs8 -topk8");
        assertThatThrownBy(() -> ClusterTls.load(new ClusterTls.Files(a.cert(), a.key(), a.key()), SILENT))
                .hasMessageContaining("a.key").hasMessageContaining("no PEM certificate");
    }

    @Test
    void newConnectionsPresentARenewedCertificateWithoutRestartAndABrokenRenewalKeepsTheOldOne() throws Exception {
        LocalCertificateAuthority ca = LocalCertificateAuthority.create(dir.resolve("ca"), "cairn-ca", Duration.ofDays(1));
        AtomicLong nanos = new AtomicLong();
        java.util.List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        ClusterTls server = ClusterTls.load(ca.issue("s1", List.of()), ReloadingFiles.quiet(failures::add), nanos::get);
        ClusterTls client = ClusterTls.load(ca.issue("c1", List.of()), SILENT);
        X509Certificate first = handshake(server, client).clientSawServer();

        ca.issue("s1", List.of());
        setModifiedAhead(ca.certFile("s1"), ca.keyFile("s1"));
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        X509Certificate renewed = handshake(server, client).clientSawServer();

        assertThat(renewed.getSerialNumber()).isNotEqualTo(first.getSerialNumber());
        assertThat(server.certificate()).isEqualTo(renewed);

        Files.writeString(ca.keyFile("s1"), "half a key");
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(handshake(server, client).clientSawServer()).isEqualTo(renewed);
        assertThat(failures).singleElement().asString().contains("s1.key");
    }

    @Test
    void opensslAcceptsTheJdkMadeCertificates() throws Exception {
        Path openssl = ExternalTool.require("openssl", "openssl");
        LocalCertificateAuthority ca = LocalCertificateAuthority.create(dir.resolve("ca"), "cairn-ca", Duration.ofDays(1));
        ca.issue("n1", List.of("127.0.0.1", "localhost"));

        Process p = new ProcessBuilder(openssl.toString(), "verify", "-x509_strict", "-purpose", "sslserver", "-CAfile", ca.caFile().toString(),
                ca.certFile("n1").toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains(": OK");
    }

    private static void setModifiedAhead(Path... files) throws IOException {
        // a renewal within the same millisecond of size-equal files would look unchanged: EC keys and certificates often have equal sizes
        for (Path f : files) Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5_000));
    }

    record Handshake(X509Certificate serverSawClient, X509Certificate clientSawServer, Throwable error) {}

    /** One connection from {@code client} to {@code server} over loopback; the failure of either side, if any. */
    private static Handshake handshake(ClusterTls server, ClusterTls client) throws Exception {
        try (SSLServerSocket listening = listen(server)) {
            CompletableFuture<X509Certificate> seen = new CompletableFuture<>();
            background(() -> {
                try (SSLSocket s = (SSLSocket) listening.accept()) {
                    s.setSoTimeout(10_000);
                    s.startHandshake();
                    seen.complete((X509Certificate) s.getSession().getPeerCertificates()[0]);
                    s.getOutputStream().write(1);
                } catch (Exception e) {
                    seen.completeExceptionally(e);
                }
            });
            try (SSLSocket s = (SSLSocket) client.context().getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), listening.getLocalPort())) {
                s.setSoTimeout(10_000);
                s.setSSLParameters(client.parameters(false));
                s.startHandshake();
                X509Certificate sawServer = (X509Certificate) s.getSession().getPeerCertificates()[0];
                if (s.getInputStream().read() != 1) throw new SSLException("the server closed the connection");
                return new Handshake(seen.get(10, TimeUnit.SECONDS), sawServer, null);
            } catch (IOException e) {
                return new Handshake(null, null, e);
            }
        }
    }

    private static SSLServerSocket listen(ClusterTls server) throws IOException {
        SSLServerSocket listening = (SSLServerSocket) server.context().getServerSocketFactory().createServerSocket(0, 8, InetAddress.getLoopbackAddress());
        listening.setSSLParameters(server.parameters(true));
        return listening;
    }

    private static CompletableFuture<Void> acceptOne(SSLServerSocket listening) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        background(() -> {
            try (SSLSocket s = (SSLSocket) listening.accept()) {
                s.setSoTimeout(10_000);
                s.startHandshake();
                s.getOutputStream().write(1);
                done.complete(null);
            } catch (Exception e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private static void background(Runnable r) {
        Thread t = new Thread(r, "tls-test-accept");
        t.setDaemon(true);
        t.start();
    }
}
