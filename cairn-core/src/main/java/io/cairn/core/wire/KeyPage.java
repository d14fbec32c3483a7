package io.cairn.core.wire;

import io.cairn.core.ErrorCode;
import io.cairn.core.ErrorPayload;
import io.cairn.core.kv.OpCodec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A replicaset's answer to a {@link KeyQuery}.
 *
 * @param error   null when the query was answered; else why not (the keys before the refusal are still valid)
 * @param count   COUNT_OWNED: the number of keys
 * @param keys    listed keys in (bucket, key) order
 * @param next    where to continue, or null when the scope is exhausted
 * @param payload a refusal's typed hint (where the bucket at {@code next} moved), or null
 */
public record KeyPage(ErrorCode error, String message, long count, List<Entry> keys, Position next, ErrorPayload payload) {
    public record Entry(int bucket, byte[] key) {}

    /**
     * A place in (bucket, key) order: the keys of {@code bucket} strictly after {@code afterKey}
     * (every key of the bucket when {@code afterKey} is null), then the following buckets.
     */
    public record Position(int bucket, byte[] afterKey) {
        public static final Position START = new Position(1, null);
    }

    public static KeyPage count(long n) {
        return new KeyPage(null, "", n, List.of(), null, null);
    }

    public static KeyPage refused(ErrorCode error, String message, List<Entry> keys, Position next) {
        return refused(error, message, keys, next, null);
    }

    public static KeyPage refused(ErrorCode error, String message, List<Entry> keys, Position next, ErrorPayload payload) {
        return new KeyPage(error, message, 0, keys, next, payload);
    }

    public boolean isError() {
        return error != null;
    }

    /**
     * {@code [error:4][message][count:8][keys:4]{[bucket:4][key]}*[hasNext:1]([bucket:4][afterKey])([payload])}:
     * the payload ({@link OpCodec#writeSizedPayload}) comes last and only when there is one, so a page
     * without it is what older versions wrote, and an older reader, which stops after {@code next}, ignores it.
     */
    public byte[] encode() {
        byte[] msg = message.getBytes(StandardCharsets.UTF_8);
        int size = 4 + 4 + msg.length + 8 + 4;
        for (Entry e : keys) size += 4 + 4 + e.key().length;
        size += 1 + (next == null ? 0 : 4 + 4 + (next.afterKey() == null ? 0 : next.afterKey().length));
        if (payload != null) size += OpCodec.sizedPayloadBytes(payload);
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(error == null ? 0 : error.code);
        OpCodec.writeBytes(b, msg);
        b.putLong(count).putInt(keys.size());
        for (Entry e : keys) {
            b.putInt(e.bucket());
            OpCodec.writeBytes(b, e.key());
        }
        b.put((byte) (next == null ? 0 : 1));
        if (next != null) {
            b.putInt(next.bucket());
            OpCodec.writeBytes(b, next.afterKey());
        }
        if (payload != null) OpCodec.writeSizedPayload(b, payload);
        return b.array();
    }

    public static KeyPage decode(ByteBuffer in) {
        int code = in.getInt();
        String message = new String(OpCodec.readPresentBytes(in, "message"), StandardCharsets.UTF_8);
        long count = in.getLong();
        int n = in.getInt();
        OpCodec.checkCount(n, in);
        List<Entry> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) keys.add(new Entry(in.getInt(), OpCodec.readBytes(in)));
        Position next = OpCodec.readBoolean(in) ? new Position(in.getInt(), OpCodec.readBytes(in)) : null;
        ErrorPayload payload = in.hasRemaining() ? OpCodec.readSizedPayload(in) : null;
        return new KeyPage(code == 0 ? null : ErrorCode.ofCode(code), message, count, List.copyOf(keys), next, payload);
    }
}
