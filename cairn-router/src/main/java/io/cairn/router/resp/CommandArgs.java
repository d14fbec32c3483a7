package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvApplier;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.Locale;

/**
 * The arguments of one command, the name first. Accessors validate as they read: {@link #key}
 * and {@link #value} enforce the size limits, {@link #longAt} Redis integer syntax, each
 * throwing a stack-less {@link CairnException} that becomes the error reply. Arguments that
 * were too long for any key or value ({@link RequestDecoder} skipped them) hold no bytes and fail every accessor.
 */
final class CommandArgs {
    private static final byte[] NONE = new byte[0];

    private final byte[][] argv;
    /** Indexes of oversized arguments; null when there are none (the common case). */
    private final BitSet oversized;
    private final RespConfig limits;
    private String name;

    CommandArgs(byte[][] argv, BitSet oversized, RespConfig limits) {
        this.argv = argv;
        this.oversized = oversized;
        this.limits = limits;
    }

    static byte[] oversizedPlaceholder() {
        return NONE;
    }

    /**
     * Heap the command holds, roughly: its arguments and an array header for each, and the command
     * itself (what a command waiting to start counts towards its client's query buffer).
     */
    long heldBytes() {
        long sum = 32;
        for (byte[] arg : argv) sum += arg.length + 16;
        return sum;
    }

    /** Number of arguments including the command name (Redis's argc). */
    int count() {
        return argv.length;
    }

    /** The command name, lower case. */
    String name() {
        if (name == null) name = string(0).toLowerCase(Locale.ROOT);
        return name;
    }

    /** An argument as given, no size check beyond the protocol's (for names and options). */
    byte[] raw(int index) {
        if (isOversized(index)) throw valueTooLarge();
        return argv[index];
    }

    byte[] key(int index) {
        if (isOversized(index) || argv[index].length > limits.maxKeyBytes()) {
            throw new CairnException(ErrorCode.KEY_TOO_LARGE,
                    "key exceeds the configured maximum of " + limits.maxKeyBytes() + " bytes");
        }
        return argv[index];
    }

    byte[] value(int index) {
        if (isOversized(index) || argv[index].length > limits.maxValueBytes()) throw valueTooLarge();
        return argv[index];
    }

    String string(int index) {
        return new String(raw(index), StandardCharsets.UTF_8);
    }

    /** True when argument {@code index} equals {@code word} ignoring ASCII case. */
    boolean is(int index, String word) {
        byte[] arg = argv[index];
        if (arg.length != word.length()) return false;
        for (int i = 0; i < arg.length; i++) {
            if (Character.toLowerCase((char) (arg[i] & 0xff)) != Character.toLowerCase(word.charAt(i))) return false;
        }
        return true;
    }

    long longAt(int index) {
        Long parsed = KvApplier.parseLong(raw(index));
        if (parsed == null) throw new CairnException(ErrorCode.NOT_INTEGER);
        return parsed;
    }

    /** For the "unknown command" reply, which quotes what the client sent. */
    String printable(int index) {
        return isOversized(index) ? "<oversized>" : string(index);
    }

    boolean isOversized(int index) {
        return oversized != null && oversized.get(index);
    }

    private CairnException valueTooLarge() {
        return new CairnException(ErrorCode.VALUE_TOO_LARGE,
                "value exceeds the configured maximum of " + limits.maxValueBytes() + " bytes");
    }
}
