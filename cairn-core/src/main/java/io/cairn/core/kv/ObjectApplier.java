package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.util.List;

/**
 * OBJECT ENCODING and OBJECT REFCOUNT (issue 24): the encoding redis-server 7.0 would report for a
 * value with the same content, under its default thresholds. Cairn stores every type one way
 * (metadata plus one entry per element), so the answer is derived, not observed:
 * <ul>
 *   <li>string: "int" for a canonical 64-bit integer of at most 20 characters, "embstr" up to 44
 *       bytes, else "raw" (Redis reports "raw" for any value APPEND or SETRANGE made; Cairn cannot tell);</li>
 *   <li>hash: "listpack" up to 512 fields whose names and values are at most 64 bytes, else "hashtable";</li>
 *   <li>list: "quicklist" (Redis 7.0's only list encoding);</li>
 *   <li>set: "intset" up to 512 members that are all integers, else "hashtable";</li>
 *   <li>sorted set: "listpack" up to 128 members of at most 64 bytes, else "skiplist".</li>
 * </ul>
 * Redis never converts a big encoding back when elements are removed; Cairn answers from the
 * content now. REFCOUNT is 2147483647 for the integers 0..9999 Redis shares, else 1.
 */
final class ObjectApplier {
    private static final long ENCODING = KvOp.OBJECT_ENCODING;
    private static final long REFCOUNT = KvOp.OBJECT_REFCOUNT;

    private static final int HASH_LISTPACK_MAX_ENTRIES = 512;
    private static final int ZSET_LISTPACK_MAX_ENTRIES = 128;
    private static final int LISTPACK_MAX_VALUE_BYTES = 64;
    private static final int INTSET_MAX_ENTRIES = 512;
    private static final int EMBSTR_MAX_BYTES = 44;
    private static final long SHARED_INTEGERS = 10_000;
    private static final long SHARED_REFCOUNT = Integer.MAX_VALUE;

    private ObjectApplier() {}

    /** @param stored the live record, null when the key is absent or expired (the reply is then nil) */
    static OpResult apply(KvOp op, byte[] stored, KvView view) {
        if (op.arg() != ENCODING && op.arg() != REFCOUNT) return OpResult.error(ErrorCode.PROTOCOL, "OBJECT subcommand " + op.arg() + " is unknown");
        if (stored == null) return OpResult.NIL;
        if (op.arg() == REFCOUNT) {
            Long shared = StoredValue.isString(stored) ? integer(StoredValue.data(stored)) : null;
            return OpResult.integer(shared != null && shared >= 0 && shared < SHARED_INTEGERS ? SHARED_REFCOUNT : 1);
        }
        return OpResult.bulk(encoding(op, stored, view).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    private static String encoding(KvOp op, byte[] stored, KvView view) {
        byte type = StoredValue.type(stored);
        if (type == StoredValue.TYPE_STRING) {
            byte[] data = StoredValue.data(stored);
            if (integer(data) != null) return "int";
            return data.length <= EMBSTR_MAX_BYTES ? "embstr" : "raw";
        }
        long count = CollectionMeta.count(stored);
        return switch (type) {
            case StoredValue.TYPE_LIST -> "quicklist";
            case StoredValue.TYPE_HASH -> count <= HASH_LISTPACK_MAX_ENTRIES && allSmall(view.fields(op.bucket(), op.key()), true, 0)
                    ? "listpack" : "hashtable";
            case StoredValue.TYPE_SET -> count <= INTSET_MAX_ENTRIES && allIntegers(view.fields(op.bucket(), op.key())) ? "intset" : "hashtable";
            // A sorted set's first count entries are its members, 'M' + member (ZSetMeta).
            case StoredValue.TYPE_ZSET -> count <= ZSET_LISTPACK_MAX_ENTRIES && allSmall(view.fields(op.bucket(), op.key(), 0, (int) count), false, 1)
                    ? "listpack" : "skiplist";
            default -> "unknown";
        };
    }

    private static boolean allSmall(List<KvView.Field> fields, boolean withValues, int namePrefixBytes) {
        for (KvView.Field f : fields) {
            if (f.name().length - namePrefixBytes > LISTPACK_MAX_VALUE_BYTES) return false;
            if (withValues && f.value().length > LISTPACK_MAX_VALUE_BYTES) return false;
        }
        return true;
    }

    private static boolean allIntegers(List<KvView.Field> members) {
        for (KvView.Field f : members) if (integer(f.name()) == null) return false;
        return true;
    }

    /** Redis's string2ll: a canonical decimal long (no sign but '-', no leading zero, no "-0"), at most 20 characters. */
    static Long integer(byte[] text) {
        if (text.length == 0 || text.length > 20) return null;
        if (text.length == 1 && text[0] == '0') return 0L;
        int i = text[0] == '-' ? 1 : 0;
        if (i == text.length || text[i] < '1' || text[i] > '9') return null;
        for (int j = i; j < text.length; j++) if (text[j] < '0' || text[j] > '9') return null;
        try {
            return Long.parseLong(new String(text, java.nio.charset.StandardCharsets.US_ASCII));
        } catch (NumberFormatException overflow) {
            return null;
        }
    }
}
