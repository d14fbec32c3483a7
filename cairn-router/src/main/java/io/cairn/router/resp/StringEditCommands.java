package io.cairn.router.resp;

import io.cairn.core.BucketHasher;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.kv.Packed;
import io.cairn.router.KvBackend;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The rest of Redis's string and expiry family (issue 24): GETEX, GETRANGE/SUBSTR, SETRANGE,
 * INCRBYFLOAT, MSETNX, SETBIT, GETBIT, BITCOUNT, BITPOS, EXPIREAT, PEXPIREAT, EXPIRETIME,
 * PEXPIRETIME and TOUCH, with Redis 7's replies and error texts. Reads of part of a value
 * (GETRANGE, GETBIT, BITCOUNT, BITPOS) fetch the value and cut it here: a value is bounded by
 * {@code maxValueBytes}. Edits go to storage as one operation each, applied atomically there.
 * MSETNX needs every key in one bucket (a hash tag), as Redis Cluster needs them in one slot.
 */
final class StringEditCommands {
    private static final List<String> READ = List.of("readonly", "fast");
    private static final List<String> READ_SLOW = List.of("readonly");
    private static final List<String> WRITE = List.of("write", "denyoom");
    private static final List<String> WRITE_FAST = List.of("write", "denyoom", "fast");
    /** Redis's bound on a bit offset (proto-max-bulk-len 512 MB, in bits). */
    private static final long MAX_BIT_OFFSET = 512L * 1024 * 1024 * 8 - 1;

    private final KvBackend backend;

