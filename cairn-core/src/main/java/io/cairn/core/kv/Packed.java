package io.cairn.core.kv;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** A list of byte strings (null allowed) in one array: [count:4] then per element [length:4, -1 for null][bytes]. */
public final class Packed {
    private Packed() {}

    public static byte[] encode(List<byte[]> elements) {
        int size = 4;
        for (byte[] e : elements) size += 4 + (e == null ? 0 : e.length);
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(elements.size());
        for (byte[] e : elements) OpCodec.writeBytes(out, e);
        return out.array();
    }

    public static List<byte[]> decode(byte[] packed) {
        return decode(ByteBuffer.wrap(packed));
    }

    public static List<byte[]> decode(ByteBuffer in) {
        int n = in.getInt();
        OpCodec.checkCount(n, in);
        List<byte[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(OpCodec.readBytes(in));
        return out;
    }
}
