package io.cairn.server.process;

import io.cairn.core.tls.LocalCertificateAuthority;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Certificates for {@code cairn up --tls}: a local CA and one certificate for the cluster, made with the
 * JDK alone ({@link LocalCertificateAuthority}), and the {@code security:} settings that use them.
 *
 * <p>One certificate, not one per process: {@code cairn up} runs every process of the local cluster in
 * one JVM, and a JVM has one cluster identity ({@link io.cairn.core.tls.ClusterTls#install}). Its names
 * are 127.0.0.1 and localhost, where the local cluster listens, so redis-cli and HTTPS clients that check
 * host names accept it. The admin ports ask no client certificate, so a browser opens the console after
 * trusting the CA; the internal ports require one.
 */
final class LocalTls {
    static final Duration VALIDITY = Duration.ofDays(365);
    static final String CERT_NAME = "cluster";

    private LocalTls() {}

    /** Writes {@code <dir>/<tlsDir>/ca.pem, cluster.pem, cluster.key} (and the CA's key); the settings, relative to {@code dir}. */
    static Map<String, Object> generate(Path dir, String tlsDir) throws IOException {
        LocalCertificateAuthority ca = LocalCertificateAuthority.create(dir.resolve(tlsDir), "cairn local CA", VALIDITY);
        ca.issue(CERT_NAME, List.of("127.0.0.1", "localhost"));
        String cert = tlsDir + "/" + CERT_NAME + ".pem";
        String key = tlsDir + "/" + CERT_NAME + ".key";
        String caFile = tlsDir + "/ca.pem";
        Map<String, Object> security = new LinkedHashMap<>();
        security.put("tlsCertFile", cert);
        security.put("tlsKeyFile", key);
        security.put("internalTls", Map.of("certFile", cert, "keyFile", key, "caFile", caFile, "adminClientCerts", false));
        return security;
    }
}
