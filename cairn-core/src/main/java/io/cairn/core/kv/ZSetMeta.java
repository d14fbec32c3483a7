package io.cairn.core.kv;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * How a sorted set is stored (see {@link CollectionMeta}): the metadata is the header and the member
 * count; each member has two field entries, as Kvrocks keeps a score index beside its members:
 * <ul>
 *   <li>{@code 'M' + member} -> the score's 8 bytes (a point read for ZSCORE, ZADD, ZREM);</li>
 *   <li>{@code 'S' + ordered score + member} -> empty: the score index, in (score, member) order as
 *       Redis orders a sorted set, since {@link #orderedScore} sorts like the numbers.</li>
 * </ul>
 * 'M' sorts before 'S', so in field order the member entries come first and the score index
 * starts at position {@code count}: rank r is the field at position count + r, which ZRANGE by rank
 * reads without touching the others.
 */
public final class ZSetMeta {
    static final byte MEMBER = 'M';
    static final byte SCORE = 'S';

    private ZSetMeta() {}

    public static boolean isZSet(byte[] stored) {
        return stored != null && stored.length > 0 && StoredValue.type(stored) == StoredValue.TYPE_ZSET;
    }

    static byte[] memberField(byte[] member) {
        byte[] out = new byte[1 + member.length];
        out[0] = MEMBER;
        System.arraycopy(member, 0, out, 1, member.length);
        return out;
    }

    static byte[] scoreField(double score, byte[] member) {
        return ByteBuffer.allocate(9 + member.length).put(SCORE).putLong(orderedScore(score)).put(member).array();
    }

    static double scoreOfScoreField(byte[] field) {
        long ordered = ByteBuffer.wrap(field, 1, 8).getLong();
        long bits = ordered < 0 ? ordered ^ Long.MIN_VALUE : ~ordered;
        return Double.longBitsToDouble(bits);
    }

    static byte[] memberOfScoreField(byte[] field) {
        return Arrays.copyOfRange(field, 9, field.length);
    }

    static byte[] scoreBytes(double score) {
        return ByteBuffer.allocate(8).putDouble(score).array();
    }

    static double score(byte[] value) {
        return ByteBuffer.wrap(value).getDouble();
    }

    /**
     * A double as 8 bytes whose unsigned order is the numbers' order: positive numbers get the sign
     * bit set, negative ones all bits flipped (IEEE 754's sign-magnitude made two's-complement-like).
     * -0.0 is stored as 0.0, which Redis treats as the same score.
     */
    static long orderedScore(double score) {
        long bits = Double.doubleToLongBits(score == 0.0 ? 0.0 : score);
        return bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
    }

    /**
     * A score as redis-server 7.0 replies it: C's "%.17g" ("0.10000000000000001", "1e+20",
     * "1.2345678901234568e+17"), and "inf" / "-inf".
     */
    public static String format(double score) {
        if (Double.isInfinite(score)) return score > 0 ? "inf" : "-inf";
        if (score == 0.0) return "0";
        BigDecimal rounded = new BigDecimal(score).round(new MathContext(17, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= 17) {
            String digits = rounded.unscaledValue().abs().toString().replaceAll("0+$", "");
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            String sign = rounded.signum() < 0 ? "-" : "";
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
        }
        return rounded.stripTrailingZeros().toPlainString();
    }

    /**
     * A score as redis-server 7.0's d2string writes it, which ZSCAN replies: an integral score within
     * the long range as an integer ("123456789012345680"), anything else as {@link #format} does.
     */
    public static String formatForScan(double score) {
        if (!Double.isInfinite(score) && score == Math.rint(score) && Math.abs(score) < 9.2e18) return Long.toString((long) score);
        return format(score);
    }

    /**
     * A score argument as Redis reads it (strtod: decimal, exponent, "inf"; no spaces, no NaN, no
     * overflow or underflow to zero), or null when it is not one.
     */
    public static Double parseScore(byte[] text) {
        BigDecimal value = RedisFloats.parse(text);
        if (value == null) return null;
        if (value == RedisFloats.INFINITE) return Double.POSITIVE_INFINITY;
        if (value.equals(RedisFloats.INFINITE.negate())) return Double.NEGATIVE_INFINITY;
        double d = value.doubleValue();
        if (Double.isInfinite(d) || (d == 0.0 && value.signum() != 0)) return null;
        return d;
    }
}
