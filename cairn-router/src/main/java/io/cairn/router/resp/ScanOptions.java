package io.cairn.router.resp;

import java.util.Locale;

/**
 * The options of SCAN and HSCAN: {@code [MATCH pattern] [COUNT count]}, and {@code [TYPE type]}
 * for SCAN. Parsed once here so both answer a bad option with the same syntax error.
 *
 * @param pattern the MATCH pattern (latin-1), null when none
 * @param type    the TYPE, lower case, null when none
 */
record ScanOptions(String pattern, long count, String type) {
    /** The options from argument {@code first} on; null for a syntax error (Redis answers "ERR syntax error"). */
    static ScanOptions parse(CommandArgs args, int first, boolean typeAllowed) {
        String pattern = null;
        long count = KeyspaceCommands.DEFAULT_SCAN_COUNT;
        String type = null;
        for (int i = first; i < args.count(); i++) {
            if (i + 1 >= args.count()) return null;
            if (args.is(i, "match")) {
                pattern = KeyspaceCommands.latin1(args.raw(++i));
            } else if (args.is(i, "count")) {
                count = args.longAt(++i);
                if (count < 1) return null;
            } else if (typeAllowed && args.is(i, "type")) {
                type = args.string(++i).toLowerCase(Locale.ROOT);
            } else {
                return null;
            }
        }
        return new ScanOptions(pattern, count, type);
    }
}
