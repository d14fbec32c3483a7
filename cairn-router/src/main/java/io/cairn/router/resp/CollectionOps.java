package io.cairn.router.resp;

import io.cairn.core.BucketHasher;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.router.KvBackend;
import io.netty.handler.codec.redis.RedisMessage;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * What the list and set commands share: building one {@link KvOp} (several keys only when they share
 * a bucket, else Redis Cluster's CROSSSLOT error: a command over keys of two buckets could not be
 * applied atomically), running it, and Redis's texts for the integer checks they have in common.
 */
final class CollectionOps {
    static final RedisMessage NULL_ARRAY = io.netty.handler.codec.redis.ArrayRedisMessage.NULL_INSTANCE;

    private final KvBackend backend;

    CollectionOps(KvBackend backend) {
        this.backend = backend;
    }

    KvOp op(KvOp.Type type, byte[] key, List<byte[]> packedArgs, long arg, int flags) {
        return new KvOp(type, BucketHasher.bucketOf(key, backend.bucketCount()), key, io.cairn.core.kv.Packed.encode(packedArgs), arg, flags);
    }

    int bucketOf(byte[] key) {
        return BucketHasher.bucketOf(key, backend.bucketCount());
    }

    /** Refuses keys of different buckets with Redis Cluster's CROSSSLOT error (a {hash tag} puts them in one). */
    void requireOneBucket(List<byte[]> keys) {
        int first = BucketHasher.bucketOf(keys.get(0), backend.bucketCount());
        for (byte[] key : keys) {
            if (BucketHasher.bucketOf(key, backend.bucketCount()) != first) throw new CairnException(ErrorCode.CROSS_SLOT);
        }
    }

    CompletableFuture<RedisMessage> execute(KvOp op, Function<OpResult, RedisMessage> reply) {
        return backend.execute(List.of(op)).thenApply(results -> {
            OpResult r = results.get(0);
            return r.isError() ? Replies.of(r) : reply.apply(r);
        });
    }

    /** Several operations in one backend call (each answers on its own). */
    CompletableFuture<List<OpResult>> executeAll(List<KvOp> ops) {
        return backend.execute(ops);
    }

    CompletableFuture<RedisMessage> execute(KvOp op) {
        return execute(op, Replies::of);
    }

    /** The keys at positions {@code from} to {@code to} (inclusive), checked for size. */
    static List<byte[]> keys(CommandArgs args, int from, int to) {
        List<byte[]> keys = new ArrayList<>(to - from + 1);
        for (int i = from; i <= to; i++) keys.add(args.key(i));
        return keys;
    }

    /** Values at positions {@code from} to the end, checked for size. */
    static List<byte[]> values(CommandArgs args, int from) {
        List<byte[]> values = new ArrayList<>(Math.max(0, args.count() - from));
        for (int i = from; i < args.count(); i++) values.add(args.value(i));
        return values;
    }

    static byte[] longBytes(long n) {
        return ByteBuffer.allocate(8).putLong(n).array();
    }

    /** A seed for a random choice, made here so every replica applying the operation chooses alike. */
    static byte[] seed() {
        return longBytes(ThreadLocalRandom.current().nextLong());
    }

    /** Redis's getPositiveLongFromObjectOrReply: an integer >= 0, else {@code negativeText} (its default text when null). */
    static long positive(CommandArgs args, int index, String negativeText) {
        long n = args.longAt(index);
        if (n < 0) throw new CairnException(ErrorCode.NOT_INTEGER, negativeText == null ? "value is out of range, must be positive" : negativeText);
        return n;
    }

    /** Redis's getRangeLongFromObjectOrReply over -LONG_MAX..LONG_MAX (every long but the smallest). */
    static long symmetricLong(CommandArgs args, int index) {
        long n = args.longAt(index);
        if (n == Long.MIN_VALUE) {
            throw new CairnException(ErrorCode.NOT_INTEGER, "value is out of range, value must between " + -Long.MAX_VALUE + " and " + Long.MAX_VALUE);
        }
        return n;
    }

    /** An array of decimal texts from the store (LPOS, SMISMEMBER) as RESP integers. */
    static RedisMessage integers(OpResult r) {
        List<RedisMessage> out = new ArrayList<>();
        for (byte[] n : r.elements()) out.add(Replies.integer(Long.parseLong(new String(n, StandardCharsets.US_ASCII))));
        return Replies.array(out);
    }

    /**
     * SSCAN/ZSCAN key cursor [MATCH pattern] [COUNT count]: the store answers the next cursor then
     * the page's elements, {@code stride} per member (a member, or a member and its score); MATCH
     * filters the members of the page, as in Redis.
     */
    CompletableFuture<RedisMessage> scan(KvOp.Type type, CommandArgs args, int stride) {
        long cursor = HashCommands.parseCursor(args.raw(2));
        if (cursor < 0) return Replies.done(Replies.error("ERR invalid cursor"));
        ScanOptions options = ScanOptions.parse(args, 3, false);
        if (options == null) return Replies.done(Replies.syntaxError());
        byte[] countArg = longBytes(Math.min(options.count(), KeyspaceCommands.MAX_SCAN_COUNT));
        String match = options.pattern() == null || options.pattern().equals("*") ? null : options.pattern();
        return execute(op(type, args.key(1), List.of(countArg), cursor, 0), r -> {
            List<byte[]> elements = r.elements();
            List<RedisMessage> page = new ArrayList<>(elements.size() - 1);
            for (int i = 1; i + stride - 1 < elements.size(); i += stride) {
                if (match != null && !Glob.matchesExactly(match, KeyspaceCommands.latin1(elements.get(i)))) continue;
                for (int j = 0; j < stride; j++) page.add(Replies.bulk(elements.get(i + j)));
            }
            return Replies.array(List.of(Replies.bulk(elements.get(0)), Replies.array(page)));
        });
    }
}
