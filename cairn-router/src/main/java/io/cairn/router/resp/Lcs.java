package io.cairn.router.resp;

import java.util.ArrayList;
import java.util.List;

/**
 * The longest common subsequence of two byte strings, as redis-server 7.0's LCS computes it: the
 * classic dynamic-programming table, then one walk back from its end that rebuilds the subsequence
 * and the ranges of contiguous matches (last match first), choosing the same direction as Redis on
 * ties so IDX reports the same ranges. The table is (|a|+1)(|b|+1) ints, so the caller bounds it.
 */
final class Lcs {
    /** One run of contiguous matching bytes: inclusive positions in a and in b. */
    record Match(int aStart, int aEnd, int bStart, int bEnd) {
        int length() {
            return aEnd - aStart + 1;
        }
    }

    /** @param matches the ranges of at least the minimum length, in Redis's order (from the strings' ends) */
    record Result(byte[] subsequence, int length, List<Match> matches) {}

    private Lcs() {}

    static long cells(byte[] a, byte[] b) {
        return (a.length + 1L) * (b.length + 1L);
    }

    static Result of(byte[] a, byte[] b, long minMatchLength) {
        int alen = a.length;
        int blen = b.length;
        int width = blen + 1;
        int[] table = new int[(alen + 1) * width];
        for (int i = 1; i <= alen; i++) {
            for (int j = 1; j <= blen; j++) {
                table[i * width + j] = a[i - 1] == b[j - 1] ? table[(i - 1) * width + j - 1] + 1
                        : Math.max(table[(i - 1) * width + j], table[i * width + j - 1]);
            }
        }
        int length = table[alen * width + blen];
        byte[] subsequence = new byte[length];
        List<Match> matches = new ArrayList<>();
        int idx = length;
        // alen as aStart means "no range open", as in Redis.
        int aStart = alen, aEnd = 0, bStart = 0, bEnd = 0;
        int i = alen;
        int j = blen;
        while (i > 0 && j > 0) {
            boolean emit = false;
            if (a[i - 1] == b[j - 1]) {
                subsequence[--idx] = a[i - 1];
                if (aStart == alen) {
                    aStart = aEnd = i - 1;
                    bStart = bEnd = j - 1;
                } else if (aStart == i && bStart == j) {
                    aStart--;
                    bStart--;
                } else {
                    emit = true;
                }
                if (aStart == 0 || bStart == 0) emit = true;
                i--;
                j--;
            } else {
                if (table[(i - 1) * width + j] > table[i * width + j - 1]) i--;
                else j--;
                if (aStart != alen) emit = true;
            }
            if (emit) {
                Match m = new Match(aStart, aEnd, bStart, bEnd);
                if (minMatchLength == 0 || m.length() >= minMatchLength) matches.add(m);
                aStart = alen;
            }
        }
        return new Result(subsequence, length, matches);
    }
}
