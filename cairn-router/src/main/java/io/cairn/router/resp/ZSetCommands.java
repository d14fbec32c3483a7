package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.ZRanges;
import io.cairn.core.kv.ZSetMeta;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.cairn.router.resp.CollectionOps.longBytes;

/**
 * Redis 7 sorted set commands translated into {@link KvOp}s (issue 24; the store's side is
 * ZSetApplier). Options, scores and intervals are checked here in Redis's order and with its texts,
 * since Redis refuses them before it looks at the key; the ZRANGE family all becomes one ZRANGE
 * operation whose bounds are sent low first.
 */
final class ZSetCommands {
    private static final List<String> READ = List.of("readonly", "fast");
    private static final List<String> READ_SLOW = List.of("readonly");
    private static final List<String> WRITE_FAST = List.of("write", "denyoom", "fast");
    private static final List<String> WRITE = List.of("write");
    private static final List<String> DELETE_FAST = List.of("write", "fast");

    /** How a ZRANGE-family command reads its two bounds. */
    enum By { RANK, SCORE, LEX }

    private final CollectionOps ops;

    ZSetCommands(CollectionOps ops) {
        this.ops = ops;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("zadd", -4, WRITE_FAST, 1, 1, 1, (a, s) -> zadd(a)),
                new CommandSpec("zincrby", 4, WRITE_FAST, 1, 1, 1, (a, s) -> zincrby(a)),
                new CommandSpec("zrem", -3, DELETE_FAST, 1, 1, 1, (a, s) -> withValues(KvOp.Type.ZREM, a)),
                new CommandSpec("zscore", 3, READ, 1, 1, 1, (a, s) -> withValues(KvOp.Type.ZSCORE, a)),
                new CommandSpec("zmscore", -3, READ, 1, 1, 1, (a, s) -> withValues(KvOp.Type.ZMSCORE, a)),
                new CommandSpec("zcard", 2, READ, 1, 1, 1, (a, s) -> withValues(KvOp.Type.ZCARD, a)),
                new CommandSpec("zrank", 3, READ, 1, 1, 1, (a, s) -> withValues(KvOp.Type.ZRANK, a)),
                new CommandSpec("zrevrank", 3, READ, 1, 1, 1, (a, s) -> withValues(KvOp.Type.ZREVRANK, a)),
                new CommandSpec("zcount", 4, READ, 1, 1, 1, (a, s) -> zcount(a)),
                new CommandSpec("zrange", -4, READ_SLOW, 1, 1, 1, (a, s) -> zrange(a, null, false)),
                new CommandSpec("zrevrange", -4, READ_SLOW, 1, 1, 1, (a, s) -> zrange(a, By.RANK, true)),
                new CommandSpec("zrangebyscore", -4, READ_SLOW, 1, 1, 1, (a, s) -> zrange(a, By.SCORE, false)),
                new CommandSpec("zrevrangebyscore", -4, READ_SLOW, 1, 1, 1, (a, s) -> zrange(a, By.SCORE, true)),
                new CommandSpec("zrangebylex", -4, READ_SLOW, 1, 1, 1, (a, s) -> zrange(a, By.LEX, false)),
                new CommandSpec("zrevrangebylex", -4, READ_SLOW, 1, 1, 1, (a, s) -> zrange(a, By.LEX, true)),
                new CommandSpec("zremrangebyrank", 4, WRITE, 1, 1, 1, (a, s) -> zremrange(a, By.RANK)),
                new CommandSpec("zremrangebyscore", 4, WRITE, 1, 1, 1, (a, s) -> zremrange(a, By.SCORE)),
                new CommandSpec("zremrangebylex", 4, WRITE, 1, 1, 1, (a, s) -> zremrange(a, By.LEX)),
                new CommandSpec("zpopmin", -2, WRITE_FAST, 1, 1, 1, (a, s) -> zpop(KvOp.Type.ZPOPMIN, a)),
                new CommandSpec("zpopmax", -2, WRITE_FAST, 1, 1, 1, (a, s) -> zpop(KvOp.Type.ZPOPMAX, a)),
                new CommandSpec("zlexcount", 4, READ, 1, 1, 1, (a, s) -> zlexcount(a)),
                new CommandSpec("zrandmember", -2, READ_SLOW, 1, 1, 1, (a, s) -> zrandmember(a)),
                new CommandSpec("zscan", -3, READ_SLOW, 1, 1, 1, (a, s) -> ops.scan(KvOp.Type.ZSCAN, a, 2)));
    }

    private CompletableFuture<RedisMessage> withValues(KvOp.Type type, CommandArgs args) {
        return ops.execute(ops.op(type, args.key(1), CollectionOps.values(args, 2), 0, 0));
    }

    /** ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...], checked in redis-server's order. */
    private CompletableFuture<RedisMessage> zadd(CommandArgs args) {
        int flags = 0;
        int at = 2;
        for (; at < args.count(); at++) {
            int flag = args.is(at, "nx") ? KvOp.FLAG_NX : args.is(at, "xx") ? KvOp.FLAG_XX : args.is(at, "gt") ? KvOp.FLAG_GT
                    : args.is(at, "lt") ? KvOp.FLAG_LT : args.is(at, "ch") ? KvOp.FLAG_CH : args.is(at, "incr") ? KvOp.FLAG_INCR : 0;
            if (flag == 0) break;
            flags |= flag;
        }
        int elements = args.count() - at;
        if (elements == 0 || elements % 2 != 0) return Replies.done(Replies.syntaxError());
        if (has(flags, KvOp.FLAG_NX) && has(flags, KvOp.FLAG_XX)) {
            return Replies.done(Replies.error("ERR XX and NX options at the same time are not compatible"));
        }
        if (has(flags, KvOp.FLAG_NX) && (has(flags, KvOp.FLAG_GT) || has(flags, KvOp.FLAG_LT)) || has(flags, KvOp.FLAG_GT) && has(flags, KvOp.FLAG_LT)) {
            return Replies.done(Replies.error("ERR GT, LT, and/or NX options at the same time are not compatible"));
        }
        if (has(flags, KvOp.FLAG_INCR) && elements > 2) {
            return Replies.done(Replies.error("ERR INCR option supports a single increment-element pair"));
        }
        List<byte[]> pairs = new ArrayList<>(elements);
        for (int i = at; i < args.count(); i += 2) {
            pairs.add(score(args, i));
            pairs.add(args.value(i + 1));
        }
        return ops.execute(ops.op(KvOp.Type.ZADD, args.key(1), pairs, 0, flags));
    }

    private CompletableFuture<RedisMessage> zincrby(CommandArgs args) {
        return ops.execute(ops.op(KvOp.Type.ZINCRBY, args.key(1), List.of(score(args, 2), args.value(3)), 0, 0));
    }

    /** A score argument, refused with Redis's text before the key is looked at. */
    private static byte[] score(CommandArgs args, int index) {
        byte[] text = args.raw(index);
        if (ZSetMeta.parseScore(text) == null) throw new CairnException(ErrorCode.NOT_FLOAT);
        return text;
    }

    private static boolean has(int flags, int flag) {
        return (flags & flag) != 0;
    }

    private CompletableFuture<RedisMessage> zcount(CommandArgs args) {
        if (ZRanges.scores(args.raw(2), args.raw(3)) == null) throw new CairnException(ErrorCode.NOT_FLOAT, "min or max is not a float");
        return ops.execute(ops.op(KvOp.Type.ZCOUNT, args.key(1), List.of(args.raw(2), args.raw(3)), 0, 0));
    }

    /**
     * ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES] and its older forms
     * ({@code fixed} their range type, {@code reverse} their direction).
     */
    private CompletableFuture<RedisMessage> zrange(CommandArgs args, By fixed, boolean reverse) {
        Range range = Range.parse(args, 2, fixed, reverse, false);
        if (range.refused() != null) return Replies.done(range.refused());
        return ops.execute(ops.op(KvOp.Type.ZRANGE, args.key(1), range.packed(), 0, range.flags()));
    }

    /**
     * A ZRANGE-family request parsed as redis-server's zrangeGenericCommand does (options, their
     * conflicts, then the bounds, all before the key is looked at): the packed arguments and flags of
     * a ZRANGE operation, or the reply that refuses it.
     */
    record Range(List<byte[]> packed, int flags, RedisMessage refused) {
        /**
         * @param at    the position of the first bound (2 for ZRANGE key min max, 3 for ZRANGESTORE dst src min max)
         * @param store ZRANGESTORE: WITHSCORES is a syntax error
         */
        static Range parse(CommandArgs args, int at, By fixed, boolean reverse, boolean store) {
            By by = fixed;
            boolean rev = reverse;
            boolean directionGiven = fixed != null;
            boolean withScores = false;
            long offset = 0;
            long limit = -1;
            for (int i = at + 2; i < args.count(); i++) {
                if (!store && args.is(i, "withscores")) {
                    withScores = true;
                } else if (args.is(i, "limit") && i + 2 < args.count()) {
                    offset = args.longAt(i + 1);
                    limit = args.longAt(i + 2);
                    i += 2;
                } else if (!directionGiven && !rev && args.is(i, "rev")) {
                    rev = true;
                } else if (by == null && args.is(i, "bylex")) {
                    by = By.LEX;
                } else if (by == null && args.is(i, "byscore")) {
                    by = By.SCORE;
                } else {
                    return refused(Replies.syntaxError());
                }
            }
            if (by == null) by = By.RANK;
            if (limit != -1 && by == By.RANK) {
                return refused(Replies.error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"));
            }
            if (withScores && by == By.LEX) {
                return refused(Replies.error("ERR syntax error, WITHSCORES not supported in combination with BYLEX"));
            }
            List<byte[]> packed = new ArrayList<>(bounds(args, at, by, rev && by != By.RANK));
            if (by != By.RANK) {
                packed.add(longBytes(offset));
                packed.add(longBytes(limit));
            }
            return new Range(packed, flagsOf(by) | (rev ? KvOp.FLAG_REV : 0) | (withScores ? KvOp.FLAG_WITHVALUES : 0), null);
        }

        private static Range refused(RedisMessage reply) {
            return new Range(null, 0, reply);
        }
    }

    private CompletableFuture<RedisMessage> zremrange(CommandArgs args, By by) {
        return ops.execute(ops.op(KvOp.Type.ZREMRANGE, args.key(1), bounds(args, 2, by, false), 0, flagsOf(by)));
    }

    /** Arguments {@code at} and {@code at + 1} as the low and the high bound ({@code swapped}: given high first), refused with Redis's texts. */
    private static List<byte[]> bounds(CommandArgs args, int at, By by, boolean swapped) {
        byte[] low = args.raw(swapped ? at + 1 : at);
        byte[] high = args.raw(swapped ? at : at + 1);
        switch (by) {
            case RANK -> {
                return List.of(longBytes(args.longAt(at)), longBytes(args.longAt(at + 1)));
            }
            case SCORE -> {
                if (ZRanges.scores(low, high) == null) throw new CairnException(ErrorCode.NOT_FLOAT, "min or max is not a float");
            }
            case LEX -> {
                if (ZRanges.members(low, high) == null) throw new CairnException(ErrorCode.SYNTAX, "min or max not valid string range item");
            }
        }
        return List.of(low, high);
    }

    private static int flagsOf(By by) {
        return by == By.SCORE ? KvOp.FLAG_BYSCORE : by == By.LEX ? KvOp.FLAG_BYLEX : 0;
    }

    /** ZPOPMIN/ZPOPMAX key [count]. */
    private CompletableFuture<RedisMessage> zpop(KvOp.Type type, CommandArgs args) {
        if (args.count() > 3) return Replies.done(Replies.syntaxError());
        if (args.count() == 2) return ops.execute(ops.op(type, args.key(1), List.of(), 0, 0));
        long count = CollectionOps.positive(args, 2, null);
        return ops.execute(ops.op(type, args.key(1), List.of(), count, KvOp.FLAG_COUNT));
    }

    private CompletableFuture<RedisMessage> zlexcount(CommandArgs args) {
        return ops.execute(ops.op(KvOp.Type.ZLEXCOUNT, args.key(1), bounds(args, 2, By.LEX, false), 0, 0));
    }

    /** ZRANDMEMBER key [count [WITHSCORES]], checked as redis-server 7.0 checks it; the router picks the random seed. */
    private CompletableFuture<RedisMessage> zrandmember(CommandArgs args) {
        List<byte[]> seed = List.of(CollectionOps.seed());
        if (args.count() == 2) return ops.execute(ops.op(KvOp.Type.ZRANDMEMBER, args.key(1), seed, 0, 0));
        long count = CollectionOps.symmetricLong(args, 2);
        if (args.count() > 4 || (args.count() == 4 && !args.is(3, "withscores"))) return Replies.done(Replies.syntaxError());
        int flags = KvOp.FLAG_COUNT;
        if (args.count() == 4) {
            flags |= KvOp.FLAG_WITHVALUES;
            if (count < -Long.MAX_VALUE / 2 || count > Long.MAX_VALUE / 2) return Replies.done(Replies.error("ERR value is out of range"));
        }
        if (count < -KvOp.MAX_RANDOM_FIELDS) {
            return Replies.done(Replies.error("ERR ZRANDMEMBER count below -" + KvOp.MAX_RANDOM_FIELDS + " is beyond Cairn's limit"));
        }
        return ops.execute(ops.op(KvOp.Type.ZRANDMEMBER, args.key(1), seed, count, flags));
    }
}
