package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import io.cairn.core.ErrorPayload;
import io.cairn.core.WireCodes;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Compact binary encoding of operation and result lists (big endian, length-prefixed). */
public final class OpCodec {
    private static final KvOp.Type[] TYPES = WireCodes.index(KvOp.Type.values(), KvOp.Type::code);
    private static final OpResult.Kind[] KINDS = WireCodes.index(OpResult.Kind.values(), OpResult.Kind::code);

    private OpCodec() {}

    public static int encodedSize(KvOp op) {
        return 1 + 4 + 4 + op.key().length + 4 + (op.value() == null ? 0 : op.value().length) + 8 + 4;
    }

    public static void writeOps(ByteBuffer out, List<KvOp> ops) {
        out.putInt(ops.size());
        for (KvOp op : ops) {
            out.put(op.type().code());
            out.putInt(op.bucket());
            writeBytes(out, op.key());
            writeBytes(out, op.value());
            out.putLong(op.arg());
            out.putInt(op.flags());
        }
    }

    public static List<KvOp> readOps(ByteBuffer in) {
        int n = in.getInt();
        checkCount(n, in);
        List<KvOp> ops = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            KvOp.Type type = WireCodes.lookup(TYPES, in.get(), "operation type");
            int bucket = in.getInt();
            byte[] key = readPresentBytes(in, "key of operation " + i);
            byte[] value = readBytes(in);
            ops.add(new KvOp(type, bucket, key, value, in.getLong(), in.getInt()));
        }
        return ops;
    }

    /**
     * A result list. Error payloads ({@link OpResult#payload}) follow the results as a section of their
     * own, written only when some error has one:
     * <pre>
     * [count:4]{[kind:1][result]}*                      the results, as before payloads existed
     * ([payloads:4]{[index:4][length:4][payload]}*)     optional: the payload of result #index
     * payload: [movedTo: length-prefixed UTF-8][generation:8] (later fields may follow; {@code length} skips them)
     * </pre>
     * Why a trailing section and not a field of each error: a reply without payloads is byte for byte
     * what older versions wrote, so their stored replies (Ratis's retry cache, ONCE entries) still
     * decode; and an older router, which decodes the results of a whole reply body and stops there, reads a
     * newer storage node's reply and ignores the payloads (storage nodes are upgraded before routers).
     */
    public static byte[] encodeResults(List<OpResult> results) {
        int size = 4;
        int payloads = 0;
        for (OpResult r : results) {
            size += resultSize(r);
            if (r.payload() != null) {
                payloads++;
                size += 4 + sizedPayloadBytes(r.payload());
            }
        }
        if (payloads > 0) size += 4;
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(results.size());
        for (OpResult r : results) {
            out.put(r.kind().code());
            switch (r.kind()) {
                case BULK, ARRAY, STATUS -> writeBytes(out, r.bytes());
                case INTEGER -> out.putLong(r.number());
                case ERROR -> {
                    out.putInt(r.error().code);
                    writeBytes(out, r.message().getBytes(StandardCharsets.UTF_8));
                }
                case OK -> { }
            }
        }
        if (payloads > 0) {
            out.putInt(payloads);
            for (int i = 0; i < results.size(); i++) {
                ErrorPayload p = results.get(i).payload();
                if (p == null) continue;
                out.putInt(i);
                writeSizedPayload(out, p);
            }
        }
        return out.array();
    }

    /** Decodes a whole reply body of {@link #encodeResults}, with or without its payload section. */
    public static List<OpResult> decodeResults(ByteBuffer in) {
        int n = in.getInt();
        checkCount(n, in);
        List<OpResult> results = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            OpResult.Kind kind = WireCodes.lookup(KINDS, in.get(), "result kind");
            results.add(switch (kind) {
                case BULK -> OpResult.bulk(readBytes(in));
                case ARRAY -> new OpResult(OpResult.Kind.ARRAY, readBytes(in), 0, null, null);
                case STATUS -> new OpResult(OpResult.Kind.STATUS, readBytes(in), 0, null, null);
                case INTEGER -> OpResult.integer(in.getLong());
                case OK -> OpResult.OK;
                case ERROR -> OpResult.error(ErrorCode.ofCode(in.getInt()), new String(readPresentBytes(in, "error message"), StandardCharsets.UTF_8));
            });
        }
        if (!in.hasRemaining()) return results; // no payloads (or an older writer)
        int payloads = in.getInt();
        checkCount(payloads, in);
        for (int k = 0; k < payloads; k++) {
            int i = in.getInt();
            if (i < 0 || i >= n || !results.get(i).isError()) throw new IllegalArgumentException("error payload for result " + i + " of " + n);
            OpResult r = results.get(i);
            results.set(i, OpResult.error(r.error(), r.message(), readSizedPayload(in)));
        }
        return results;
    }

    private static int resultSize(OpResult r) {
        return 1 + switch (r.kind()) {
            case BULK, ARRAY, STATUS -> 4 + (r.bytes() == null ? 0 : r.bytes().length);
            case INTEGER -> 8;
            case ERROR -> 4 + 4 + r.message().getBytes(StandardCharsets.UTF_8).length;
            case OK -> 0;
        };
    }

    /** Bytes of {@link #writeSizedPayload}'s output. */
    public static int sizedPayloadBytes(ErrorPayload p) {
        return 4 + payloadFieldBytes(p);
    }

    private static int payloadFieldBytes(ErrorPayload p) {
        return 4 + p.movedTo().getBytes(StandardCharsets.UTF_8).length + 8;
    }

    /** {@code [length:4][movedTo: length-prefixed UTF-8][generation:8]}: the length lets a reader skip fields added later. */
    public static void writeSizedPayload(ByteBuffer out, ErrorPayload p) {
        out.putInt(payloadFieldBytes(p));
        writeBytes(out, p.movedTo().getBytes(StandardCharsets.UTF_8));
        out.putLong(p.generation());
    }

    /**
     * Reads {@code [length:4][payload]}: the fields this version knows, and skips those a newer
     * writer added after them.
     */
    public static ErrorPayload readSizedPayload(ByteBuffer in) {
        int length = in.getInt();
        if (length < 0 || length > in.remaining()) throw new IllegalArgumentException("error payload length " + length);
        ByteBuffer fields = in.slice(in.position(), length);
        in.position(in.position() + length);
        return new ErrorPayload(new String(readPresentBytes(fields, "moved-to replicaset"), StandardCharsets.UTF_8), fields.getLong());
    }

    public static void writeBytes(ByteBuffer out, byte[] bytes) {
        if (bytes == null) {
            out.putInt(-1);
        } else {
            out.putInt(bytes.length);
            out.put(bytes);
        }
    }

    public static boolean readBoolean(ByteBuffer in) {
        byte b = in.get();
        if (b != 0 && b != 1) throw new IllegalArgumentException("boolean byte " + b);
        return b == 1;
    }

    public static byte[] readBytes(ByteBuffer in) {
        int len = in.getInt();
        if (len == -1) return null;
        if (len < 0) throw new IllegalArgumentException("negative length " + len);
        if (len > in.remaining()) throw new IllegalArgumentException("length " + len + " beyond message end");
        byte[] b = new byte[len];
        in.get(b);
        return b;
    }

    /** {@link #readBytes} where absence (length -1) is malformed: keys, names. */
    public static byte[] readPresentBytes(ByteBuffer in, String what) {
        byte[] b = readBytes(in);
        if (b == null) throw new IllegalArgumentException(what + " missing");
        return b;
    }

    /** A count cannot exceed the bytes left: every element takes at least one byte. */
    public static void checkCount(int n, ByteBuffer in) {
        if (n < 0 || n > in.remaining()) throw new IllegalArgumentException("bad element count " + n);
    }
}
