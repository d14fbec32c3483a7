package io.cairn.router.resp;

import java.util.Locale;

/**
 * Redis-style glob matching (*, ?, [abc], [^a-z], backslash escapes), ignoring case or not. Uses the
 * two-pointer algorithm that only backtracks to the last '*', so a hostile pattern costs
 * O(pattern x text), not exponential time on the event loop.
 */
final class Glob {
    private Glob() {}

    static boolean matches(String pattern, String text) {
        return matchesExactly(pattern.toLowerCase(Locale.ROOT), text.toLowerCase(Locale.ROOT));
    }

    /**
     * Case-sensitive, as KEYS and SCAN MATCH are in Redis. Keys and patterns are bytes: pass them
     * decoded as ISO-8859-1 (one char per byte) to match byte by byte.
     */
    static boolean matchesExactly(String p, String s) {
        int pi = 0;
        int si = 0;
        int starPi = -1;
        int starSi = -1;
        while (si < s.length()) {
            int next = pi < p.length() ? matchOne(p, pi, s.charAt(si)) : -1;
            if (pi < p.length() && p.charAt(pi) == '*') {
                starPi = pi++;
                starSi = si;
            } else if (next >= 0) {
                pi = next;
                si++;
            } else if (starPi >= 0) {
                pi = starPi + 1;
                si = ++starSi;
            } else {
                return false;
            }
        }
        while (pi < p.length() && p.charAt(pi) == '*') pi++;
        return pi == p.length();
    }

    /** If the pattern element at {@code pi} matches {@code ch}, the index after it; else -1. */
    private static int matchOne(String p, int pi, char ch) {
        char c = p.charAt(pi);
        if (c == '[') {
            int end = p.indexOf(']', pi + 1);
            if (end < 0) return c == ch ? pi + 1 : -1;
            return inClass(p.substring(pi + 1, end), ch) ? end + 1 : -1;
        }
        if (c == '\\' && pi + 1 < p.length()) return p.charAt(pi + 1) == ch ? pi + 2 : -1;
        return c == '?' || c == ch ? pi + 1 : -1;
    }

    private static boolean inClass(String cls, char ch) {
        boolean negate = cls.startsWith("^");
        boolean found = false;
        for (int i = negate ? 1 : 0; i < cls.length(); i++) {
            if (i + 2 < cls.length() && cls.charAt(i + 1) == '-') {
                char lo = (char) Math.min(cls.charAt(i), cls.charAt(i + 2));
                char hi = (char) Math.max(cls.charAt(i), cls.charAt(i + 2));
                found |= ch >= lo && ch <= hi;
                i += 2;
            } else {
                found |= cls.charAt(i) == ch;
            }
        }
        return found != negate;
    }
}
