package io.cairn.core.kv;

import java.util.Arrays;

/** The score and member intervals of ZCOUNT, ZRANGE BYSCORE / BYLEX and ZREMRANGEBY*, parsed as Redis 7 reads them. */
public final class ZRanges {
    private ZRanges() {}

    /** A score interval; "(" makes an end exclusive. */
    public record Scores(double min, boolean minExclusive, double max, boolean maxExclusive) {
        public boolean contains(double score) {
            return (minExclusive ? score > min : score >= min) && (maxExclusive ? score < max : score <= max);
        }

        /** Above the interval's top: a walk in ascending order can stop. */
        boolean above(double score) {
            return maxExclusive ? score >= max : score > max;
        }
    }

    /** A member interval in byte order; null bounds are "-" and "+". */
    public record Members(byte[] min, boolean minExclusive, byte[] max, boolean maxExclusive, boolean minIsPlus, boolean maxIsMinus) {
        public boolean contains(byte[] member) {
            if (minIsPlus || maxIsMinus) return false;
            if (min != null) {
                int c = Arrays.compareUnsigned(member, min);
                if (minExclusive ? c <= 0 : c < 0) return false;
            }
            if (max != null) {
                int c = Arrays.compareUnsigned(member, max);
                return maxExclusive ? c < 0 : c <= 0;
            }
            return true;
        }
    }

    /** Null when either end is not a score (Redis: "min or max is not a float"). */
    public static Scores scores(byte[] min, byte[] max) {
        Double lo = score(min);
        Double hi = score(max);
        if (lo == null || hi == null) return null;
        return new Scores(lo, isExclusive(min), hi, isExclusive(max));
    }

    private static boolean isExclusive(byte[] bound) {
        return bound.length > 0 && bound[0] == '(';
    }

    private static Double score(byte[] bound) {
        byte[] text = isExclusive(bound) ? Arrays.copyOfRange(bound, 1, bound.length) : bound;
        Double d = ZSetMeta.parseScore(text);
        return d == null || d.isNaN() ? null : d;
    }

    /** Null when either end is not "-", "+" or "[" / "(" and a member (Redis: "min or max not valid string range item"). */
    public static Members members(byte[] min, byte[] max) {
        if (!validLex(min) || !validLex(max)) return null;
        boolean minIsPlus = min.length == 1 && min[0] == '+';
        boolean maxIsMinus = max.length == 1 && max[0] == '-';
        return new Members(bound(min), min[0] == '(', bound(max), max[0] == '(', minIsPlus, maxIsMinus);
    }

    private static boolean validLex(byte[] b) {
        if (b.length == 0) return false;
        if (b.length == 1 && (b[0] == '-' || b[0] == '+')) return true;
        return b[0] == '(' || b[0] == '[';
    }

    /** The member of a "[" / "(" bound; null for "-" and "+" (open ends). */
    private static byte[] bound(byte[] b) {
        return b[0] == '(' || b[0] == '[' ? Arrays.copyOfRange(b, 1, b.length) : null;
    }
}
