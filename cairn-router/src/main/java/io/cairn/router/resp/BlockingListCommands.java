package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.RetryClass;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.kv.RedisFloats;
import io.netty.handler.codec.redis.RedisMessage;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * LMPOP and the blocking list commands: BLPOP, BRPOP, BLMPOP, BLMOVE, BRPOPLPUSH (issue 24).
 *
 * <p>How a client blocks: Redis parks it and serves it when a push lands; here the router tries
 * the pop (one LMPOP or LMOVE operation, so Redis's answers for missing and wrong-type keys hold),
 * and while every list is empty it asks their lengths (reads, no Raft entry) every
 * {@link #POLL_MS} until one is not, then tries again, until the timeout (0: forever) answers a
 * nil array. Every attempt goes through the router like any command, so a wait outlives bucket
 * moves and leader changes: a retryable refusal (bucket moving, no leader) counts as "still empty".
 * The costs: a push is seen up to {@link #POLL_MS} late, and a client that disconnects between
 * the last length check and the pop loses the element it popped (the wait stops as soon as the
 * connection is seen closed). Keys of one command must share a bucket (CROSSSLOT otherwise).
 */
final class BlockingListCommands {
    static final long POLL_MS = 20;
    private static final List<String> WRITE_BLOCKING = List.of("write", "blocking");

    private final CollectionOps ops;
    private final Executor poll = CompletableFuture.delayedExecutor(POLL_MS, TimeUnit.MILLISECONDS);

    BlockingListCommands(CollectionOps ops) {
        this.ops = ops;
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
        Long parsed = io.cairn.core.kv.KvApplier.parseLong(args.raw(numKeysAt));
        if (parsed == null || parsed < 1) throw new CairnException(ErrorCode.NOT_INTEGER, "numkeys should be greater than 0");
        int whereAt = numKeysAt + 1 + (int) Math.min(parsed, args.count());
        if (whereAt >= args.count()) return Replies.done(Replies.syntaxError());
        boolean right = args.is(whereAt, "right");
        if (!right && !args.is(whereAt, "left")) return Replies.done(Replies.syntaxError());
        long count = 1;
        if (whereAt + 1 < args.count()) {
            if (!args.is(whereAt + 1, "count") || whereAt + 3 != args.count()) return Replies.done(Replies.syntaxError());
            Long c = io.cairn.core.kv.KvApplier.parseLong(args.raw(whereAt + 2));
            if (c == null || c < 1) throw new CairnException(ErrorCode.NOT_INTEGER, "count should be greater than 0");
            count = c;
        }
        List<byte[]> keys = CollectionOps.keys(args, numKeysAt + 1, whereAt - 1);
        Function<OpResult, RedisMessage> reply = r -> {
            List<byte[]> e = r.elements();
            List<RedisMessage> elements = new ArrayList<>(e.size() - 1);
            for (byte[] element : e.subList(1, e.size())) elements.add(Replies.bulk(element));
            return Replies.array(List.of(Replies.bulk(e.get(0)), Replies.array(elements)));
        };
        KvOp pop = pop(keys, count, right);
        if (timeoutMs < 0) return ops.execute(pop, r -> isNil(r) ? CollectionOps.NULL_ARRAY : reply.apply(r));
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

    /** Redis's blocking timeout: seconds as a float, rounded up to the millisecond; 0 waits forever. */
    private static long timeoutMs(CommandArgs args, int index) {
        BigDecimal seconds = RedisFloats.parse(args.raw(index));
        if (seconds == null) throw new CairnException(ErrorCode.NOT_FLOAT, "timeout is not a float or out of range");
        BigDecimal ms = seconds.multiply(BigDecimal.valueOf(1000)).setScale(0, RoundingMode.CEILING);
        if (ms.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) throw new CairnException(ErrorCode.NOT_FLOAT, "timeout is out of range");
        if (ms.signum() < 0) throw new CairnException(ErrorCode.NOT_FLOAT, "timeout is negative");
        return ms.longValueExact();
    }

    /** Tries {@code attempt}; while it answers nil, waits for a list to fill or the deadline to pass. */
    private CompletableFuture<RedisMessage> block(List<byte[]> keys, KvOp attempt, Function<OpResult, RedisMessage> reply,
                                                  long timeoutMs, ClientSession session) {
        long deadlineNanos = timeoutMs == 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        CompletableFuture<RedisMessage> done = new CompletableFuture<>();
        tryPop(keys, attempt, reply, deadlineNanos, session, done);
        return done;
    }

    private void tryPop(List<byte[]> keys, KvOp attempt, Function<OpResult, RedisMessage> reply, long deadlineNanos,
                        ClientSession session, CompletableFuture<RedisMessage> done) {
        ops.execute(attempt, r -> isNil(r) ? null : reply.apply(r)).whenComplete((answer, failure) -> {
            if (failure != null) done.completeExceptionally(failure);
            else if (answer != null && !retryable(answer)) done.complete(answer);
            else waitForElements(keys, attempt, reply, deadlineNanos, session, done);
        });
    }

    /** Polls the lists' lengths (reads) until one has an element, the deadline passes or the client goes. */
    private void waitForElements(List<byte[]> keys, KvOp attempt, Function<OpResult, RedisMessage> reply, long deadlineNanos,
                                 ClientSession session, CompletableFuture<RedisMessage> done) {
        if (session != null && session.closing()) {
            done.complete(CollectionOps.NULL_ARRAY);
            return;
        }
        if (System.nanoTime() - deadlineNanos >= 0) {
            done.complete(CollectionOps.NULL_ARRAY);
            return;
        }
        CompletableFuture.runAsync(() -> {
            List<KvOp> lengths = new ArrayList<>(keys.size());
            for (byte[] key : keys) lengths.add(ops.op(KvOp.Type.LLEN, key, List.of(), 0, 0));
            ops.executeAll(lengths).whenComplete((results, failure) -> {
                boolean filled = failure == null && results.stream().anyMatch(r -> r.isError() && r.error().retry == RetryClass.FATAL || r.number() > 0);
                if (filled && !(session != null && session.closing())) tryPop(keys, attempt, reply, deadlineNanos, session, done);
                else waitForElements(keys, attempt, reply, deadlineNanos, session, done);
            });
        }, poll);
    }

    /** The store's "nothing to pop" (LMPOP and LMOVE found every list empty). */
    private static boolean isNil(OpResult r) {
        return r.kind() == OpResult.Kind.BULK && r.bytes() == null;
    }

    /** An error reply a retry may cure (bucket moving, leader election): the wait goes on. */
    private static boolean retryable(RedisMessage answer) {
        if (!(answer instanceof io.netty.handler.codec.redis.ErrorRedisMessage error)) return false;
        String text = error.content();
        return text.startsWith("TRYAGAIN") || text.startsWith("CLUSTERDOWN") || text.startsWith("WRONGBUCKET");
    }
}
