package io.cairn.core.kv;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Redis's long double arithmetic for INCRBYFLOAT-style commands, in decimal. Redis parses with
 * strtold (80-bit long double) and prints with "%.17Lf" then trims trailing zeros; adding the two
 * decimal strings exactly and rounding to 17 decimals gives the same text for every sum whose
 * digits a long double holds, and never the binary noise a Java double would show (10.5 + 0.1 is
 * "10.6", as in Redis). The range limits are the long double's. Two known differences: hex input
 * ("0x10", which strtold reads) is refused, and a result with more than ~19 significant integer
 * digits prints exactly where Redis prints the long double's binary approximation.
 */
public final class RedisFloats {
    /** LDBL_MAX of the x87 80-bit long double: strtold overflows above it, and a sum beyond it is an infinity. */
    private static final BigDecimal MAX = new BigDecimal("1.18973149535723176502e4932");
    /** Below this exponent strtold underflows (LDBL_TRUE_MIN ~ 3.6e-4951), which Redis rejects. */
    private static final int MIN_EXPONENT = -4951;
    /** Redis's MAX_LONG_DOUBLE_CHARS: longer input is not a float. */
    private static final int MAX_CHARS = 5 * 1024;
    /** Marks an infinite operand (strtold accepts "inf"; the sum is then refused, as in Redis). */
    public static final BigDecimal INFINITE = new BigDecimal("1e4933");

    private RedisFloats() {}

    /** The value of {@code bytes} as Redis's string2ld reads it, {@link #INFINITE} for an infinity, or null. */
    public static BigDecimal parse(byte[] bytes) {
        if (bytes.length == 0 || bytes.length > MAX_CHARS) return null;
        String s = new String(bytes, StandardCharsets.US_ASCII);
        if (Character.isWhitespace(s.charAt(0)) || Character.isWhitespace(s.charAt(s.length() - 1))) return null;
        String unsigned = s.startsWith("+") || s.startsWith("-") ? s.substring(1) : s;
        String word = unsigned.toLowerCase(Locale.ROOT);
        if (word.equals("inf") || word.equals("infinity")) return s.startsWith("-") ? INFINITE.negate() : INFINITE;
        if (!unsigned.isEmpty() && !Character.isDigit(unsigned.charAt(0)) && unsigned.charAt(0) != '.') return null;
        BigDecimal value;
        try {
            value = new BigDecimal(s);
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
        if (value.signum() == 0) return BigDecimal.ZERO;
        return isInfinite(value) || exponentOf(value) < MIN_EXPONENT ? null : value;
    }

    /** True when {@code value} is beyond the long double's range (an infinity). */
    public static boolean isInfinite(BigDecimal value) {
        return value.abs().compareTo(MAX) > 0;
    }

    /** The text Redis stores and replies for {@code value}: at most 17 decimals, no trailing zeros. */
    public static String format(BigDecimal value) {
        BigDecimal rounded = value.setScale(17, RoundingMode.HALF_EVEN).stripTrailingZeros();
        return rounded.signum() == 0 ? "0" : rounded.toPlainString();
    }

    private static int exponentOf(BigDecimal value) {
        return value.precision() - value.scale() - 1;
    }
}
