package io.cairn.core;

import java.util.Arrays;
import java.util.function.Function;

/**
 * Lookup tables for enums whose constants carry a fixed one-byte code (stored in RocksDB or the
 * Raft log, sent on the wire): the code, not the ordinal, is what lasts, so reordering or adding
 * constants never changes what stored bytes mean.
 */
public final class WireCodes {
    private WireCodes() {
    }

    /** A table from code to constant; refuses negative and duplicate codes. */
    public static <E extends Enum<E>> E[] index(E[] constants, Function<E, Byte> code) {
        int max = 0;
        for (E e : constants) max = Math.max(max, code.apply(e));
        E[] table = Arrays.copyOf(constants, max + 1);
        Arrays.fill(table, null);
        for (E e : constants) {
            int c = code.apply(e);
            if (c < 0 || table[c] != null) throw new IllegalStateException("bad or duplicate code " + c + " for " + e);
            table[c] = e;
        }
        return table;
    }

    /** The constant with {@code code}. @throws IllegalArgumentException for a code none has */
    public static <E extends Enum<E>> E lookup(E[] table, byte code, String what) {
        if (code < 0 || code >= table.length || table[code] == null) throw new IllegalArgumentException("unknown " + what + " " + code);
        return table[code];
    }
}
