package io.cairn.router.resp;

import io.cairn.core.BucketHasher;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.router.KvBackend;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Redis string and key commands translated into {@link KvOp}s. Arguments are validated here,
 * before the backend sees them, with Redis's error texts. A multi-key command becomes ONE
 * backend call, so keys sharing a bucket (hash tag) are applied atomically; if any operation
 * fails, the reply is the first failure (e.g. TRYAGAIN while a bucket moves).
 */
final class StringCommands {
    private static final List<String> READ = List.of("readonly", "fast");
    private static final List<String> WRITE = List.of("write", "denyoom");
    private static final List<String> WRITE_FAST = List.of("write", "denyoom", "fast");
    private static final List<String> DELETE = List.of("write");

    private final KvBackend backend;

    StringCommands(KvBackend backend) {
        this.backend = backend;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("get", 2, READ, 1, 1, 1, this::get),
                new CommandSpec("set", -3, WRITE, 1, 1, 1, this::set),
                new CommandSpec("setnx", 3, WRITE_FAST, 1, 1, 1, this::setNx),
                new CommandSpec("setex", 4, WRITE, 1, 1, 1, (a, s) -> setWithTtl(a, 1000, "setex")),
                new CommandSpec("psetex", 4, WRITE, 1, 1, 1, (a, s) -> setWithTtl(a, 1, "psetex")),
                new CommandSpec("getset", 3, WRITE_FAST, 1, 1, 1, this::getSet),
                new CommandSpec("getdel", 2, DELETE, 1, 1, 1, (a, s) -> single(KvOp.Type.GETDEL, a)),
                new CommandSpec("del", -2, DELETE, 1, -1, 1, (a, s) -> sumOverKeys(KvOp.Type.DEL, a)),
                new CommandSpec("unlink", -2, DELETE, 1, -1, 1, (a, s) -> sumOverKeys(KvOp.Type.DEL, a)),
                new CommandSpec("exists", -2, READ, 1, -1, 1, (a, s) -> sumOverKeys(KvOp.Type.EXISTS, a)),
                new CommandSpec("mget", -2, READ, 1, -1, 1, this::mget),
                new CommandSpec("mset", -3, WRITE, 1, -1, 2, this::mset),
                new CommandSpec("incr", 2, WRITE_FAST, 1, 1, 1, (a, s) -> incrBy(a, 1)),
                new CommandSpec("decr", 2, WRITE_FAST, 1, 1, 1, (a, s) -> incrBy(a, -1)),
                new CommandSpec("incrby", 3, WRITE_FAST, 1, 1, 1, (a, s) -> incrBy(a, a.longAt(2))),
                new CommandSpec("decrby", 3, WRITE_FAST, 1, 1, 1, (a, s) -> incrBy(a, negated(a.longAt(2)))),
                new CommandSpec("append", 3, WRITE, 1, 1, 1, this::append),
                new CommandSpec("strlen", 2, READ, 1, 1, 1, (a, s) -> single(KvOp.Type.STRLEN, a)),
                new CommandSpec("expire", -3, WRITE_FAST, 1, 1, 1, (a, s) -> expire(a, 1000, "expire")),
                new CommandSpec("pexpire", -3, WRITE_FAST, 1, 1, 1, (a, s) -> expire(a, 1, "pexpire")),
                new CommandSpec("ttl", 2, READ, 1, 1, 1, this::ttl),
                new CommandSpec("pttl", 2, READ, 1, 1, 1, (a, s) -> single(KvOp.Type.PTTL, a)),
                new CommandSpec("persist", 2, WRITE_FAST, 1, 1, 1, (a, s) -> single(KvOp.Type.PERSIST, a)));
    }

    private CompletableFuture<RedisMessage> get(CommandArgs args, ClientSession session) {
        return single(KvOp.Type.GET, args);
    }

    private CompletableFuture<RedisMessage> set(CommandArgs args, ClientSession session) {
        SetOptions options = SetOptions.parse(args);
        return execute(op(KvOp.Type.SET, args.key(1), args.value(2), options.arg(), options.flags()), Replies::of);
    }

    private CompletableFuture<RedisMessage> setNx(CommandArgs args, ClientSession session) {
        KvOp op = op(KvOp.Type.SET, args.key(1), args.value(2), 0, KvOp.FLAG_NX);
        return execute(op, r -> Replies.integer(r.kind() == OpResult.Kind.OK ? 1 : 0));
    }

    /** SETEX key seconds value, PSETEX key ms value: the time must be positive. */
    private CompletableFuture<RedisMessage> setWithTtl(CommandArgs args, long unitMs, String command) {
        long ttl = args.longAt(2);
        if (ttl <= 0 || ttl > SetOptions.MAX_RELATIVE_EXPIRE_MS / unitMs) throw SetOptions.invalidExpire(command);
        return execute(op(KvOp.Type.SET, args.key(1), args.value(3), ttl * unitMs, KvOp.FLAG_EXPIRE_REL), Replies::of);
    }

    private CompletableFuture<RedisMessage> getSet(CommandArgs args, ClientSession session) {
        return execute(op(KvOp.Type.SET, args.key(1), args.value(2), 0, KvOp.FLAG_GET), Replies::of);
    }

    private CompletableFuture<RedisMessage> mget(CommandArgs args, ClientSession session) {
        List<KvOp> ops = new ArrayList<>(args.count() - 1);
        for (int i = 1; i < args.count(); i++) ops.add(op(KvOp.Type.GET, args.key(i), null, 0, 0));
        // MGET answers nil for a key of another type where GET answers WRONGTYPE, as in Redis.
        return backend.execute(ops).thenApply(results -> {
            for (OpResult r : results) if (r.isError() && r.error() != ErrorCode.WRONG_TYPE) return Replies.of(r);
            List<RedisMessage> values = new ArrayList<>(results.size());
            for (OpResult r : results) values.add(r.isError() ? Replies.NIL : Replies.of(r));
            return Replies.array(values);
        });
    }

    private CompletableFuture<RedisMessage> mset(CommandArgs args, ClientSession session) {
        if (args.count() % 2 == 0) return Replies.done(Replies.wrongArity("mset"));
        List<KvOp> ops = new ArrayList<>(args.count() / 2);
        for (int i = 1; i < args.count(); i += 2) ops.add(op(KvOp.Type.SET, args.key(i), args.value(i + 1), 0, 0));
        return execute(ops, results -> Replies.OK);
    }

    /** DEL, UNLINK, EXISTS: one operation per key (duplicates included), integer results summed. */
    private CompletableFuture<RedisMessage> sumOverKeys(KvOp.Type type, CommandArgs args) {
        List<KvOp> ops = new ArrayList<>(args.count() - 1);
        for (int i = 1; i < args.count(); i++) ops.add(op(type, args.key(i), null, 0, 0));
        return execute(ops, results -> {
            long sum = 0;
            for (OpResult r : results) sum += r.number();
            return Replies.integer(sum);
        });
    }

    private CompletableFuture<RedisMessage> incrBy(CommandArgs args, long delta) {
        return execute(op(KvOp.Type.INCRBY, args.key(1), null, delta, 0), Replies::of);
    }

    private static long negated(long delta) {
        if (delta == Long.MIN_VALUE) throw new CairnException(ErrorCode.NOT_INTEGER, "decrement would overflow");
        return -delta;
    }

    private CompletableFuture<RedisMessage> append(CommandArgs args, ClientSession session) {
        return execute(op(KvOp.Type.APPEND, args.key(1), args.value(2), 0, 0), Replies::of);
    }

    /** EXPIRE and PEXPIRE with Redis 7's NX, XX, GT and LT; a time not in the future deletes the key, as in Redis. */
    private CompletableFuture<RedisMessage> expire(CommandArgs args, long unitMs, String command) {
        int flags = ExpireOptions.flags(args, 3);
        long when = args.longAt(2);
        if (when > Long.MAX_VALUE / unitMs || when < Long.MIN_VALUE / unitMs
                || when * unitMs > SetOptions.MAX_RELATIVE_EXPIRE_MS) {
            throw SetOptions.invalidExpire(command);
        }
        return execute(op(KvOp.Type.PEXPIRE, args.key(1), null, when * unitMs, flags), Replies::of);
    }

    /** PTTL rounded to seconds the way Redis does; -1 and -2 pass through. */
    private CompletableFuture<RedisMessage> ttl(CommandArgs args, ClientSession session) {
        return execute(op(KvOp.Type.PTTL, args.key(1), null, 0, 0),
                r -> Replies.integer(r.number() < 0 ? r.number() : (r.number() + 500) / 1000));
    }

    private CompletableFuture<RedisMessage> single(KvOp.Type type, CommandArgs args) {
        return execute(op(type, args.key(1), null, 0, 0), Replies::of);
    }

    private KvOp op(KvOp.Type type, byte[] key, byte[] value, long arg, int flags) {
        return new KvOp(type, BucketHasher.bucketOf(key, backend.bucketCount()), key, value, arg, flags);
    }

    private CompletableFuture<RedisMessage> execute(KvOp op, Function<OpResult, RedisMessage> reply) {
        return execute(List.of(op), results -> reply.apply(results.get(0)));
    }

    /** Sends all ops in one call; replies with the first failed op's error, else {@code reply}. */
    private CompletableFuture<RedisMessage> execute(List<KvOp> ops, Function<List<OpResult>, RedisMessage> reply) {
        return backend.execute(ops).thenApply(results -> {
            if (results.size() != ops.size()) {
                throw new IllegalStateException("backend answered " + results.size() + " results to "
                        + ops.size() + " operations");
            }
            for (OpResult r : results) if (r.isError()) return Replies.of(r);
            return reply.apply(results);
        });
    }
}
