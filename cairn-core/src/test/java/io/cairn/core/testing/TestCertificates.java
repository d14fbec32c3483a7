package io.cairn.core.testing;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A CA and certificates it signed, made by openssl (Debian's openssl, found by {@link ExternalTool})
 * in a test's folder, for TLS tests: PEM certificates and PKCS#8 keys as servers read them, and socket
 * factories that trust the CA (and present a client certificate) as clients use them.
 */
public record TestCertificates(Path dir, Path openssl) {
    public static TestCertificates make(Path dir, String... names) throws Exception {
        TestCertificates c = new TestCertificates(dir, ExternalTool.require("openssl", "openssl"));
        c.run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.resolve("ca.key").toString(), "-out", c.ca().toString(),
                "-days", "2", "-subj", "/CN=cairn-test-ca");
        for (String n : names) c.reissue(n);
        return c;
    }

    public Path ca() {
        return dir.resolve("ca.pem");
    }

    public Path cert(String name) {
        return dir.resolve(name + ".pem");
    }

    public Path key(String name) {
        return dir.resolve(name + ".key");
    }

    /** A new key and certificate for {@code name} (CN and SAN 127.0.0.1), signed by the CA, written in place. */
    public void reissue(String name) throws Exception {
        Path csr = dir.resolve(name + ".csr");
        Path ext = dir.resolve(name + ".ext");
        Files.writeString(ext, "subjectAltName=IP:127.0.0.1\n");
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", dir.resolve(name + ".key.new").toString(), "-out", csr.toString(),
                "-subj", "/CN=127.0.0.1");
        run("x509", "-req", "-in", csr.toString(), "-CA", ca().toString(), "-CAkey", dir.resolve("ca.key").toString(),
                "-CAcreateserial", "-out", dir.resolve(name + ".pem.new").toString(), "-days", "2", "-extfile", ext.toString());
        Files.move(dir.resolve(name + ".key.new"), key(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.move(dir.resolve(name + ".pem.new"), cert(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    public BigInteger serial(String name) throws Exception {
        try (InputStream in = Files.newInputStream(cert(name))) {
            return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)).getSerialNumber();
        }
    }

    /** The serial of the certificate the server presents to a new connection. */
    public BigInteger servedSerial(int port) throws Exception {
        try (SSLSocket s = (SSLSocket) socketFactory(null).createSocket("127.0.0.1", port)) {
            s.startHandshake();
            return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    /** Trusts the CA; presents {@code clientName}'s certificate when not null. */
    public SSLSocketFactory socketFactory(String clientName) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(ca())) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (clientName != null) {
            Path p12 = dir.resolve(clientName + ".p12");
            run("pkcs12", "-export", "-in", cert(clientName).toString(), "-inkey", key(clientName).toString(), "-out", p12.toString(),
                    "-passout", "pass:test");
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(p12)) {
                keys.load(in, "test".toCharArray());
            }
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, "test".toCharArray());
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx.getSocketFactory();
    }

    private void run(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(openssl.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException("openssl " + String.join(" ", args) + ": " + out);
    }
}
