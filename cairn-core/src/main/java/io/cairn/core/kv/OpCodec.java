package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Compact binary encoding of operation and result lists (big endian, length-prefixed). */
public final class OpCodec {
    private static final KvOp.Type[] TYPES = io.cairn.core.WireCodes.index(KvOp.Type.values(), KvOp.Type::code);
    private static final OpResult.Kind[] KINDS = io.cairn.core.WireCodes.index(OpResult.Kind.values(), OpResult.Kind::code);

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
            KvOp.Type type = io.cairn.core.WireCodes.lookup(TYPES, in.get(), "operation type");
            int bucket = in.getInt();
            byte[] key = readPresentBytes(in, "key of operation " + i);
            byte[] value = readBytes(in);
            ops.add(new KvOp(type, bucket, key, value, in.getLong(), in.getInt()));
        }
        return ops;
    }

    public static byte[] encodeResults(List<OpResult> results) {
        int size = 4;
        for (OpResult r : results) size += resultSize(r);
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
        return out.array();
    }

    public static List<OpResult> decodeResults(ByteBuffer in) {
        int n = in.getInt();
        checkCount(n, in);
        List<OpResult> results = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            OpResult.Kind kind = io.cairn.core.WireCodes.lookup(KINDS, in.get(), "result kind");
            results.add(switch (kind) {
                case BULK -> OpResult.bulk(readBytes(in));
                case ARRAY -> new OpResult(OpResult.Kind.ARRAY, readBytes(in), 0, null, null);
                case STATUS -> new OpResult(OpResult.Kind.STATUS, readBytes(in), 0, null, null);
                case INTEGER -> OpResult.integer(in.getLong());
                case OK -> OpResult.OK;
                case ERROR -> OpResult.error(ErrorCode.ofCode(in.getInt()), new String(readPresentBytes(in, "error message"), StandardCharsets.UTF_8));
            });
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
