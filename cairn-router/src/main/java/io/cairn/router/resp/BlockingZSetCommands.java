package io.cairn.router.resp;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * ZMPOP and the blocking sorted set pops: BZPOPMIN, BZPOPMAX, BZMPOP (issue 24). Each attempt is
 * one ZMPOP operation (the first non-empty of the keys, as redis-server picks it); a blocked client
 * waits as {@link BlockingPop} says, asking the sets' ZCARD. Keys of one command must share a
 * bucket (CROSSSLOT otherwise).
 */
final class BlockingZSetCommands {
    private static final List<String> WRITE_BLOCKING = List.of("write", "blocking");

    private final CollectionOps ops;
    private final BlockingPop blocking;

    BlockingZSetCommands(CollectionOps ops) {
        this.ops = ops;
        this.blocking = new BlockingPop(ops);
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("zmpop", -4, List.of("write"), 0, 0, 0, (a, s) -> zmpop(a, s, 1, -1),
                        a -> ZSetAlgebraCommands.sources(a, 1)),
                new CommandSpec("bzmpop", -5, WRITE_BLOCKING, 0, 0, 0, (a, s) -> zmpop(a, s, 2, BlockingPop.timeoutMs(a, 1)),
                        a -> ZSetAlgebraCommands.sources(a, 2)),
                new CommandSpec("bzpopmin", -3, List.of("write", "fast", "blocking"), 1, -2, 1, (a, s) -> bzpop(a, s, false)),
                new CommandSpec("bzpopmax", -3, List.of("write", "fast", "blocking"), 1, -2, 1, (a, s) -> bzpop(a, s, true)));
    }

    /** BZPOPMIN/BZPOPMAX key [key ...] timeout: [key, member, score], or a nil array at the timeout. */
    private CompletableFuture<RedisMessage> bzpop(CommandArgs args, ClientSession session, boolean max) {
        long timeoutMs = BlockingPop.timeoutMs(args, args.count() - 1);
        List<byte[]> keys = CollectionOps.keys(args, 1, args.count() - 2);
        return blocking.block(keys, KvOp.Type.ZCARD, pop(keys, 1, max), Replies::of, timeoutMs, session);
    }

    /**
     * ZMPOP numkeys key [key ...] MIN|MAX [COUNT count] and BZMPOP timeout numkeys ...: [key, [[member,
     * score], ...]]; checked in redis-server 7.0's order (numkeys, the side, then COUNT).
     */
    private CompletableFuture<RedisMessage> zmpop(CommandArgs args, ClientSession session, int numKeysAt, long timeoutMs) {
        BlockingPop.MPop parsed = BlockingPop.MPop.parse(args, numKeysAt, "min", "max");
        if (parsed == null) return Replies.done(Replies.syntaxError());
        List<byte[]> keys = parsed.keys();
        Function<OpResult, RedisMessage> reply = r -> {
            List<byte[]> e = r.elements();
            List<RedisMessage> pairs = new ArrayList<>((e.size() - 1) / 2);
            for (int i = 1; i + 1 < e.size(); i += 2) pairs.add(Replies.array(List.of(Replies.bulk(e.get(i)), Replies.bulk(e.get(i + 1)))));
            return Replies.array(List.of(Replies.bulk(e.get(0)), Replies.array(pairs)));
        };
        KvOp pop = pop(keys, parsed.count(), parsed.second());
        if (timeoutMs < 0) return ops.execute(pop, r -> BlockingPop.isNil(r) ? CollectionOps.NULL_ARRAY : reply.apply(r));
        return blocking.block(keys, KvOp.Type.ZCARD, pop, reply, timeoutMs, session);
    }

    private KvOp pop(List<byte[]> keys, long count, boolean max) {
        ops.requireOneBucket(keys);
        return ops.op(KvOp.Type.ZMPOP, keys.get(0), keys.subList(1, keys.size()), count, max ? KvOp.FLAG_REV : 0);
    }
}
