package io.cairn.router.resp;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * LMPOP and the blocking list commands: BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH (issue 24). Each
 * attempt is one LMPOP or LMOVE operation, so Redis's answers for missing and wrong-type keys hold;
 * how a client waits is {@link BlockingPop}'s. Keys of one command must share a bucket (CROSSSLOT
 * otherwise).
 */
final class BlockingListCommands {
    private static final List<String> WRITE_BLOCKING = List.of("write", "blocking");

    private final CollectionOps ops;
    private final BlockingPop blocking;

    BlockingListCommands(CollectionOps ops) {
        this.ops = ops;
        this.blocking = new BlockingPop(ops);
    }

    private static long timeoutMs(CommandArgs args, int index) {
        return BlockingPop.timeoutMs(args, index);
    }

    private CompletableFuture<RedisMessage> block(List<byte[]> keys, KvOp attempt, Function<OpResult, RedisMessage> reply,
                                                  long timeoutMs, ClientSession session) {
        return blocking.block(keys, KvOp.Type.LLEN, attempt, reply, timeoutMs, session);
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("lmpop", -4, List.of("write"), 0, 0, 0, (a, s) -> lmpop(a, s, 1, -1),
                        a -> ZSetAlgebraCommands.sources(a, 1)),
                new CommandSpec("blmpop", -5, WRITE_BLOCKING, 0, 0, 0, (a, s) -> lmpop(a, s, 2, timeoutMs(a, 1)),
                        a -> ZSetAlgebraCommands.sources(a, 2)),
                new CommandSpec("blpop", -3, WRITE_BLOCKING, 1, -2, 1, (a, s) -> bpop(a, s, false)),
                new CommandSpec("brpop", -3, WRITE_BLOCKING, 1, -2, 1, (a, s) -> bpop(a, s, true)),
                new CommandSpec("blmove", 6, WRITE_BLOCKING, 1, 2, 1, (a, s) -> blmove(a, s)),
                new CommandSpec("brpoplpush", 4, WRITE_BLOCKING, 1, 2, 1,
                        (a, s) -> move(a, s, KvOp.LMOVE_FROM_RIGHT, timeoutMs(a, 3))));
    }

    /** BLPOP/BRPOP key [key ...] timeout: [key, element], or a nil array at the timeout. */
    private CompletableFuture<RedisMessage> bpop(CommandArgs args, ClientSession session, boolean right) {
        long timeoutMs = timeoutMs(args, args.count() - 1);
        List<byte[]> keys = CollectionOps.keys(args, 1, args.count() - 2);
        KvOp pop = pop(keys, 1, right);
        return block(keys, pop, r -> Replies.of(r), timeoutMs, session);
    }

    /** LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count] and BLMPOP timeout numkeys ...: [key, [elements]]. */
    private CompletableFuture<RedisMessage> lmpop(CommandArgs args, ClientSession session, int numKeysAt, long timeoutMs) {
        BlockingPop.MPop parsed = BlockingPop.MPop.parse(args, numKeysAt, "left", "right");
        if (parsed == null) return Replies.done(Replies.syntaxError());
        List<byte[]> keys = parsed.keys();
        Function<OpResult, RedisMessage> reply = r -> {
            List<byte[]> e = r.elements();
            List<RedisMessage> elements = new ArrayList<>(e.size() - 1);
            for (byte[] element : e.subList(1, e.size())) elements.add(Replies.bulk(element));
            return Replies.array(List.of(Replies.bulk(e.get(0)), Replies.array(elements)));
        };
        KvOp pop = pop(keys, parsed.count(), parsed.second());
        if (timeoutMs < 0) return ops.execute(pop, r -> BlockingPop.isNil(r) ? CollectionOps.NULL_ARRAY : reply.apply(r));
        return block(keys, pop, reply, timeoutMs, session);
    }

    /** BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout. */
    private CompletableFuture<RedisMessage> blmove(CommandArgs args, ClientSession session) {
        boolean fromRight = args.is(3, "right");
        boolean toRight = args.is(4, "right");
        if (!fromRight && !args.is(3, "left") || !toRight && !args.is(4, "left")) return Replies.done(Replies.syntaxError());
        long sides = (fromRight ? KvOp.LMOVE_FROM_RIGHT : 0) | (toRight ? KvOp.LMOVE_TO_RIGHT : 0);
        return move(args, session, sides, timeoutMs(args, 5));
    }

    private CompletableFuture<RedisMessage> move(CommandArgs args, ClientSession session, long sides, long timeoutMs) {
        List<byte[]> keys = List.of(args.key(1), args.key(2));
        ops.requireOneBucket(keys);
        KvOp move = ops.op(KvOp.Type.LMOVE, keys.get(0), List.of(keys.get(1)), sides, 0);
        return block(List.of(keys.get(0)), move, Replies::of, timeoutMs, session);
    }

    private KvOp pop(List<byte[]> keys, long count, boolean right) {
        ops.requireOneBucket(keys);
        return ops.op(KvOp.Type.LMPOP, keys.get(0), keys.subList(1, keys.size()), count, right ? KvOp.FLAG_RIGHT : 0);
    }

}
