package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.nio.BufferUnderflowException;
import java.nio.charset.StandardCharsets;

/**
 * Redis string semantics over a {@link KvView}, deterministic in {@code nowMs}. The same code
 * runs on every replica with the leader's timestamp of the log entry, so expiry decisions
 * never differ between replicas. Expired values read as absent and are deleted when a write
 * touches them. Hash, list, set and sorted set commands are {@link HashApplier}'s, {@link ListApplier}'s,
 * {@link SetApplier}'s and {@link ZSetApplier}'s; string commands that read a value answer Redis's WRONGTYPE on a collection,
 * and commands on any key (DEL, EXISTS, TYPE, expiry) take every type.
 */
public final class KvApplier {
    private final int maxValueBytes;
    private final HashApplier hashes;
    private final StringEditApplier edits;
    private final KeyCopyApplier copies = new KeyCopyApplier();
    private final ListApplier lists;
    private final SetApplier sets;
    private final ZSetApplier zsets;
    private final ZSetAlgebraApplier zsetAlgebra;

    public KvApplier(int maxValueBytes) {
        this.maxValueBytes = maxValueBytes;
        this.hashes = new HashApplier(maxValueBytes);
        this.edits = new StringEditApplier(maxValueBytes);
        this.lists = new ListApplier(maxValueBytes);
        this.sets = new SetApplier(maxValueBytes);
        this.zsets = new ZSetApplier(maxValueBytes);
        this.zsetAlgebra = new ZSetAlgebraApplier(maxValueBytes);
    }

    public OpResult apply(KvOp op, KvView view, long nowMs) {
        if (op.type() == KvOp.Type.BUCKET_VERSION || op.type() == KvOp.Type.TX_GUARD) {
            return OpResult.error(ErrorCode.PROTOCOL, op.type() + " is answered by the store, not on its own");
        }
        byte[] raw = view.get(op.bucket(), op.key());
        if (op.type() == KvOp.Type.DEL_IF_EXPIRED) {
            // Re-checked at apply time: the key may have been written again since the sweeper saw it.
            if (raw == null || !StoredValue.isExpired(raw, nowMs)) return OpResult.integer(0);
            deleteRecord(op, raw, view);
            return OpResult.integer(1);
        }
        byte[] stored = live(raw, nowMs);
        if (op.type() == KvOp.Type.OBJECT) return ObjectApplier.apply(op, stored, view);
        if (op.type() == KvOp.Type.DUMP) return DumpApplier.dump(op, stored, view, maxValueBytes);
        if (op.type() == KvOp.Type.RESTORE) return DumpApplier.restore(op, raw, stored, view, nowMs, maxValueBytes);
        if (KvOp.HASH_TYPES.contains(op.type())) return hashes.apply(op, raw, stored, view);
        // Refused alike on every replica: a request that did not come through a router may lack it.
        if (op.value() == null && needsValue(op.type())) return OpResult.error(ErrorCode.PROTOCOL, op.type() + " without a value");
        if (op.type() == KvOp.Type.RENAME || op.type() == KvOp.Type.RENAMENX || op.type() == KvOp.Type.COPY) {
            return copies.apply(op, raw, stored, view, nowMs);
        }
        try {
            if (KvOp.LIST_TYPES.contains(op.type())) return lists.apply(op, raw, stored, view, nowMs);
            if (KvOp.SET_TYPES.contains(op.type())) return sets.apply(op, raw, stored, view, nowMs);
            if (KvOp.ZSET_TYPES.contains(op.type())) return zsets.apply(op, raw, stored, view, nowMs);
            if (KvOp.ZSET_ALGEBRA.contains(op.type())) return zsetAlgebra.apply(op, raw, view, nowMs);
        } catch (IllegalArgumentException | BufferUnderflowException malformed) {
            // The collections check their arguments before they write anything: refused alike on every replica.
            return OpResult.error(ErrorCode.PROTOCOL, op.type() + " arguments are malformed: " + malformed.getMessage());
        }
        if (stored != null && !StoredValue.isString(stored) && readsString(op)) return HashApplier.wrongType();
        if (KvOp.STRING_EDITS.contains(op.type())) return edits.apply(op, raw, stored, view, nowMs);
        return switch (op.type()) {
            case GET -> OpResult.bulk(stored == null ? null : StoredValue.data(stored));
            case EXISTS -> OpResult.integer(stored == null ? 0 : 1);
            case TYPE -> OpResult.status(stored == null ? "none" : StoredValue.typeName(stored));
            case STRLEN -> OpResult.integer(stored == null ? 0 : StoredValue.dataLength(stored));
            case PTTL -> OpResult.integer(op.has(KvOp.FLAG_EXPIRE_ABS) ? expireTime(stored) : pttl(stored, nowMs));
            case SET -> set(op, raw, stored, view, nowMs);
            case DEL -> delete(op, raw, stored, view, false);
            case GETDEL -> delete(op, raw, stored, view, true);
            case INCRBY -> incrBy(op, stored, view);
            case APPEND -> append(op, stored, view);
            case PEXPIRE -> expire(op, raw, stored, view, nowMs);
            case PERSIST -> persist(op, stored, view);
            default -> throw new IllegalStateException(op.type() + " handled above");
        };
    }

