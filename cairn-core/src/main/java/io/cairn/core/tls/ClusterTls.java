package io.cairn.core.tls;

import java.io.IOException;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509KeyManager;
import javax.net.ssl.X509TrustManager;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.function.LongSupplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * TLS between Cairn processes (issue 26 item 2): every internal port (storage Raft transport, data
 * plane, coordinator Ratis group, admin HTTP) and every internal client speak TLS with <em>mutual
 * authentication</em>: both ends present a certificate signed by the cluster CA, and a peer without
 * one, or with another CA's, is refused at the handshake. So a process without the cluster's
 * certificate cannot join a group, vote, fetch data or send moves.
 *
 * <p>What is checked is the CA's signature, not names: the cluster CA signs only Cairn processes, so
 * any certificate it signed is a member (as etcd peers with a private CA, or Cassandra's internode
 * {@code require_client_auth}). Host names are therefore not compared (no SAN needed for a peer);
 * keep the CA's key off the hosts.
 *
 * <p>Renewed files are used without a restart: the key and trust managers behind the one
 * {@link SSLContext} read the newest files that load ({@link ReloadingFiles}), so new connections
 * present and check the new certificates while open ones keep theirs.
 *
 * <p>A process has one cluster identity, so the loaded settings are installed once per process
 * ({@link #install}) and the transports read them when they set up ({@link #current}); plain TCP
 * (null) is the default.
 */
public final class ClusterTls {
    /** The PEM files: this process's certificate (chain) and PKCS#8 key, and the cluster CA. */
    public record Files(Path cert, Path key, Path ca) {}

    /** The loaded material: one consistent set of key, chain and CA. */
    record Material(X509KeyManager keys, X509TrustManager trust, X509Certificate leaf) {}

    private static volatile ClusterTls installed;

    private final Files files;
    private final ReloadingFiles<Material> material;
    private final SSLContext context;

    private ClusterTls(Files files, ReloadingFiles<Material> material) {
        this.files = files;
        this.material = material;
        try {
            context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {new KeyManagers.Reloading(material::current)},
                    new TrustManager[] {new TrustManagers.CaOnly(material::current)}, null);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no TLS: " + e.getMessage(), e);
        }
    }

    /**
     * Loads and checks the files (missing or unreadable file, key not matching the certificate,
     * certificate not signed by the CA or expired: an {@link IllegalArgumentException} saying which).
     */
    public static ClusterTls load(Files files, ReloadingFiles.Events events) {
        return load(files, events, System::nanoTime);
    }

    static ClusterTls load(Files files, ReloadingFiles.Events events, LongSupplier nanoClock) {
        return new ClusterTls(files, new ReloadingFiles<>(List.of(files.cert(), files.key(), files.ca()), paths -> build(files), nanoClock, events));
    }

    /** This process's settings; null when the cluster runs plain TCP. */
    public static ClusterTls current() {
        return installed;
    }

    /** Makes {@code tls} (null: plain TCP) the process's settings for every transport set up from now on. */
    public static void install(ClusterTls tls) {
        installed = tls;
    }

    public Files files() {
        return files;
    }

    /** One context for servers and clients alike; its managers follow renewed files. */
    public SSLContext context() {
        return context;
    }

    /** For a listening end: a client certificate signed by the cluster CA is required. */
    public SSLEngine serverEngine() {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        engine.setSSLParameters(parameters(true));
        return engine;
    }

    /** For a connecting end: presents this process's certificate, checks the server's. */
    public SSLEngine clientEngine(String host, int port) {
        SSLEngine engine = context.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        engine.setSSLParameters(parameters(false));
        return engine;
    }

    /** The TLS versions and client-certificate rule every internal port uses. */
    public SSLParameters parameters(boolean requireClientCertificate) {
        SSLParameters p = context.getDefaultSSLParameters();
        p.setProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
        p.setNeedClientAuth(requireClientCertificate);
        return p;
    }

    /** The key manager (this process's certificate, renewed files included), e.g. for Ratis's gRPC. */
    public X509ExtendedKeyManager keyManager() {
        return new KeyManagers.Reloading(material::current);
    }

    /** The trust manager (the cluster CA, names not checked), e.g. for Ratis's gRPC. */
    public X509ExtendedTrustManager trustManager() {
        return new TrustManagers.CaOnly(material::current);
    }

    /** The certificate new connections present now. */
    public X509Certificate certificate() {
        return material.current().leaf();
    }

    private static Material build(Files files) {
        List<X509Certificate> chain = PemFiles.certificates(files.cert());
        PrivateKey key = PemFiles.privateKey(files.key());
        List<X509Certificate> cas = PemFiles.certificates(files.ca());
        PemFiles.checkFit(files.cert(), chain, files.key(), key, files.ca(), cas);
        try {
            char[] none = new char[0];
            KeyStore keyStore = KeyStore.getInstance("PKCS12");
            keyStore.load(null, null);
            keyStore.setKeyEntry(KeyManagers.ALIAS, key, none, chain.toArray(new X509Certificate[0]));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance("SunX509");
            kmf.init(keyStore, none);
            KeyStore trustStore = KeyStore.getInstance("PKCS12");
            trustStore.load(null, null);
            for (int i = 0; i < cas.size(); i++) trustStore.setCertificateEntry("ca" + i, cas.get(i));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(trustStore);
            return new Material((X509KeyManager) kmf.getKeyManagers()[0], (X509TrustManager) tmf.getTrustManagers()[0], chain.get(0));
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("TLS files " + files.cert() + ", " + files.key() + ", " + files.ca() + " do not load: " + e.getMessage());
        }
    }
}
