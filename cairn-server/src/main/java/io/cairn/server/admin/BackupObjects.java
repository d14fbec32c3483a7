package io.cairn.server.admin;

import io.cairn.archive.ArchiveRef;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * One backup object as the admin routes pass it (docs/archive.md, "Backup and restore"): one line,
 * {@code key generation keyCount byteCount sizeBytes sha256}, space-separated (keys have no spaces:
 * {@link io.cairn.archive.ObjectKeys}).
 */
public final class BackupObjects {
    private BackupObjects() {}

    public static String line(ArchiveRef r) {
        return r.objectKey() + " " + r.generation() + " " + r.keyCount() + " " + r.byteCount() + " " + r.sizeBytes() + " " + r.contentHash();
    }

    public static ArchiveRef parse(int bucket, String line) {
        String[] f = line.trim().split(" ");
        try {
            if (f.length != 6) throw new NumberFormatException("6 fields expected, got " + f.length);
            return new ArchiveRef(f[0], bucket, Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]), f[5]);
        } catch (NumberFormatException e) {
            throw new CairnException(ErrorCode.INVALID_CONFIG, "not a backup object line (" + e.getMessage() + "): " + line);
        }
    }

    /** The query's parameters, URL-decoded (the last of a repeated name wins). */
    public static Map<String, String> query(String rawQuery) {
        Map<String, String> out = new HashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) return out;
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) continue;
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }
}
