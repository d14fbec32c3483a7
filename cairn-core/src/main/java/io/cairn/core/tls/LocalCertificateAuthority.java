package io.cairn.core.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A CA for a try-out cluster ({@code cairn up --tls}), made with the JDK alone: EC P-256 keys and
 * X.509 v3 certificates encoded here in DER (the JDK has no public certificate builder, and a try-out
 * should need neither openssl nor BouncyCastle). Writes PEM certificates and PKCS#8 keys (mode 0600),
 * the files {@link ClusterTls} and the RESP port read, and redis-cli {@code --tls --cacert} accepts.
 *
 * <p>Certificates carry serverAuth and clientAuth (one certificate serves a process's listening and
 * connecting ends) and the names given as subject alternative names, so clients that check host
 * names (redis-cli, HTTPS) accept them too. Not for production: the CA key sits next to the certificates.
 */
public final class LocalCertificateAuthority {
    private static final String ECDSA_SHA256 = "1.2.840.10045.4.3.2";
    private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter GENERALIZED_TIME = DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

    private final Path dir;
    private final String caName;
    private final KeyPair caKeys;
    private final Duration validity;
    private final SecureRandom random = new SecureRandom();

    private LocalCertificateAuthority(Path dir, String caName, KeyPair caKeys, Duration validity) {
        this.dir = dir;
        this.caName = caName;
        this.caKeys = caKeys;
        this.validity = validity;
    }

    /** A new CA named {@code caName}: writes {@code ca.pem} and {@code ca.key} into {@code dir}. */
    public static LocalCertificateAuthority create(Path dir, String caName, Duration validity) throws IOException {
        Files.createDirectories(dir);
        LocalCertificateAuthority ca = new LocalCertificateAuthority(dir, caName, newKeyPair(), validity);
        byte[] cert = ca.sign(caName, ca.caKeys.getPublic(), true, List.of());
        ca.write("ca", cert, ca.caKeys.getPrivate());
        return ca;
    }

    public Path caFile() {
        return dir.resolve("ca.pem");
    }

    public Path certFile(String name) {
        return dir.resolve(name + ".pem");
    }

    public Path keyFile(String name) {
        return dir.resolve(name + ".key");
    }

    /** The files a process with certificate {@code name} loads. */
    public ClusterTls.Files files(String name) {
        return new ClusterTls.Files(certFile(name), keyFile(name), caFile());
    }

    /**
     * A new key and certificate for {@code name} (subject CN), with {@code altNames} (host names or IP
     * addresses) as subject alternative names, replacing any earlier one atomically.
     */
    public ClusterTls.Files issue(String name, List<String> altNames) throws IOException {
        KeyPair keys = newKeyPair();
        write(name, sign(name, keys.getPublic(), false, altNames), keys.getPrivate());
        return files(name);
    }

    private byte[] sign(String subject, PublicKey key, boolean isCa, List<String> altNames) {
        Instant now = Instant.now();
        byte[] algorithm = Der.sequence(Der.oid(ECDSA_SHA256));
        byte[] tbs = Der.sequence(
                Der.explicit(0, Der.integer(BigInteger.TWO)),
                Der.integer(new BigInteger(127, random).add(BigInteger.ONE)),
                algorithm,
                name(caName),
                Der.sequence(time(now.minus(Duration.ofHours(1))), time(now.plus(validity))),
                name(subject),
                key.getEncoded(),
                Der.explicit(3, Der.sequence(extensions(key, isCa, altNames).toArray(new byte[0][]))));
        try {
            Signature s = Signature.getInstance("SHA256withECDSA");
            s.initSign(caKeys.getPrivate());
            s.update(tbs);
            return Der.sequence(tbs, algorithm, Der.bits(s.sign()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot sign with ECDSA: " + e.getMessage(), e);
        }
    }

    private List<byte[]> extensions(PublicKey key, boolean isCa, List<String> altNames) {
        List<byte[]> ext = new ArrayList<>();
        ext.add(extension("2.5.29.19", true, isCa ? Der.sequence(Der.bool(true)) : Der.sequence()));
        // keyUsage: CA keyCertSign + cRLSign + digitalSignature; leaf digitalSignature (EC keys sign, never encipher)
        ext.add(extension("2.5.29.15", true, isCa ? Der.tlv(Der.BIT_STRING, new byte[] {1, (byte) 0x86})
                : Der.tlv(Der.BIT_STRING, new byte[] {7, (byte) 0x80})));
        ext.add(extension("2.5.29.14", false, Der.octets(keyId(key))));
        ext.add(extension("2.5.29.35", false, Der.sequence(Der.tlv(0x80, keyId(caKeys.getPublic())))));
        if (!isCa) {
            ext.add(extension("2.5.29.37", false, Der.sequence(Der.oid("1.3.6.1.5.5.7.3.1"), Der.oid("1.3.6.1.5.5.7.3.2"))));
            if (!altNames.isEmpty()) ext.add(extension("2.5.29.17", false, Der.sequence(altNames.stream().map(LocalCertificateAuthority::altName)
                    .toArray(byte[][]::new))));
        }
        return ext;
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octets(value)) : Der.sequence(Der.oid(oid), Der.octets(value));
    }

    /** An IP address as iPAddress [7], anything else as dNSName [2]. */
    private static byte[] altName(String name) {
        boolean ip = name.matches("[0-9.]+") || name.contains(":");
        if (!ip) return Der.tlv(0x82, name.getBytes(StandardCharsets.US_ASCII));
        try {
            return Der.tlv(0x87, InetAddress.getByName(name).getAddress());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + name);
        }
    }

    private static byte[] name(String commonName) {
        return Der.sequence(Der.set(Der.sequence(Der.oid("2.5.4.3"), Der.utf8(commonName))));
    }

    private static byte[] time(Instant t) {
        boolean utc = t.atZone(ZoneOffset.UTC).getYear() < 2050; // RFC 5280: UTCTime through 2049
        return utc ? Der.tlv(Der.UTC_TIME, UTC_TIME.format(t).getBytes(StandardCharsets.US_ASCII))
                : Der.tlv(Der.GENERALIZED_TIME, GENERALIZED_TIME.format(t).getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] keyId(PublicKey key) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(key.getEncoded());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK cannot make EC keys: " + e.getMessage(), e);
        }
    }

    private void write(String name, byte[] cert, PrivateKey key) throws IOException {
        writeAtomically(keyFile(name), pem("PRIVATE KEY", key.getEncoded()), true);
        writeAtomically(certFile(name), pem("CERTIFICATE", cert), false);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void writeAtomically(Path file, String text, boolean secret) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp);
        if (secret && tmp.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
        }
        Files.writeString(tmp, text, StandardCharsets.US_ASCII);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
