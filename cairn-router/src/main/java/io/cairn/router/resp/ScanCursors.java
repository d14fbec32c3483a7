package io.cairn.router.resp;

import io.cairn.core.wire.KeyPage.Position;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * SCAN cursors. A cursor must be a decimal unsigned 64-bit number (redis-cli parses it with
 * strtoull), too small for a key, so it carries the bucket in its high 32 bits and a token in
 * the low 32: token 0 means "from the bucket's first key"; another token names the last key
 * returned, kept in this router's bounded table. A cursor whose token is unknown here (evicted,
 * another router, a restart) restarts its bucket: keys may then come twice, never go missing.
 * Cursor 0 is the start and the end, as in Redis.
 */
final class ScanCursors {
    /** Keys remembered for unfinished buckets; the oldest are forgotten first. */
    static final int MAX_TOKENS = 10_000;

    private record Remembered(int bucket, byte[] afterKey) {}

    private final Map<Integer, Remembered> tokens = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Remembered> eldest) {
            return size() > MAX_TOKENS;
        }
    };
    private int nextToken = 1;

    /** The cursor to hand out for {@code next} (0 when the scan is complete). */
    synchronized String encode(Position next) {
        if (next == null) return "0";
        long token = 0;
        if (next.afterKey() != null) {
            token = nextToken;
            tokens.put(nextToken, new Remembered(next.bucket(), next.afterKey()));
            nextToken = nextToken == Integer.MAX_VALUE ? 1 : nextToken + 1;
        }
        return Long.toUnsignedString(((long) next.bucket() << 32) | token);
    }

    /** The position a client's cursor stands for, or null when it is not a cursor of {@code bucketCount} buckets. */
    synchronized Position decode(String cursor, int bucketCount) {
        long value;
        try {
            value = Long.parseUnsignedLong(cursor);
        } catch (NumberFormatException e) {
            return null;
        }
        if (value == 0) return Position.START;
        long bucket = value >>> 32;
        int token = (int) value;
        if (bucket < 1 || bucket > bucketCount || token < 0) return null;
        Remembered r = token == 0 ? null : tokens.get(token);
        return r != null && r.bucket() == bucket ? new Position((int) bucket, r.afterKey()) : new Position((int) bucket, null);
    }
}