    StringEditCommands(KvBackend backend) {
        this.backend = backend;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("getex", -2, WRITE_FAST, 1, 1, 1, (a, s) -> getEx(a)),
                new CommandSpec("getrange", 4, READ_SLOW, 1, 1, 1, (a, s) -> getRange(a)),
                new CommandSpec("substr", 4, READ_SLOW, 1, 1, 1, (a, s) -> getRange(a)),
                new CommandSpec("setrange", 4, WRITE, 1, 1, 1, (a, s) -> setRange(a)),
                new CommandSpec("incrbyfloat", 3, WRITE_FAST, 1, 1, 1,
                        (a, s) -> execute(op(KvOp.Type.INCRBYFLOAT, a.key(1), a.value(2), 0, 0), Replies::of)),
                new CommandSpec("msetnx", -3, WRITE, 1, -1, 2, (a, s) -> msetNx(a)),
                new CommandSpec("setbit", 4, WRITE, 1, 1, 1, (a, s) -> setBit(a)),
                new CommandSpec("getbit", 3, READ, 1, 1, 1, (a, s) -> getBit(a)),
                new CommandSpec("bitcount", -2, READ_SLOW, 1, 1, 1, (a, s) -> bitCount(a)),
                new CommandSpec("bitpos", -3, READ_SLOW, 1, 1, 1, (a, s) -> bitPos(a)),
                new CommandSpec("expireat", -3, WRITE_FAST, 1, 1, 1, (a, s) -> expireAt(a, 1000)),
                new CommandSpec("pexpireat", -3, WRITE_FAST, 1, 1, 1, (a, s) -> expireAt(a, 1)),
                new CommandSpec("expiretime", 2, READ, 1, 1, 1, (a, s) -> execute(op(KvOp.Type.PTTL, a.key(1), null, 0, KvOp.FLAG_EXPIRE_ABS),
                        r -> Replies.integer(r.number() < 0 ? r.number() : (r.number() + 500) / 1000))),
                new CommandSpec("pexpiretime", 2, READ, 1, 1, 1, (a, s) -> execute(op(KvOp.Type.PTTL, a.key(1), null, 0, KvOp.FLAG_EXPIRE_ABS), Replies::of)),
                new CommandSpec("touch", -2, READ, 1, -1, 1, (a, s) -> touch(a)));
    }

    /** GETEX key [EX s | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST]. */
    private CompletableFuture<RedisMessage> getEx(CommandArgs args) {
        int flags = 0;
        long arg = 0;
        if (args.count() == 3 && args.is(2, "persist")) {
            flags = KvOp.FLAG_PERSIST;
        } else if (args.count() == 4) {
            String unit = args.string(2).toLowerCase(Locale.ROOT);
            long unitMs = unit.equals("ex") || unit.equals("exat") ? 1000 : unit.equals("px") || unit.equals("pxat") ? 1 : 0;
            if (unitMs == 0) return Replies.done(Replies.syntaxError());
            long when = args.longAt(3);
            if (when <= 0 || when > SetOptions.MAX_RELATIVE_EXPIRE_MS / unitMs) throw SetOptions.invalidExpire("getex");
            arg = when * unitMs;
            flags = unit.endsWith("at") ? KvOp.FLAG_EXPIRE_ABS : KvOp.FLAG_EXPIRE_REL;
        } else if (args.count() != 2) {
            return Replies.done(Replies.syntaxError());
        }
        return execute(op(KvOp.Type.GETEX, args.key(1), null, arg, flags), Replies::of);
    }

    /** GETRANGE key start end: inclusive, negative from the end, clamped; "" when empty. */
    private CompletableFuture<RedisMessage> getRange(CommandArgs args) {
        long start = args.longAt(2);
        long end = args.longAt(3);
        return value(args.key(1), v -> {
            long[] range = clamp(start, end, v.length);
            return Replies.bulk(range == null ? new byte[0] : java.util.Arrays.copyOfRange(v, (int) range[0], (int) range[1] + 1));
        });
    }

    private CompletableFuture<RedisMessage> setRange(CommandArgs args) {
        long offset = args.longAt(2);
        if (offset < 0) return Replies.done(Replies.error("ERR offset is out of range"));
        return execute(op(KvOp.Type.SETRANGE, args.key(1), args.value(3), offset, 0), Replies::of);
    }

    /** MSETNX key value [key value ...]: all or none, atomically, so every key must be in one bucket. */
    private CompletableFuture<RedisMessage> msetNx(CommandArgs args) {
        if (args.count() % 2 == 0) return Replies.done(Replies.wrongArity("msetnx"));
        List<byte[]> pairs = new ArrayList<>(args.count() - 1);
        int bucket = bucketOf(args.key(1));
        for (int i = 1; i < args.count(); i += 2) {
            if (bucketOf(args.key(i)) != bucket) {
                return Replies.done(Replies.error(ErrorCode.CROSS_SLOT, null));
            }
            pairs.add(args.key(i));
            pairs.add(args.value(i + 1));
        }
        return execute(new KvOp(KvOp.Type.MSETNX, bucket, args.key(1), Packed.encode(pairs), 0, 0), Replies::of);
    }

    private CompletableFuture<RedisMessage> setBit(CommandArgs args) {
        long offset = bitOffset(args, 2);
        if (!args.is(3, "0") && !args.is(3, "1")) return Replies.done(Replies.error("ERR bit is not an integer or out of range"));
        byte bit = (byte) (args.is(3, "1") ? 1 : 0);
        return execute(op(KvOp.Type.SETBIT, args.key(1), new byte[] {bit}, offset, 0), Replies::of);
    }

    private CompletableFuture<RedisMessage> getBit(CommandArgs args) {
        long offset = bitOffset(args, 2);
        return value(args.key(1), v -> Replies.integer(offset / 8 < v.length ? (v[(int) (offset / 8)] >> (7 - (int) (offset % 8))) & 1 : 0));
    }

    private static long bitOffset(CommandArgs args, int index) {
        Long offset = io.cairn.core.kv.KvApplier.parseLong(args.raw(index));
        if (offset == null || offset < 0 || offset > MAX_BIT_OFFSET) {
            throw new CairnException(ErrorCode.NOT_INTEGER, "bit offset is not an integer or out of range");
        }
        return offset;
    }

    /** BITCOUNT key [start end [BYTE | BIT]]. */
    private CompletableFuture<RedisMessage> bitCount(CommandArgs args) {
        if (args.count() != 2 && args.count() != 4 && args.count() != 5) return Replies.done(Replies.syntaxError());
        BitRange range = args.count() == 2 ? null : BitRange.parse(args, 2, args.count() == 5 ? 4 : -1);
        return value(args.key(1), v -> {
            long[] bits = range == null ? new long[] {0, (long) v.length * 8 - 1} : range.bits(v.length);
            long count = 0;
            if (bits != null) for (long b = bits[0]; b <= bits[1]; b++) count += bitAt(v, b);
            return Replies.integer(count);
        });
    }

    /** BITPOS key bit [start [end [BYTE | BIT]]]. */
    private CompletableFuture<RedisMessage> bitPos(CommandArgs args) {
        if (!args.is(2, "0") && !args.is(2, "1")) {
            if (io.cairn.core.kv.KvApplier.parseLong(args.raw(2)) != null) return Replies.done(Replies.error("ERR The bit argument must be 1 or 0."));
            throw new CairnException(ErrorCode.NOT_INTEGER);
        }
        int bit = args.is(2, "1") ? 1 : 0;
        if (args.count() > 6) return Replies.done(Replies.syntaxError());
        boolean endGiven = args.count() >= 5;
        BitRange range = args.count() == 3 ? null
                : new BitRange(args.longAt(3), endGiven ? args.longAt(4) : Long.MAX_VALUE, args.count() == 6 ? unitIsBit(args, 5) : false, endGiven);
        return backend.execute(List.of(op(KvOp.Type.GET, args.key(1), null, 0, 0))).thenApply(results -> {
            OpResult r = results.get(0);
            if (r.isError()) return Replies.of(r);
            if (r.bytes() == null) return Replies.integer(bit == 1 ? -1 : 0);
            byte[] v = r.bytes();
            long[] bits = range == null ? new long[] {0, (long) v.length * 8 - 1} : range.bits(v.length);
            if (bits == null) return Replies.integer(-1);
            for (long b = bits[0]; b <= bits[1]; b++) if (bitAt(v, b) == bit) return Replies.integer(b);
            // Looking for a clear bit with no end given: the string continues with zeros, as in Redis.
            return Replies.integer(bit == 0 && !endGiven ? bits[1] + 1 : -1);
        });
    }

    private static boolean unitIsBit(CommandArgs args, int index) {
        if (args.is(index, "bit")) return true;
        if (args.is(index, "byte")) return false;
        throw new CairnException(ErrorCode.PROTOCOL, "syntax error");
    }

    private static int bitAt(byte[] v, long bit) {
        return (v[(int) (bit / 8)] >> (7 - (int) (bit % 8))) & 1;
    }

    /** A start..end range in bytes or bits, Redis's way: negative from the end, then clamped. */
    private record BitRange(long start, long end, boolean inBits, boolean endGiven) {
        static BitRange parse(CommandArgs args, int startIndex, int unitIndex) {
            return new BitRange(args.longAt(startIndex), args.longAt(startIndex + 1), unitIndex >= 0 && unitIsBit(args, unitIndex), true);
        }

        /** The inclusive bit range within a value of {@code bytes} bytes, or null when empty. */
        long[] bits(int bytes) {
            long[] r = clamp(start, end, inBits ? (long) bytes * 8 : bytes);
            if (r == null) return null;
            return inBits ? r : new long[] {r[0] * 8, r[1] * 8 + 7};
        }
    }

    /** Redis's index clamping: negative from the end, below 0 to 0, past the end to the last; null when empty. */
    private static long[] clamp(long start, long end, long length) {
        if (start < 0) start = length + start;
        if (end < 0) end = length + end;
        if (start < 0) start = 0;
        if (end < 0) end = 0;
        if (end >= length) end = length - 1;
        return start > end || length == 0 ? null : new long[] {start, end};
    }

    private CompletableFuture<RedisMessage> expireAt(CommandArgs args, long unitMs) {
        int flags = ExpireOptions.flags(args, 3);
        long when = args.longAt(2);
        if (when > Long.MAX_VALUE / unitMs || when < Long.MIN_VALUE / unitMs) {
            throw SetOptions.invalidExpire(unitMs == 1 ? "pexpireat" : "expireat");
        }
        return execute(op(KvOp.Type.PEXPIRE, args.key(1), null, when * unitMs, flags | KvOp.FLAG_EXPIRE_ABS), Replies::of);
    }

    /** TOUCH key...: the number of keys that exist (Cairn keeps no access times to update). */
    private CompletableFuture<RedisMessage> touch(CommandArgs args) {
        List<KvOp> ops = new ArrayList<>(args.count() - 1);
        for (int i = 1; i < args.count(); i++) ops.add(op(KvOp.Type.EXISTS, args.key(i), null, 0, 0));
        return backend.execute(ops).thenApply(results -> {
            long sum = 0;
            for (OpResult r : results) {
                if (r.isError()) return Replies.of(r);
                sum += r.number();
            }
            return Replies.integer(sum);
        });
    }

    /** The string value of {@code key} ("" when absent) given to {@code reply}; WRONGTYPE and other errors pass through. */
    private CompletableFuture<RedisMessage> value(byte[] key, Function<byte[], RedisMessage> reply) {
        return execute(op(KvOp.Type.GET, key, null, 0, 0), r -> reply.apply(r.bytes() == null ? new byte[0] : r.bytes()));
    }

    private int bucketOf(byte[] key) {
        return BucketHasher.bucketOf(key, backend.bucketCount());
    }

    private KvOp op(KvOp.Type type, byte[] key, byte[] value, long arg, int flags) {
        return new KvOp(type, bucketOf(key), key, value, arg, flags);
    }

    private CompletableFuture<RedisMessage> execute(KvOp op, Function<OpResult, RedisMessage> reply) {
        return backend.execute(List.of(op)).thenApply(results -> {
            OpResult r = results.get(0);
            return r.isError() ? Replies.of(r) : reply.apply(r);
        });
    }
}