    private static boolean needsValue(KvOp.Type type) {
        return switch (type) {
            case SET, APPEND, SETRANGE, INCRBYFLOAT, SETBIT, MSETNX, RENAME, RENAMENX, COPY -> true;
            default -> false;
        };
    }

    /** String commands that read the value answer WRONGTYPE on another type; SET without GET overwrites any. */
    private static boolean readsString(KvOp op) {
        return switch (op.type()) {
            case GET, STRLEN, INCRBY, APPEND, GETDEL, GETEX, SETRANGE, INCRBYFLOAT, SETBIT -> true;
            case SET -> op.has(KvOp.FLAG_GET);
            default -> false;
        };
    }

    /** Deletes a key's record and, for a collection, its elements (see {@link HashMeta} for why not lazily). */
    private static void deleteRecord(KvOp op, byte[] raw, KvView view) {
        deleteRecord(op.bucket(), op.key(), raw, view);
    }

    static void deleteRecord(int bucket, byte[] key, byte[] raw, KvView view) {
        if (CollectionMeta.isCollection(raw)) view.clearFields(bucket, key, CollectionMeta.entryCount(raw));
        view.delete(bucket, key);
    }

    private static byte[] live(byte[] stored, long nowMs) {
        return stored == null || StoredValue.isExpired(stored, nowMs) ? null : stored;
    }

    private static long pttl(byte[] stored, long nowMs) {
        if (stored == null) return -2;
        long at = StoredValue.expireAtMs(stored);
        return at == 0 ? -1 : Math.max(0, at - nowMs);
    }

    /** PEXPIRETIME: the absolute expiry in unix ms; -1 without one, -2 for no key. */
    private static long expireTime(byte[] stored) {
        if (stored == null) return -2;
        long at = StoredValue.expireAtMs(stored);
        return at == 0 ? -1 : at;
    }

    private OpResult set(KvOp op, byte[] raw, byte[] stored, KvView view, long nowMs) {
        if (op.value().length > maxValueBytes) return tooLarge(op.value().length);
        boolean exists = stored != null;
        OpResult previous = op.has(KvOp.FLAG_GET) ? OpResult.bulk(exists ? StoredValue.data(stored) : null) : OpResult.OK;
        if (op.has(KvOp.FLAG_NX) && exists || op.has(KvOp.FLAG_XX) && !exists) {
            return op.has(KvOp.FLAG_GET) ? previous : OpResult.NIL;
        }
        long expireAt = 0;
        if (op.has(KvOp.FLAG_EXPIRE_REL)) expireAt = nowMs + op.arg();
        else if (op.has(KvOp.FLAG_EXPIRE_ABS)) expireAt = op.arg();
        else if (op.has(KvOp.FLAG_KEEPTTL) && exists) expireAt = StoredValue.expireAtMs(stored);
        if (CollectionMeta.isCollection(raw)) view.clearFields(op.bucket(), op.key(), CollectionMeta.entryCount(raw));
        if (expireAt != 0 && expireAt <= nowMs) {
            // An absolute time in the past: Redis stores and immediately expires the key.
            view.delete(op.bucket(), op.key());
        } else {
            view.put(op.bucket(), op.key(), StoredValue.encode(op.value(), expireAt));
        }
        return previous;
    }

    private static OpResult delete(KvOp op, byte[] raw, byte[] stored, KvView view, boolean returnValue) {
        if (raw != null) deleteRecord(op, raw, view);
        if (returnValue) return OpResult.bulk(stored == null ? null : StoredValue.data(stored));
        return OpResult.integer(stored == null ? 0 : 1);
    }

