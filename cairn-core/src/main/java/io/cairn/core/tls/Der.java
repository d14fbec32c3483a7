package io.cairn.core.tls;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/** The few DER (ASN.1) encodings an X.509 certificate needs ({@link LocalCertificateAuthority}). */
final class Der {
    static final int BOOLEAN = 0x01, INTEGER = 0x02, BIT_STRING = 0x03, OCTET_STRING = 0x04, OID = 0x06, UTF8 = 0x0c,
            UTC_TIME = 0x17, GENERALIZED_TIME = 0x18, SEQUENCE = 0x30, SET = 0x31;

    private Der() {}

    static byte[] tlv(int tag, byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(value.length + 6);
        out.write(tag);
        int n = value.length;
        if (n < 0x80) {
            out.write(n);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(n) + 7) / 8;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) out.write(n >>> (8 * i));
        }
        out.writeBytes(value);
        return out.toByteArray();
    }

    static byte[] sequence(byte[]... parts) {
        return tlv(SEQUENCE, concat(parts));
    }

    static byte[] set(byte[]... parts) {
        return tlv(SET, concat(parts));
    }

    static byte[] integer(BigInteger value) {
        return tlv(INTEGER, value.toByteArray());
    }

    static byte[] bool(boolean value) {
        return tlv(BOOLEAN, new byte[] {(byte) (value ? 0xff : 0)});
    }

    static byte[] utf8(String s) {
        return tlv(UTF8, s.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] octets(byte[] value) {
        return tlv(OCTET_STRING, value);
    }

    /** A bit string of whole bytes (signatures, keys), no unused bits. */
    static byte[] bits(byte[] value) {
        return tlv(BIT_STRING, concat(new byte[] {0}, value));
    }

    /** Explicit context tag [n] around {@code inner}. */
    static byte[] explicit(int n, byte[] inner) {
        return tlv(0xa0 | n, inner);
    }

    static byte[] oid(String dotted) {
        String[] parts = dotted.split("\\.");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(Integer.parseInt(parts[0]) * 40 + Integer.parseInt(parts[1]));
        for (int i = 2; i < parts.length; i++) {
            long v = Long.parseLong(parts[i]);
            int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(v) + 6) / 7);
            for (int g = groups - 1; g >= 0; g--) out.write((int) ((v >>> (7 * g)) & 0x7f) | (g > 0 ? 0x80 : 0));
        }
        return tlv(OID, out.toByteArray());
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }
}
