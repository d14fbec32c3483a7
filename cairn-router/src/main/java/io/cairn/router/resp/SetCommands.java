package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Redis 7 set commands translated into {@link KvOp}s (issue 24; the store's side is SetApplier).
 * Commands over several keys (SINTER, SUNION, SDIFF, their STORE forms, SINTERCARD, SMOVE) are one
 * operation when every key shares a bucket, so they are atomic; keys of different buckets are
 * refused with Redis Cluster's CROSSSLOT error. Random choices (SPOP, SRANDMEMBER) carry a seed
 * chosen here so every replica picks the same members.
 */
final class SetCommands {
    private static final List<String> READ = List.of("readonly", "fast");
    private static final List<String> READ_SLOW = List.of("readonly");
    private static final List<String> WRITE_FAST = List.of("write", "denyoom", "fast");
    private static final List<String> WRITE = List.of("write", "denyoom");
    private static final List<String> DELETE_FAST = List.of("write", "fast");

    private final CollectionOps ops;

    SetCommands(CollectionOps ops) {
        this.ops = ops;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("sadd", -3, WRITE_FAST, 1, 1, 1, (a, s) -> withValues(KvOp.Type.SADD, a)),
                new CommandSpec("srem", -3, DELETE_FAST, 1, 1, 1, (a, s) -> withValues(KvOp.Type.SREM, a)),
                new CommandSpec("sismember", 3, READ, 1, 1, 1, (a, s) -> withValues(KvOp.Type.SISMEMBER, a)),
                new CommandSpec("smismember", -3, READ, 1, 1, 1,
                        (a, s) -> ops.execute(ops.op(KvOp.Type.SMISMEMBER, a.key(1), CollectionOps.values(a, 2), 0, 0), CollectionOps::integers)),
                new CommandSpec("smembers", 2, READ_SLOW, 1, 1, 1, (a, s) -> withValues(KvOp.Type.SMEMBERS, a)),
                new CommandSpec("scard", 2, READ, 1, 1, 1, (a, s) -> withValues(KvOp.Type.SCARD, a)),
                new CommandSpec("spop", -2, DELETE_FAST, 1, 1, 1, (a, s) -> random(KvOp.Type.SPOP, a)),
                new CommandSpec("srandmember", -2, READ_SLOW, 1, 1, 1, (a, s) -> random(KvOp.Type.SRANDMEMBER, a)),
                new CommandSpec("smove", 4, DELETE_FAST, 1, 2, 1, (a, s) -> smove(a)),
                new CommandSpec("sinter", -2, READ_SLOW, 1, -1, 1, (a, s) -> combine(KvOp.Type.SINTER, a)),
                new CommandSpec("sunion", -2, READ_SLOW, 1, -1, 1, (a, s) -> combine(KvOp.Type.SUNION, a)),
                new CommandSpec("sdiff", -2, READ_SLOW, 1, -1, 1, (a, s) -> combine(KvOp.Type.SDIFF, a)),
                new CommandSpec("sinterstore", -3, WRITE, 1, -1, 1, (a, s) -> combine(KvOp.Type.SINTERSTORE, a)),
                new CommandSpec("sunionstore", -3, WRITE, 1, -1, 1, (a, s) -> combine(KvOp.Type.SUNIONSTORE, a)),
                new CommandSpec("sdiffstore", -3, WRITE, 1, -1, 1, (a, s) -> combine(KvOp.Type.SDIFFSTORE, a)),
                new CommandSpec("sintercard", -3, READ_SLOW, 0, 0, 0, (a, s) -> sintercard(a), a -> ZSetAlgebraCommands.sources(a, 1)),
                new CommandSpec("sscan", -3, READ_SLOW, 1, 1, 1, (a, s) -> ops.scan(KvOp.Type.SSCAN, a, 1)));
    }

    private CompletableFuture<RedisMessage> withValues(KvOp.Type type, CommandArgs args) {
        return ops.execute(ops.op(type, args.key(1), CollectionOps.values(args, 2), 0, 0));
    }

    /** SPOP key [count] / SRANDMEMBER key [count]; SPOP's count must be >= 0, SRANDMEMBER's may be negative (repeats). */
    private CompletableFuture<RedisMessage> random(KvOp.Type type, CommandArgs args) {
        if (args.count() > 3) return Replies.done(Replies.syntaxError());
        if (args.count() == 2) return ops.execute(ops.op(type, args.key(1), List.of(CollectionOps.seed()), 0, 0));
        long count = type == KvOp.Type.SPOP ? CollectionOps.positive(args, 2, null) : CollectionOps.symmetricLong(args, 2);
        if (count < -HashCommands.MAX_RANDOM_FIELDS) {
            return Replies.done(Replies.error("ERR SRANDMEMBER count below -" + HashCommands.MAX_RANDOM_FIELDS + " is beyond Cairn's limit"));
        }
        return ops.execute(ops.op(type, args.key(1), List.of(CollectionOps.seed()), count, KvOp.FLAG_COUNT));
    }

    private CompletableFuture<RedisMessage> smove(CommandArgs args) {
        ops.requireOneBucket(List.of(args.key(1), args.key(2)));
        return ops.execute(ops.op(KvOp.Type.SMOVE, args.key(1), List.of(args.key(2), args.value(3)), 0, 0));
    }

    /** SINTER/SUNION/SDIFF key [key ...] and the STORE forms (destination key [key ...]): every key in one bucket. */
    private CompletableFuture<RedisMessage> combine(KvOp.Type type, CommandArgs args) {
        List<byte[]> keys = CollectionOps.keys(args, 1, args.count() - 1);
        ops.requireOneBucket(keys);
        return ops.execute(ops.op(type, keys.get(0), keys.subList(1, keys.size()), 0, 0));
    }

    /** SINTERCARD numkeys key [key ...] [LIMIT limit], with Redis 7's checks in its order. */
    private CompletableFuture<RedisMessage> sintercard(CommandArgs args) {
        // Redis answers a non-integer numkeys with the same text as a zero one.
        Long parsed = io.cairn.core.kv.KvApplier.parseLong(args.raw(1));
        long numKeys = parsed == null ? 0 : parsed;
        if (numKeys < 1) throw new CairnException(ErrorCode.NOT_INTEGER, "numkeys should be greater than 0");
        if (numKeys > args.count() - 2) throw new CairnException(ErrorCode.SYNTAX, "Number of keys can't be greater than number of args");
        long limit = 0;
        for (int i = 2 + (int) numKeys; i < args.count(); i++) {
            if (args.is(i, "limit") && i + 1 < args.count()) {
                limit = CollectionOps.positive(args, ++i, "LIMIT can't be negative");
            } else {
                return Replies.done(Replies.syntaxError());
            }
        }
        List<byte[]> keys = CollectionOps.keys(args, 2, 1 + (int) numKeys);
        ops.requireOneBucket(keys);
        return ops.execute(ops.op(KvOp.Type.SINTERCARD, keys.get(0), keys.subList(1, keys.size()), limit, 0));
    }
}
