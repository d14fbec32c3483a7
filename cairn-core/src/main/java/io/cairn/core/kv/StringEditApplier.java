package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * String commands that edit a value in place or set several keys at once (issue 24): GETEX,
 * SETRANGE, INCRBYFLOAT, SETBIT and MSETNX, with Redis 7's semantics and error texts. Like
 * {@link KvApplier} (which routes them here after its type check) every decision is a function of
 * the stored records and the entry's stamp, so all replicas agree. A value keeps its expiry through
 * an edit, as in Redis.
 */
final class StringEditApplier {
    private final int maxValueBytes;

    StringEditApplier(int maxValueBytes) {
        this.maxValueBytes = maxValueBytes;
    }

    /** @param stored the live record (null when absent or expired), a string: the caller checked its type */
    OpResult apply(KvOp op, byte[] raw, byte[] stored, KvView view, long nowMs) {
        return switch (op.type()) {
            case GETEX -> getEx(op, raw, stored, view, nowMs);
            case SETRANGE -> setRange(op, stored, view);
            case INCRBYFLOAT -> incrByFloat(op, stored, view);
            case SETBIT -> setBit(op, stored, view);
            case MSETNX -> msetNx(op, view, nowMs);
            default -> throw new IllegalArgumentException(op.type() + " is not a string edit");
        };
    }

    /** GETEX: the value, and its expiry set (EX/PX/EXAT/PXAT: arg, relative or absolute) or removed (PERSIST). */
    private static OpResult getEx(KvOp op, byte[] raw, byte[] stored, KvView view, long nowMs) {
        if (stored == null) return OpResult.NIL;
        OpResult value = OpResult.bulk(StoredValue.data(stored));
        if (op.has(KvOp.FLAG_PERSIST)) {
            if (StoredValue.expireAtMs(stored) != 0) view.put(op.bucket(), op.key(), StoredValue.withExpiry(stored, 0));
        } else if (op.has(KvOp.FLAG_EXPIRE_REL) || op.has(KvOp.FLAG_EXPIRE_ABS)) {
            long at = op.has(KvOp.FLAG_EXPIRE_ABS) ? op.arg() : nowMs + op.arg();
            if (at <= nowMs) view.delete(op.bucket(), op.key()); // a time in the past deletes the key, as in Redis
            else view.put(op.bucket(), op.key(), StoredValue.withExpiry(stored, at));
        }
        return value;
    }

    /** SETRANGE: overwrite from byte {@code arg}, zero-padding a shorter value; the new length. */
    private OpResult setRange(KvOp op, byte[] stored, KvView view) {
        byte[] old = stored == null ? new byte[0] : StoredValue.data(stored);
        long offset = op.arg();
        if (offset < 0) return OpResult.error(ErrorCode.PROTOCOL, "offset is out of range");
        if (op.value().length == 0) return OpResult.integer(old.length); // nothing written, and no key created
        long length = Math.max(old.length, offset + op.value().length);
        if (length > maxValueBytes) return tooLarge(length);
        byte[] next = java.util.Arrays.copyOf(old, (int) length);
        System.arraycopy(op.value(), 0, next, (int) offset, op.value().length);
        view.put(op.bucket(), op.key(), StoredValue.encode(next, stored == null ? 0 : StoredValue.expireAtMs(stored)));
        return OpResult.integer(length);
    }

    /** INCRBYFLOAT: decimal arithmetic on the text, the result written as Redis formats it. */
    private static OpResult incrByFloat(KvOp op, byte[] stored, KvView view) {
        BigDecimal increment = RedisFloats.parse(op.value());
        if (increment == null) return OpResult.error(ErrorCode.NOT_FLOAT, null);
        BigDecimal current = BigDecimal.ZERO;
        if (stored != null) {
            current = RedisFloats.parse(StoredValue.data(stored));
            if (current == null) return OpResult.error(ErrorCode.NOT_FLOAT, null);
        }
        BigDecimal sum = current.add(increment);
        if (RedisFloats.isInfinite(increment) || RedisFloats.isInfinite(current) || RedisFloats.isInfinite(sum)) {
            return OpResult.error(ErrorCode.NOT_FLOAT, "increment would produce NaN or Infinity");
        }
        byte[] text = RedisFloats.format(sum).getBytes(StandardCharsets.US_ASCII);
        view.put(op.bucket(), op.key(), StoredValue.encode(text, stored == null ? 0 : StoredValue.expireAtMs(stored)));
        return OpResult.bulk(text);
    }

    /** SETBIT: bit {@code arg} (most significant first in each byte) set to the value's one byte, 0 or 1; the old bit. */
    private OpResult setBit(KvOp op, byte[] stored, KvView view) {
        long bit = op.arg();
        if (bit < 0 || op.value().length != 1 || op.value()[0] > 1 || op.value()[0] < 0) {
            return OpResult.error(ErrorCode.PROTOCOL, "bit offset or value is out of range");
        }
        byte[] old = stored == null ? new byte[0] : StoredValue.data(stored);
        long length = Math.max(old.length, bit / 8 + 1);
        if (length > maxValueBytes) return tooLarge(length);
        byte[] next = java.util.Arrays.copyOf(old, (int) length);
        int index = (int) (bit / 8);
        int mask = 0x80 >>> (int) (bit % 8);
        int previous = (next[index] & mask) != 0 ? 1 : 0;
        next[index] = (byte) (op.value()[0] == 1 ? next[index] | mask : next[index] & ~mask);
        view.put(op.bucket(), op.key(), StoredValue.encode(next, stored == null ? 0 : StoredValue.expireAtMs(stored)));
        return OpResult.integer(previous);
    }

    /**
     * MSETNX: the op's packed value holds every key and value (all in the op's bucket; its key is the
     * first); either every key is set or, when any of them exists (of any type), none is.
     */
    private OpResult msetNx(KvOp op, KvView view, long nowMs) {
        List<byte[]> pairs;
        try {
            pairs = Packed.decode(op.value());
        } catch (IllegalArgumentException | java.nio.BufferUnderflowException malformed) {
            return OpResult.error(ErrorCode.PROTOCOL, "MSETNX arguments are malformed");
        }
        if (pairs.isEmpty() || pairs.size() % 2 != 0 || pairs.stream().anyMatch(java.util.Objects::isNull)) {
            return OpResult.error(ErrorCode.PROTOCOL, "MSETNX needs key value pairs");
        }
        for (int i = 0; i < pairs.size(); i += 2) {
            byte[] raw = view.get(op.bucket(), pairs.get(i));
            if (raw != null && !StoredValue.isExpired(raw, nowMs)) return OpResult.integer(0);
            if (pairs.get(i + 1).length > maxValueBytes) return tooLarge(pairs.get(i + 1).length);
        }
        for (int i = 0; i < pairs.size(); i += 2) {
            byte[] raw = view.get(op.bucket(), pairs.get(i));
            if (CollectionMeta.isCollection(raw)) view.clearFields(op.bucket(), pairs.get(i), CollectionMeta.entryCount(raw)); // an expired collection
            view.put(op.bucket(), pairs.get(i), StoredValue.encode(pairs.get(i + 1), 0));
        }
        return OpResult.integer(1);
    }

    private OpResult tooLarge(long length) {
        return OpResult.error(ErrorCode.VALUE_TOO_LARGE,
                "value of " + length + " bytes exceeds the maximum of " + maxValueBytes + " bytes");
    }
}
