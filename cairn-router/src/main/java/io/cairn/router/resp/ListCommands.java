package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.cairn.router.resp.CollectionOps.longBytes;

/**
 * Redis 7 list commands translated into {@link KvOp}s (issue 24; the store's side is ListApplier).
 * Arity and option syntax are checked here with Redis's texts; what depends on the stored list
 * (WRONGTYPE, "no such key", "index out of range") is the store's answer. LMOVE and RPOPLPUSH take
 * two keys: one operation when they share a bucket, CROSSSLOT otherwise. Blocking forms are not built.
 */
final class ListCommands {
    private static final List<String> READ = List.of("readonly", "fast");
    private static final List<String> READ_SLOW = List.of("readonly");
    private static final List<String> WRITE_FAST = List.of("write", "denyoom", "fast");
    private static final List<String> WRITE = List.of("write");
    private static final List<String> DELETE_FAST = List.of("write", "fast");

    private final CollectionOps ops;

    ListCommands(CollectionOps ops) {
        this.ops = ops;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("lpush", -3, WRITE_FAST, 1, 1, 1, (a, s) -> push(KvOp.Type.LPUSH, a)),
                new CommandSpec("rpush", -3, WRITE_FAST, 1, 1, 1, (a, s) -> push(KvOp.Type.RPUSH, a)),
                new CommandSpec("lpushx", -3, WRITE_FAST, 1, 1, 1, (a, s) -> push(KvOp.Type.LPUSHX, a)),
                new CommandSpec("rpushx", -3, WRITE_FAST, 1, 1, 1, (a, s) -> push(KvOp.Type.RPUSHX, a)),
                new CommandSpec("lpop", -2, DELETE_FAST, 1, 1, 1, (a, s) -> pop(KvOp.Type.LPOP, a)),
                new CommandSpec("rpop", -2, DELETE_FAST, 1, 1, 1, (a, s) -> pop(KvOp.Type.RPOP, a)),
                new CommandSpec("llen", 2, READ, 1, 1, 1, (a, s) -> ops.execute(ops.op(KvOp.Type.LLEN, a.key(1), List.of(), 0, 0))),
                new CommandSpec("lrange", 4, READ_SLOW, 1, 1, 1, (a, s) -> startStop(KvOp.Type.LRANGE, a)),
                new CommandSpec("ltrim", 4, WRITE, 1, 1, 1, (a, s) -> startStop(KvOp.Type.LTRIM, a)),
                new CommandSpec("lindex", 3, READ_SLOW, 1, 1, 1,
                        (a, s) -> ops.execute(ops.op(KvOp.Type.LINDEX, a.key(1), List.of(), a.longAt(2), 0))),
                new CommandSpec("lset", 4, WRITE, 1, 1, 1,
                        (a, s) -> ops.execute(ops.op(KvOp.Type.LSET, a.key(1), List.of(a.value(3)), a.longAt(2), 0))),
                new CommandSpec("linsert", 5, WRITE, 1, 1, 1, (a, s) -> linsert(a)),
                new CommandSpec("lrem", 4, WRITE, 1, 1, 1,
                        (a, s) -> ops.execute(ops.op(KvOp.Type.LREM, a.key(1), List.of(a.value(3)), a.longAt(2), 0))),
                new CommandSpec("lpos", -3, READ_SLOW, 1, 1, 1, (a, s) -> lpos(a)),
                new CommandSpec("lmove", 5, WRITE, 1, 2, 1, (a, s) -> lmove(a)),
                new CommandSpec("rpoplpush", 3, WRITE, 1, 2, 1, (a, s) -> move(a.key(1), a.key(2), KvOp.LMOVE_FROM_RIGHT)));
    }

    private CompletableFuture<RedisMessage> push(KvOp.Type type, CommandArgs args) {
        return ops.execute(ops.op(type, args.key(1), CollectionOps.values(args, 2), 0, 0));
    }

    /** LPOP/RPOP key [count]: with a count an array (nil array for a missing key), without one a bulk. */
    private CompletableFuture<RedisMessage> pop(KvOp.Type type, CommandArgs args) {
        if (args.count() > 3) return Replies.done(Replies.wrongArity(args.name()));
        if (args.count() == 2) return ops.execute(ops.op(type, args.key(1), List.of(), 0, 0));
        long count = CollectionOps.positive(args, 2, null);
        return ops.execute(ops.op(type, args.key(1), List.of(), count, KvOp.FLAG_COUNT),
                r -> r.kind() == io.cairn.core.kv.OpResult.Kind.BULK ? CollectionOps.NULL_ARRAY : Replies.of(r));
    }

    private CompletableFuture<RedisMessage> startStop(KvOp.Type type, CommandArgs args) {
        long start = args.longAt(2);
        long stop = args.longAt(3);
        return ops.execute(ops.op(type, args.key(1), List.of(longBytes(start), longBytes(stop)), 0, 0));
    }

    /** LINSERT key BEFORE|AFTER pivot element. */
    private CompletableFuture<RedisMessage> linsert(CommandArgs args) {
        boolean after;
        if (args.is(2, "after")) after = true;
        else if (args.is(2, "before")) after = false;
        else return Replies.done(Replies.syntaxError());
        return ops.execute(ops.op(KvOp.Type.LINSERT, args.key(1), List.of(args.value(3), args.value(4)), after ? 1 : 0, 0));
    }

    /** LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len], with Redis 7's option checks in its order. */
    private CompletableFuture<RedisMessage> lpos(CommandArgs args) {
        long rank = 1;
        long count = 0;
        long maxLen = 0;
        boolean withCount = false;
        for (int i = 3; i < args.count(); i++) {
            boolean more = i + 1 < args.count();
            if (more && args.is(i, "rank")) {
                rank = args.longAt(++i); // redis-server 7.0 takes every long here (7.2 refuses the smallest)
                if (rank == 0) {
                    throw new CairnException(ErrorCode.SYNTAX, "RANK can't be zero: use 1 to start from the first match, 2 from the "
                            + "second ... or use negative to start from the end of the list");
                }
            } else if (more && args.is(i, "count")) {
                count = CollectionOps.positive(args, ++i, "COUNT can't be negative");
                withCount = true;
            } else if (more && args.is(i, "maxlen")) {
                maxLen = CollectionOps.positive(args, ++i, "MAXLEN can't be negative");
            } else {
                return Replies.done(Replies.syntaxError());
            }
        }
        List<byte[]> packed = List.of(args.value(2), longBytes(rank), longBytes(count), longBytes(maxLen));
        KvOp op = ops.op(KvOp.Type.LPOS, args.key(1), packed, 0, withCount ? KvOp.FLAG_COUNT : 0);
        return withCount ? ops.execute(op, CollectionOps::integers) : ops.execute(op);
    }

    /** LMOVE source destination LEFT|RIGHT LEFT|RIGHT. */
    private CompletableFuture<RedisMessage> lmove(CommandArgs args) {
        long from = side(args, 3);
        long to = side(args, 4);
        if (from < 0 || to < 0) return Replies.done(Replies.syntaxError());
        return move(args.key(1), args.key(2), (from == 1 ? KvOp.LMOVE_FROM_RIGHT : 0) | (to == 1 ? KvOp.LMOVE_TO_RIGHT : 0));
    }

    /** 0 for LEFT, 1 for RIGHT, -1 for anything else. */
    private static long side(CommandArgs args, int index) {
        if (args.is(index, "left")) return 0;
        return args.is(index, "right") ? 1 : -1;
    }

    private CompletableFuture<RedisMessage> move(byte[] source, byte[] destination, long sides) {
        List<byte[]> keys = new ArrayList<>(List.of(source, destination));
        ops.requireOneBucket(keys);
        return ops.execute(ops.op(KvOp.Type.LMOVE, source, List.of(destination), sides, 0));
    }
}
