package io.cairn.core.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

/**
 * Reads PEM certificates and PKCS#8 keys with the JDK alone (no openssl, no BouncyCastle), and checks
 * that they fit together: the key is the certificate's, the certificate is current and signed by the
 * CA. Every failure is an {@link IllegalArgumentException} naming the file and what to do.
 */
public final class PemFiles {
    /** Longer files are refused unread: a certificate chain or key is a few kilobytes. */
    static final int MAX_FILE_BYTES = 1 << 20;
    private static final String KEY_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String KEY_END = "-----END PRIVATE KEY-----";

    private PemFiles() {}

    /** The certificates in a PEM file, in file order (a chain starts with the leaf). */
    public static List<X509Certificate> certificates(Path file) {
        byte[] bytes = read(file);
        if (!new String(bytes, StandardCharsets.US_ASCII).contains("-----BEGIN CERTIFICATE-----")) {
            throw new IllegalArgumentException("TLS file " + file + " holds no PEM certificate (BEGIN CERTIFICATE)");
        }
        try {
            List<X509Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes))
                    .stream().map(c -> (X509Certificate) c).toList();
            if (certs.isEmpty()) throw new IllegalArgumentException("TLS file " + file + " holds no PEM certificate");
            return certs;
        } catch (CertificateException e) {
            throw new IllegalArgumentException("TLS file " + file + " is not a PEM certificate: " + e.getMessage());
        }
    }

    /** An unencrypted PKCS#8 PEM key ({@code BEGIN PRIVATE KEY}), RSA or EC. */
    public static PrivateKey privateKey(Path file) {
        String text = new String(read(file), StandardCharsets.US_ASCII);
        int begin = text.indexOf(KEY_BEGIN);
        int end = text.indexOf(KEY_END);
        if (begin < 0 || end < begin) {
            String hint = text.contains("BEGIN RSA PRIVATE KEY") || text.contains("BEGIN EC PRIVATE KEY")
                    ? " (it is in the older PKCS#1/SEC1 form: convert it with 'openssl pkcs8 -topk8 -nocrypt -in old.key -out new.key')"
                    : text.contains("ENCRYPTED") ? " (it is encrypted: Cairn reads unencrypted keys; protect the file by its mode)" : "";
            throw new IllegalArgumentException("TLS key " + file + " is not an unencrypted PKCS#8 PEM key (BEGIN PRIVATE KEY)" + hint);
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(text.substring(begin + KEY_BEGIN.length(), end));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("TLS key " + file + " is not valid base64: " + e.getMessage());
        }
        for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException notThisOne) {
                // the PKCS#8 envelope names the algorithm; the wrong factories refuse it
            }
        }
        throw new IllegalArgumentException("TLS key " + file + " is not an RSA, EC or Ed25519 key");
    }

    /**
     * Checks that {@code key} belongs to the first of {@code chain}, that every certificate is current,
     * and that the chain ends in one signed by a certificate of {@code cas}.
     */
    public static void checkFit(Path certFile, List<X509Certificate> chain, Path keyFile, PrivateKey key, Path caFile,
                                List<X509Certificate> cas) {
        X509Certificate leaf = chain.get(0);
        if (!signatureVerifies(key, leaf)) {
            throw new IllegalArgumentException("TLS key " + keyFile + " does not match certificate " + certFile
                    + " (a key from another certificate, or a renewed certificate whose key was not copied)");
        }
        for (X509Certificate c : chain) {
            try {
                c.checkValidity();
            } catch (CertificateException e) {
                throw new IllegalArgumentException("TLS certificate " + certFile + " (" + c.getSubjectX500Principal().getName()
                        + ") is not valid now: valid " + c.getNotBefore() + " to " + c.getNotAfter());
            }
        }
        for (int i = 0; i + 1 < chain.size(); i++) {
            if (!signedBy(chain.get(i), chain.get(i + 1))) {
                throw new IllegalArgumentException("TLS certificate chain " + certFile + " is out of order: certificate " + i
                        + " is not signed by certificate " + (i + 1));
            }
        }
        X509Certificate top = chain.get(chain.size() - 1);
        boolean trusted = cas.stream().anyMatch(ca -> ca.equals(top) || signedBy(top, ca));
        if (!trusted) {
            throw new IllegalArgumentException("TLS certificate " + certFile + " (issued by " + top.getIssuerX500Principal().getName()
                    + ") is not signed by the cluster CA " + caFile + ": the other processes would refuse it");
        }
    }

    private static boolean signedBy(X509Certificate cert, X509Certificate issuer) {
        try {
            cert.verify(issuer.getPublicKey());
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /** Signs a probe with the key and verifies it with the certificate's public key. */
    private static boolean signatureVerifies(PrivateKey key, X509Certificate cert) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm();
        };
        byte[] probe = "cairn key check".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(cert.getPublicKey());
            verify.update(probe);
            return verify.verify(signature);
        } catch (GeneralSecurityException e) {
            return false; // a key of another algorithm than the certificate's
        }
    }

    private static byte[] read(Path file) {
        try {
            if (!Files.isRegularFile(file)) throw new IllegalArgumentException("TLS file " + file + " does not exist or is not a file");
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new IllegalArgumentException("TLS file " + file + " is larger than " + MAX_FILE_BYTES + " bytes: not a certificate or key");
            }
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("TLS file " + file + " cannot be read: " + e.getMessage());
        }
    }
}