    private OpResult incrBy(KvOp op, byte[] stored, KvView view) {
        long current = 0;
        if (stored != null) {
            Long parsed = parseLong(StoredValue.data(stored));
            if (parsed == null) return OpResult.error(ErrorCode.NOT_INTEGER, null);
            current = parsed;
        }
        Long next = incremented(current, op.arg());
        if (next == null) return OVERFLOW;
        long expireAt = stored == null ? 0 : StoredValue.expireAtMs(stored);
        view.put(op.bucket(), op.key(), StoredValue.encode(Long.toString(next).getBytes(StandardCharsets.US_ASCII), expireAt));
        return OpResult.integer(next);
    }

    /** INCRBY's and HINCRBY's answer when the sum leaves the long range, in Redis's words. */
    static final OpResult OVERFLOW = OpResult.error(ErrorCode.NOT_INTEGER, "increment or decrement would overflow");

    /** {@code current + delta}, or null when it would overflow. */
    static Long incremented(long current, long delta) {
        long sum = current + delta;
        return ((current ^ sum) & (delta ^ sum)) < 0 ? null : sum;
    }

    private OpResult append(KvOp op, byte[] stored, KvView view) {
        byte[] old = stored == null ? new byte[0] : StoredValue.data(stored);
        long length = (long) old.length + op.value().length;
        if (length > maxValueBytes) return tooLarge(length);
        byte[] joined = new byte[(int) length];
        System.arraycopy(old, 0, joined, 0, old.length);
        System.arraycopy(op.value(), 0, joined, old.length, op.value().length);
        long expireAt = stored == null ? 0 : StoredValue.expireAtMs(stored);
        view.put(op.bucket(), op.key(), StoredValue.encode(joined, expireAt));
        return OpResult.integer(length);
    }

    private static OpResult expire(KvOp op, byte[] raw, byte[] stored, KvView view, long nowMs) {
        // PEXPIREAT's arg is a unix time in ms (FLAG_EXPIRE_ABS), PEXPIRE's a time to live
        long newAtMs = op.has(KvOp.FLAG_EXPIRE_ABS) ? Math.max(op.arg(), nowMs) : op.arg() <= 0 ? nowMs : nowMs + op.arg();
        if (stored == null || !expiryConditionHolds(op, StoredValue.expireAtMs(stored), newAtMs)) return OpResult.integer(0);
        if (newAtMs <= nowMs) {
            deleteRecord(op, raw, view);
        } else {
            view.put(op.bucket(), op.key(), StoredValue.withExpiry(stored, newAtMs));
        }
        return OpResult.integer(1);
    }

    /** Redis 7's EXPIRE NX, XX, GT and LT, checked against the key's current expiry ({@code currentAtMs}, 0: none). */
    private static boolean expiryConditionHolds(KvOp op, long currentAtMs, long newAtMs) {
        if ((op.flags() & KvOp.FLAG_NX) != 0 && currentAtMs != 0) return false;
        if ((op.flags() & KvOp.FLAG_XX) != 0 && currentAtMs == 0) return false;
        if ((op.flags() & KvOp.FLAG_GT) != 0 && (currentAtMs == 0 || newAtMs <= currentAtMs)) return false;
        return (op.flags() & KvOp.FLAG_LT) == 0 || currentAtMs == 0 || newAtMs < currentAtMs;
    }

    private static OpResult persist(KvOp op, byte[] stored, KvView view) {
        if (stored == null || StoredValue.expireAtMs(stored) == 0) return OpResult.integer(0);
        view.put(op.bucket(), op.key(), StoredValue.withExpiry(stored, 0));
        return OpResult.integer(1);
    }

    private OpResult tooLarge(long length) {
        return OpResult.error(ErrorCode.VALUE_TOO_LARGE,
                "value of " + length + " bytes exceeds the maximum of " + maxValueBytes + " bytes");
    }

    /** Redis integer parsing: optional '-', digits, no leading '+', no spaces, fits in a long. */
    public static Long parseLong(byte[] bytes) {
        if (bytes.length == 0 || bytes.length > 20) return null;
        try {
            String s = new String(bytes, StandardCharsets.US_ASCII);
            if (s.charAt(0) == '+' || Character.isWhitespace(s.charAt(0)) || Character.isWhitespace(s.charAt(s.length() - 1))) {
                return null;
            }
            if (s.length() > 1 && (s.startsWith("0") || s.startsWith("-0"))) return null;
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
