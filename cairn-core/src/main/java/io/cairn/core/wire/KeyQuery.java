package io.cairn.core.wire;

import io.cairn.core.WireCodes;
import io.cairn.core.kv.OpCodec;

import java.nio.ByteBuffer;

/**
 * A read-only question about a replicaset's keys, answered by its leader with a {@link KeyPage}.
 *
 * <ul>
 *   <li>{@link Scope#COUNT_OWNED}: keys of the buckets it owns; needs the storage ref {@code refId}
 *       (so no bucket is in transfer and the count is exact).</li>
 *   <li>{@link Scope#LIST_OWNED}: keys of owned buckets after {@code from}, in (bucket, key) order;
 *       needs the storage ref.</li>
 *   <li>{@link Scope#LIST_RANGE}: keys of buckets {@code from.bucket()..toBucket} after {@code from},
 *       for SCAN; needs no ref, and stops with WRONG_BUCKET at the first bucket it does not serve.</li>
 * </ul>
 * Pages are bounded by {@code maxKeys} and {@code maxBytes} (at least one key is always returned).
 *
 * <pre>[scope:1][refId:8][fromBucket:4][afterKey: len or -1][toBucket:4][maxKeys:4][maxBytes:4]</pre>
 */
public record KeyQuery(Scope scope, long refId, KeyPage.Position from, int toBucket, int maxKeys, int maxBytes) {
    /** What a key query asks for; its code is sent on the wire: never renumber one. */
    public enum Scope {
        COUNT_OWNED(0), LIST_OWNED(1), LIST_RANGE(2);

        private final byte code;

        Scope(int code) {
            this.code = (byte) code;
        }

        public byte code() {
            return code;
        }
    }

    /** Upper bounds a replicaset applies whatever the query asks. */
    public static final int MAX_KEYS_PER_PAGE = 10_000;
    public static final int MAX_BYTES_PER_PAGE = 4 << 20;

    private static final Scope[] SCOPES = WireCodes.index(Scope.values(), Scope::code);

    public static KeyQuery countOwned(long refId) {
        return new KeyQuery(Scope.COUNT_OWNED, refId, KeyPage.Position.START, 0, 0, 0);
    }

    public static KeyQuery listOwned(long refId, KeyPage.Position from, int maxKeys, int maxBytes) {
        return new KeyQuery(Scope.LIST_OWNED, refId, from, Integer.MAX_VALUE, maxKeys, maxBytes);
    }

    public static KeyQuery listRange(KeyPage.Position from, int toBucket, int maxKeys, int maxBytes) {
        return new KeyQuery(Scope.LIST_RANGE, 0, from, toBucket, maxKeys, maxBytes);
    }

    public int boundedMaxKeys() {
        return Math.max(1, Math.min(maxKeys, MAX_KEYS_PER_PAGE));
    }

    public int boundedMaxBytes() {
        return Math.max(1, Math.min(maxBytes, MAX_BYTES_PER_PAGE));
    }

    public byte[] encode() {
        byte[] after = from.afterKey();
        ByteBuffer out = ByteBuffer.allocate(1 + 1 + 8 + 4 + 4 + (after == null ? 0 : after.length) + 4 + 4 + 4);
        out.put(StorageRequest.Kind.KEY_QUERY.code());
        out.put(scope.code()).putLong(refId).putInt(from.bucket());
        OpCodec.writeBytes(out, after);
        out.putInt(toBucket).putInt(maxKeys).putInt(maxBytes);
        return out.array();
    }

    /** Decodes the query after the kind byte. */
    public static KeyQuery decode(ByteBuffer in) {
        Scope scope = WireCodes.lookup(SCOPES, in.get(), "key query scope");
        long refId = in.getLong();
        KeyPage.Position from = new KeyPage.Position(in.getInt(), OpCodec.readBytes(in));
        return new KeyQuery(scope, refId, from, in.getInt(), in.getInt(), in.getInt());
    }
}
