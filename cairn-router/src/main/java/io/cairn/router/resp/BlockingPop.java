package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.RetryClass;
import io.cairn.core.kv.KvApplier;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.kv.RedisFloats;
import io.netty.handler.codec.redis.ErrorRedisMessage;
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
 * How a blocking pop waits (BLPOP, BLMOVE, BZPOPMIN, BZMPOP, ...; issue 24).
 *
 * <p>Redis parks a blocked client and serves it when a push lands; here the router tries the pop
 * (one operation, so Redis's answers for missing and wrong-type keys hold), and while every
 * collection is empty it asks their lengths (LLEN or ZCARD: reads, no Raft entry, not counted as
 * keyspace hits or misses) every
 * {@link #POLL_MS} until one is not, then tries again, until the timeout (0: forever) answers a
 * nil array. Every attempt goes through the router like any command, so a wait outlives bucket
 * moves and leader changes: a retryable refusal (bucket moving, no leader) counts as "still empty".
 * The costs: a push is seen up to {@link #POLL_MS} late, and a client that disconnects between
 * the last length check and the pop loses what it popped (the wait stops as soon as the connection
 * is seen closed).
 */
final class BlockingPop {
    static final long POLL_MS = 20;

    /**
     * The arguments of LMPOP/BLMPOP and ZMPOP/BZMPOP: {@code numkeys key [key ...] FIRST|SECOND [COUNT count]}
     * from {@code numKeysAt}, checked in redis-server 7.0's order (numkeys, the side, then COUNT); null
     * for a syntax error. {@code second} is whether the side named was the second one (RIGHT, MAX).
     */
    record MPop(List<byte[]> keys, boolean second, long count) {
        static MPop parse(CommandArgs args, int numKeysAt, String first, String second) {
            Long parsed = KvApplier.parseLong(args.raw(numKeysAt));
            if (parsed == null || parsed < 1) throw new CairnException(ErrorCode.NOT_INTEGER, "numkeys should be greater than 0");
            int sideAt = numKeysAt + 1 + (int) Math.min(parsed, args.count());
            if (sideAt >= args.count()) return null;
            boolean isSecond = args.is(sideAt, second);
            if (!isSecond && !args.is(sideAt, first)) return null;
            long count = 1;
            if (sideAt + 1 < args.count()) {
                if (!args.is(sideAt + 1, "count") || sideAt + 3 != args.count()) return null;
                Long c = KvApplier.parseLong(args.raw(sideAt + 2));
                if (c == null || c < 1) throw new CairnException(ErrorCode.NOT_INTEGER, "count should be greater than 0");
                count = c;
            }
            return new MPop(CollectionOps.keys(args, numKeysAt + 1, sideAt - 1), isSecond, count);
        }
    }

    private final CollectionOps ops;
    private final Executor poll = CompletableFuture.delayedExecutor(POLL_MS, TimeUnit.MILLISECONDS);

    BlockingPop(CollectionOps ops) {
        this.ops = ops;
    }

    /** Redis's blocking timeout: seconds as a float, rounded up to the millisecond; 0 waits forever. */
    static long timeoutMs(CommandArgs args, int index) {
        BigDecimal seconds = RedisFloats.parse(args.raw(index));
        if (seconds == null) throw new CairnException(ErrorCode.NOT_FLOAT, "timeout is not a float or out of range");
        BigDecimal ms = seconds.multiply(BigDecimal.valueOf(1000)).setScale(0, RoundingMode.CEILING);
        if (ms.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) throw new CairnException(ErrorCode.NOT_FLOAT, "timeout is out of range");
        if (ms.signum() < 0) throw new CairnException(ErrorCode.NOT_FLOAT, "timeout is negative");
        return ms.longValueExact();
    }

    /**
     * Tries {@code attempt}; while it answers nil, waits for one of {@code keys} to fill (asked with
     * {@code lengthType}) or the deadline to pass.
     */
    CompletableFuture<RedisMessage> block(List<byte[]> keys, KvOp.Type lengthType, KvOp attempt, Function<OpResult, RedisMessage> reply,
                                          long timeoutMs, ClientSession session) {
        long deadlineNanos = timeoutMs == 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        CompletableFuture<RedisMessage> done = new CompletableFuture<>();
        new Wait(keys, lengthType, attempt, reply, deadlineNanos, session, done).tryPop();
        return done;
    }

    /** The store's "nothing to pop" (every collection was empty). */
    static boolean isNil(OpResult r) {
        return r.kind() == OpResult.Kind.BULK && r.bytes() == null;
    }

    /** One blocked client's wait. */
    private final class Wait {
        private final List<byte[]> keys;
        private final KvOp.Type lengthType;
        private final KvOp attempt;
        private final Function<OpResult, RedisMessage> reply;
        private final long deadlineNanos;
        private final ClientSession session;
        private final CompletableFuture<RedisMessage> done;

        Wait(List<byte[]> keys, KvOp.Type lengthType, KvOp attempt, Function<OpResult, RedisMessage> reply, long deadlineNanos,
             ClientSession session, CompletableFuture<RedisMessage> done) {
            this.keys = keys;
            this.lengthType = lengthType;
            this.attempt = attempt;
            this.reply = reply;
            this.deadlineNanos = deadlineNanos;
            this.session = session;
            this.done = done;
        }

        void tryPop() {
            ops.execute(attempt, r -> isNil(r) ? null : reply.apply(r)).whenComplete((answer, failure) -> {
                if (failure != null) done.completeExceptionally(failure);
                else if (answer != null && !retryable(answer)) done.complete(answer);
                else waitForElements();
            });
        }

        /** Polls the lengths (reads) until one collection has an element, the deadline passes or the client goes. */
        private void waitForElements() {
            if (clientGone() || System.nanoTime() - deadlineNanos >= 0) {
                done.complete(CollectionOps.NULL_ARRAY);
                return;
            }
            CompletableFuture.runAsync(() -> {
                List<KvOp> lengths = new ArrayList<>(keys.size());
                for (byte[] key : keys) lengths.add(ops.op(lengthType, key, List.of(), 0, KvOp.FLAG_NO_STATS));
                ops.executeAll(lengths).whenComplete((results, failure) -> {
                    // A fatal error (WRONGTYPE) counts as filled: the pop answers it as Redis would.
                    boolean filled = failure == null && results.stream().anyMatch(r -> r.isError() && r.error().retry == RetryClass.FATAL || r.number() > 0);
                    if (filled && !clientGone()) tryPop();
                    else waitForElements();
                });
            }, poll);
        }

        private boolean clientGone() {
            return session != null && session.closing();
        }
    }

    /** An error reply a retry may cure (bucket moving, leader election): the wait goes on. */
    private static boolean retryable(RedisMessage answer) {
        if (!(answer instanceof ErrorRedisMessage error)) return false;
        String text = error.content();
        return text.startsWith("TRYAGAIN") || text.startsWith("CLUSTERDOWN") || text.startsWith("WRONGBUCKET");
    }
}
