package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Redis 7 hash commands over a {@link KvView} (the encoding is {@link HashMeta}'s). Like
 * {@link KvApplier}, deterministic: the time is the entry's stamp and HRANDFIELD's randomness is
 * a seed the router put in the operation. The metadata's field count is kept exact by every
 * write, so HLEN reads one record; a hash whose last field goes is deleted, as in Redis.
 */
final class HashApplier {
    /** Redis keeps a hash this small as a listpack (hash-max-listpack-entries/-value defaults), and HSCAN then returns it whole whatever COUNT says. */
    private static final int LISTPACK_MAX_ENTRIES = 512;
    private static final int LISTPACK_MAX_VALUE_BYTES = 64;

    private final int maxValueBytes;

    HashApplier(int maxValueBytes) {
        this.maxValueBytes = maxValueBytes;
    }

    /**
     * @param raw    the key's record as stored (maybe expired), or null
     * @param stored the live record: null when absent or expired
     */
    OpResult apply(KvOp op, byte[] raw, byte[] stored, KvView view) {
        if (stored != null && !HashMeta.isHash(stored)) return wrongType();
        // HRANDFIELD's value is its seed, every other hash command's a packed argument list.
        List<byte[]> args;
        try {
            args = op.value() == null || op.type() == KvOp.Type.HRANDFIELD ? List.of() : Packed.decode(op.value());
        } catch (IllegalArgumentException | java.nio.BufferUnderflowException malformed) {
            return OpResult.error(ErrorCode.PROTOCOL, op.type() + " arguments are malformed: " + malformed.getMessage());
        }
        // Checked before anything is written, so a malformed operation fails the same way on every replica and changes nothing.
        if (args.size() < minArgs(op.type()) || args.stream().anyMatch(java.util.Objects::isNull)) {
            return OpResult.error(ErrorCode.PROTOCOL, op.type() + " needs " + minArgs(op.type()) + " arguments, got " + args.size());
        }
        return switch (op.type()) {
            case HGET -> OpResult.bulk(stored == null ? null : view.getField(op.bucket(), op.key(), args.get(0)));
            case HMGET -> hmget(op, stored, args, view);
            case HEXISTS -> OpResult.integer(stored != null && view.getField(op.bucket(), op.key(), args.get(0)) != null ? 1 : 0);
            case HLEN -> OpResult.integer(stored == null ? 0 : HashMeta.fieldCount(stored));
            case HSTRLEN -> {
                byte[] v = stored == null ? null : view.getField(op.bucket(), op.key(), args.get(0));
                yield OpResult.integer(v == null ? 0 : v.length);
            }
            case HGETALL -> listFields(op, stored, view, true, true);
            case HKEYS -> listFields(op, stored, view, true, false);
            case HVALS -> listFields(op, stored, view, false, true);
            case HRANDFIELD -> randomFields(op, stored, view);
            case HSCAN -> scan(op, stored, args, view);
            case HSET -> hset(op, raw, stored, args, view, false);
            case HSETNX -> hset(op, raw, stored, args, view, true);
            case HDEL -> hdel(op, stored, args, view);
            case HINCRBY -> hincrBy(op, raw, stored, args, view);
            case HINCRBYFLOAT -> hincrByFloat(op, raw, stored, args, view);
            default -> throw new IllegalArgumentException(op.type() + " is not a hash command");
        };
    }

    private static int minArgs(KvOp.Type type) {
        return switch (type) {
            case HGET, HMGET, HEXISTS, HSTRLEN, HDEL, HINCRBY, HSCAN -> 1;
            case HSET, HSETNX, HINCRBYFLOAT -> 2;
            default -> 0;
        };
    }

    static OpResult wrongType() {
        return OpResult.error(ErrorCode.WRONG_TYPE, null);
    }

    private static OpResult hmget(KvOp op, byte[] stored, List<byte[]> fields, KvView view) {
        List<byte[]> values = new ArrayList<>(fields.size());
        for (byte[] f : fields) values.add(stored == null ? null : view.getField(op.bucket(), op.key(), f));
        return OpResult.array(values);
    }

    private static OpResult listFields(KvOp op, byte[] stored, KvView view, boolean names, boolean values) {
        if (stored == null) return OpResult.array(List.of());
        List<byte[]> out = new ArrayList<>();
        for (KvView.Field f : view.fields(op.bucket(), op.key())) {
            if (names) out.add(f.name());
            if (values) out.add(f.value());
        }
        return OpResult.array(out);
    }

    /** HRANDFIELD: without a count one field or nil; a positive count distinct fields, a negative one with repeats. */
    private static OpResult randomFields(KvOp op, byte[] stored, KvView view) {
        boolean withCount = op.has(KvOp.FLAG_COUNT);
        if (stored == null) return withCount ? OpResult.array(List.of()) : OpResult.NIL;
        SplittableRandom random = new SplittableRandom(op.value() != null && op.value().length >= 8 ? ByteBuffer.wrap(op.value()).getLong() : 0);
        if (!withCount) {
            // One field: a position from the metadata's exact count, and only that field read.
            long at = random.nextLong(HashMeta.fieldCount(stored));
            return OpResult.bulk(view.fields(op.bucket(), op.key(), at, 1).get(0).name());
        }
        List<KvView.Field> fields = view.fields(op.bucket(), op.key());
        long count = op.arg();
        if (count < -KvOp.MAX_RANDOM_FIELDS) return OpResult.error(ErrorCode.PROTOCOL, "HRANDFIELD count below -" + KvOp.MAX_RANDOM_FIELDS);
        List<KvView.Field> chosen = count < 0 ? RandomPicks.withRepeats(fields, -count, random) : RandomPicks.distinct(fields, count, random);
        boolean withValues = op.has(KvOp.FLAG_WITHVALUES);
        List<byte[]> out = new ArrayList<>(chosen.size() * (withValues ? 2 : 1));
        for (KvView.Field f : chosen) {
            out.add(f.name());
            if (withValues) out.add(f.value());
        }
        return OpResult.array(out);
    }

    /**
     * HSCAN: the reply's first element is the next cursor, then field, value pairs; MATCH is the
     * router's (Redis filters after reading too). The cursor is a position in field order: a field
     * deleted behind the cursor during a scan shifts later ones back, so one may be missed (Redis
     * guarantees it is not); a hash small enough to be a listpack in Redis is returned whole, as there.
     */
    private static OpResult scan(KvOp op, byte[] stored, List<byte[]> args, KvView view) {
        if (stored == null) return OpResult.array(List.of(ascii("0")));
        long size = HashMeta.fieldCount(stored);
        if (args.get(0).length != 8) return OpResult.error(ErrorCode.PROTOCOL, "HSCAN count is not 8 bytes");
        long count = Math.max(1, ByteBuffer.wrap(args.get(0)).getLong());
        List<KvView.Field> page = null;
        long next = 0;
        if (size <= LISTPACK_MAX_ENTRIES) {
            List<KvView.Field> all = view.fields(op.bucket(), op.key());
            if (isListpack(all)) page = all;
        }
        if (page == null) {
            // Only this page's fields are read: a full scan of a big hash costs one pass, not one per page.
            long from = Math.max(op.arg(), 0);
            page = view.fields(op.bucket(), op.key(), from, (int) Math.min(count, Integer.MAX_VALUE));
            next = from + page.size() >= size || page.isEmpty() ? 0 : from + page.size();
        }
        List<byte[]> out = new ArrayList<>(1 + 2 * page.size());
        out.add(ascii(Long.toString(next)));
        for (KvView.Field f : page) {
            out.add(f.name());
            out.add(f.value());
        }
        return OpResult.array(out);
    }

    private static boolean isListpack(List<KvView.Field> fields) {
        if (fields.size() > LISTPACK_MAX_ENTRIES) return false;
        for (KvView.Field f : fields) {
            if (f.name().length > LISTPACK_MAX_VALUE_BYTES || f.value().length > LISTPACK_MAX_VALUE_BYTES) return false;
        }
        return true;
    }

    private OpResult hset(KvOp op, byte[] raw, byte[] stored, List<byte[]> pairs, KvView view, boolean onlyNew) {
        for (int i = 1; i < pairs.size(); i += 2) {
            if (pairs.get(i).length > maxValueBytes) {
                return OpResult.error(ErrorCode.VALUE_TOO_LARGE, "value of " + pairs.get(i).length
                        + " bytes exceeds the maximum of " + maxValueBytes + " bytes");
            }
        }
        if (onlyNew && stored != null && view.getField(op.bucket(), op.key(), pairs.get(0)) != null) return OpResult.integer(0);
        Writer w = new Writer(op, raw, stored, view);
        long added = 0;
        for (int i = 0; i + 1 < pairs.size(); i += 2) added += w.put(pairs.get(i), pairs.get(i + 1));
        w.finish();
        return OpResult.integer(added);
    }

    private static OpResult hdel(KvOp op, byte[] stored, List<byte[]> fields, KvView view) {
        if (stored == null) return OpResult.integer(0);
        long removed = 0;
        for (byte[] f : fields) {
            if (view.getField(op.bucket(), op.key(), f) == null) continue;
            view.deleteField(op.bucket(), op.key(), f);
            removed++;
        }
        if (removed == 0) return OpResult.integer(0);
        long left = HashMeta.fieldCount(stored) - removed;
        if (left <= 0) view.delete(op.bucket(), op.key());
        else view.put(op.bucket(), op.key(), HashMeta.encode(left, StoredValue.expireAtMs(stored)));
        return OpResult.integer(removed);
    }

    private static OpResult hincrBy(KvOp op, byte[] raw, byte[] stored, List<byte[]> args, KvView view) {
        byte[] field = args.get(0);
        byte[] old = stored == null ? null : view.getField(op.bucket(), op.key(), field);
        long current = 0;
        if (old != null) {
            Long parsed = KvApplier.parseLong(old);
            if (parsed == null) return OpResult.error(ErrorCode.NOT_INTEGER, "hash value is not an integer");
            current = parsed;
        }
        Long next = KvApplier.incremented(current, op.arg());
        if (next == null) return KvApplier.OVERFLOW;
        Writer w = new Writer(op, raw, stored, view);
        w.put(field, ascii(Long.toString(next)));
        w.finish();
        return OpResult.integer(next);
    }

    private static OpResult hincrByFloat(KvOp op, byte[] raw, byte[] stored, List<byte[]> args, KvView view) {
        byte[] field = args.get(0);
        BigDecimal increment = RedisFloats.parse(args.get(1));
        if (increment == null) return OpResult.error(ErrorCode.NOT_FLOAT, null);
        if (RedisFloats.isInfinite(increment)) return OpResult.error(ErrorCode.NOT_FLOAT, "value is NaN or Infinity");
        byte[] old = stored == null ? null : view.getField(op.bucket(), op.key(), field);
        BigDecimal current = BigDecimal.ZERO;
        if (old != null) {
            current = RedisFloats.parse(old);
            if (current == null) return OpResult.error(ErrorCode.NOT_FLOAT, "hash value is not a float");
        }
        BigDecimal sum = current.add(increment);
        if (RedisFloats.isInfinite(current) || RedisFloats.isInfinite(sum)) {
            return OpResult.error(ErrorCode.NOT_FLOAT, "increment would produce NaN or Infinity");
        }
        byte[] text = ascii(RedisFloats.format(sum));
        Writer w = new Writer(op, raw, stored, view);
        w.put(field, text);
        w.finish();
        return OpResult.bulk(text);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Writes fields of one hash and then its metadata once. A record that is expired (any type)
     * is replaced: an expired collection's elements are cleared first so none of them reappears.
     */
    private static final class Writer {
        private final KvOp op;
        private final KvView view;
        private final boolean existed;
        private final long expireAtMs;
        private long count;
        private boolean changed;

        Writer(KvOp op, byte[] raw, byte[] stored, KvView view) {
            this.op = op;
            this.view = view;
            CollectionMeta.clearIfExpired(op, raw, stored, view);
            existed = stored != null;
            count = existed ? HashMeta.fieldCount(stored) : 0;
            expireAtMs = existed ? StoredValue.expireAtMs(stored) : 0;
        }

        /** Returns 1 when the field is new. */
        int put(byte[] field, byte[] value) {
            // Read through the view: a field named twice in one HSET is new once.
            boolean isNew = view.getField(op.bucket(), op.key(), field) == null;
            view.putField(op.bucket(), op.key(), field, value);
            changed = true;
            if (isNew) count++;
            return isNew ? 1 : 0;
        }

        void finish() {
            if (changed) view.put(op.bucket(), op.key(), HashMeta.encode(count, expireAtMs));
        }
    }
}
