package io.cairn.router.resp;

import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.kv.Packed;
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
 * Redis 7 hash commands and TYPE, translated into {@link KvOp}s (issue 24). Arity and argument
 * syntax are checked here with Redis's texts; everything that depends on the stored hash
 * (WRONGTYPE, "hash value is not an integer", ...) is the store's answer.
 */
final class HashCommands {
    private static final List<String> READ = List.of("readonly", "fast");
    private static final List<String> READ_SLOW = List.of("readonly");
    private static final List<String> WRITE_FAST = List.of("write", "denyoom", "fast");
    private static final List<String> DELETE_FAST = List.of("write", "fast");
    static final long MAX_RANDOM_FIELDS = KvOp.MAX_RANDOM_FIELDS;

    private final KvBackend backend;

    HashCommands(KvBackend backend) {
        this.backend = backend;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("hset", -4, WRITE_FAST, 1, 1, 1, (a, s) -> hset(a, "hset", Replies::of)),
                new CommandSpec("hmset", -4, WRITE_FAST, 1, 1, 1, (a, s) -> hset(a, "hmset", r -> Replies.OK)),
                new CommandSpec("hsetnx", 4, WRITE_FAST, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HSETNX, a, 2, 0)),
                new CommandSpec("hget", 3, READ, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HGET, a, 2, 0)),
                new CommandSpec("hmget", -3, READ, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HMGET, a, 2, 0)),
                new CommandSpec("hdel", -3, DELETE_FAST, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HDEL, a, 2, 0)),
                new CommandSpec("hexists", 3, READ, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HEXISTS, a, 2, 0)),
                new CommandSpec("hlen", 2, READ, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HLEN, a, 2, 0)),
                new CommandSpec("hstrlen", 3, READ, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HSTRLEN, a, 2, 0)),
                new CommandSpec("hgetall", 2, READ_SLOW, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HGETALL, a, 2, 0)),
                new CommandSpec("hkeys", 2, READ_SLOW, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HKEYS, a, 2, 0)),
                new CommandSpec("hvals", 2, READ_SLOW, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HVALS, a, 2, 0)),
                new CommandSpec("hincrby", 4, WRITE_FAST, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HINCRBY, a, 2, a.longAt(3))),
                new CommandSpec("hincrbyfloat", 4, WRITE_FAST, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.HINCRBYFLOAT, a, 2, 0)),
                new CommandSpec("hrandfield", -2, READ_SLOW, 1, 1, 1, (a, s) -> hrandfield(a)),
                new CommandSpec("hscan", -3, READ_SLOW, 1, 1, 1, (a, s) -> hscan(a)),
                new CommandSpec("type", 2, READ, 1, 1, 1, (a, s) -> withArgs(KvOp.Type.TYPE, a, 2, 0)));
    }

    /** HSET/HMSET key field value [field value ...]: an odd pair count is an arity error, as in Redis. */
    private CompletableFuture<RedisMessage> hset(CommandArgs args, String name, Function<OpResult, RedisMessage> reply) {
        if (args.count() % 2 != 0) return Replies.done(Replies.wrongArity(name));
        List<byte[]> pairs = new ArrayList<>(args.count() - 2);
        for (int i = 2; i < args.count(); i += 2) {
            pairs.add(args.raw(i));
            pairs.add(args.value(i + 1));
        }
        return execute(op(KvOp.Type.HSET, args.key(1), Packed.encode(pairs), 0, 0), reply);
    }

    /** A command whose arguments from {@code first} on travel as a packed list. */
    private CompletableFuture<RedisMessage> withArgs(KvOp.Type type, CommandArgs args, int first, long arg) {
        List<byte[]> rest = new ArrayList<>(Math.max(0, args.count() - first));
        for (int i = first; i < args.count(); i++) rest.add(type == KvOp.Type.HSETNX && i == 3 ? args.value(i) : args.raw(i));
        return execute(op(type, args.key(1), Packed.encode(rest), arg, 0), Replies::of);
    }

    /** HRANDFIELD key [count [WITHVALUES]]: the random seed is chosen here so every replica would agree. */
    private CompletableFuture<RedisMessage> hrandfield(CommandArgs args) {
        long count = 0;
        int flags = 0;
        if (args.count() >= 3) {
            count = args.longAt(2);
            if (count == Long.MIN_VALUE) {
                return Replies.done(Replies.error("ERR value is out of range, value must between "
                        + -Long.MAX_VALUE + " and " + Long.MAX_VALUE));
            }
            if (args.count() > 4 || (args.count() == 4 && !args.is(3, "withvalues"))) return Replies.done(Replies.syntaxError());
            flags |= KvOp.FLAG_COUNT;
            if (args.count() == 4) {
                flags |= KvOp.FLAG_WITHVALUES;
                if (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2) return Replies.done(Replies.error("ERR value is out of range"));
            }
            if (count < -MAX_RANDOM_FIELDS) {
                return Replies.done(Replies.error("ERR HRANDFIELD count below -" + MAX_RANDOM_FIELDS + " is beyond Cairn's limit"));
            }
        }
        byte[] seed = ByteBuffer.allocate(8).putLong(ThreadLocalRandom.current().nextLong()).array();
        return execute(op(KvOp.Type.HRANDFIELD, args.key(1), seed, count, flags), Replies::of);
    }

    /** HSCAN key cursor [MATCH pattern] [COUNT count]; MATCH filters the page, as in Redis. */
    private CompletableFuture<RedisMessage> hscan(CommandArgs args) {
        long cursor = parseCursor(args.raw(2));
        if (cursor < 0) return Replies.done(Replies.error("ERR invalid cursor"));
        ScanOptions options = ScanOptions.parse(args, 3, false);
        if (options == null) return Replies.done(Replies.syntaxError());
        byte[] countArg = ByteBuffer.allocate(8).putLong(Math.min(options.count(), KeyspaceCommands.MAX_SCAN_COUNT)).array();
        String match = options.pattern() == null || options.pattern().equals("*") ? null : options.pattern();
        return execute(op(KvOp.Type.HSCAN, args.key(1), Packed.encode(List.of(countArg)), cursor, 0), r -> {
            List<byte[]> elements = r.elements();
            List<RedisMessage> pairs = new ArrayList<>(elements.size() - 1);
            for (int i = 1; i + 1 < elements.size(); i += 2) {
                if (match != null && !Glob.matchesExactly(match, KeyspaceCommands.latin1(elements.get(i)))) continue;
                pairs.add(Replies.bulk(elements.get(i)));
                pairs.add(Replies.bulk(elements.get(i + 1)));
            }
            return Replies.array(List.of(Replies.bulk(elements.get(0)), Replies.array(pairs)));
        });
    }

    /** Redis's unsigned cursor; past Integer.MAX_VALUE it is beyond any hash's end. -1 when invalid. */
    static long parseCursor(byte[] raw) {
        String s = new String(raw, StandardCharsets.US_ASCII);
        if (s.isEmpty() || s.length() > 20 || !s.chars().allMatch(Character::isDigit)) return -1;
        try {
            long c = Long.parseUnsignedLong(s);
            return c < 0 || c > Integer.MAX_VALUE ? Integer.MAX_VALUE : c;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private KvOp op(KvOp.Type type, byte[] key, byte[] value, long arg, int flags) {
        return new KvOp(type, BucketHasher.bucketOf(key, backend.bucketCount()), key, value, arg, flags);
    }

    private CompletableFuture<RedisMessage> execute(KvOp op, Function<OpResult, RedisMessage> reply) {
        return backend.execute(List.of(op)).thenApply(results -> {
            OpResult r = results.get(0);
            return r.isError() ? Replies.of(r) : reply.apply(r);
        });
    }
}
