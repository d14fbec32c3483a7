package io.cairn.router.resp;

import io.cairn.core.BucketHasher;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvApplier;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.router.KvBackend;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN] (issue 24): both keys in one bucket
 * (CROSSSLOT otherwise, as Redis Cluster), read together in one call, the subsequence computed here
 * ({@link Lcs}). As in redis-server 7.0 the keys' types are checked before the options are parsed,
 * a missing key is an empty string, and IDX's map is an array in RESP2. Redis bounds the table by
 * proto-max-bulk-len (512 MB); Cairn, computing it in the router beside every other client's
 * requests, refuses more than {@link #MAX_TABLE_CELLS} cells (two strings of 2,048 bytes).
 */
final class LcsCommands {
    /** The most (|a|+1)(|b|+1) cells of an LCS table (4 bytes each: 16 MiB). */
    static final long MAX_TABLE_CELLS = 2049L * 2049L;

    private final KvBackend backend;

    LcsCommands(KvBackend backend) {
        this.backend = backend;
    }

    List<CommandSpec> specs() {
        return List.of(new CommandSpec("lcs", -3, List.of("readonly"), 1, 2, 1, (a, s) -> lcs(a)));
    }

    private CompletableFuture<RedisMessage> lcs(CommandArgs args) {
        int bucket = BucketHasher.bucketOf(args.key(1), backend.bucketCount());
        if (BucketHasher.bucketOf(args.key(2), backend.bucketCount()) != bucket) return Replies.done(Replies.error(ErrorCode.CROSS_SLOT, null));
        List<KvOp> reads = List.of(KvOp.get(bucket, args.key(1)), KvOp.get(bucket, args.key(2)));
        return backend.execute(reads).thenApply(results -> {
            for (OpResult r : results) {
                if (r.isError() && r.error() == ErrorCode.WRONG_TYPE) return Replies.error("ERR The specified keys must contain string values");
                if (r.isError()) return Replies.of(r);
            }
            return reply(args, value(results.get(0)), value(results.get(1)));
        });
    }

    private static byte[] value(OpResult r) {
        return r.bytes() == null ? new byte[0] : r.bytes();
    }

    private static RedisMessage reply(CommandArgs args, byte[] a, byte[] b) {
        boolean idx = false;
        boolean len = false;
        boolean withMatchLen = false;
        long minMatchLen = 0;
        for (int j = 3; j < args.count(); j++) {
            if (args.is(j, "idx")) {
                idx = true;
            } else if (args.is(j, "len")) {
                len = true;
            } else if (args.is(j, "withmatchlen")) {
                withMatchLen = true;
            } else if (args.is(j, "minmatchlen") && j + 1 < args.count()) {
                Long n = KvApplier.parseLong(args.raw(++j));
                if (n == null) return Replies.error(ErrorCode.NOT_INTEGER, null);
                minMatchLen = Math.max(0, n);
            } else {
                return Replies.syntaxError();
            }
        }
        if (idx && len) return Replies.error("ERR If you want both the length and indexes, please just use IDX.");
        if (Lcs.cells(a, b) > MAX_TABLE_CELLS) {
            return Replies.error("ERR LCS of strings of " + a.length + " and " + b.length + " bytes exceeds Cairn's bound of "
                    + MAX_TABLE_CELLS + " table cells ((len1+1)*(len2+1))");
        }
        Lcs.Result result = Lcs.of(a, b, minMatchLen);
        if (!idx) return len ? Replies.integer(result.length()) : Replies.bulk(result.subsequence());
        List<RedisMessage> matches = new ArrayList<>(result.matches().size());
        for (Lcs.Match m : result.matches()) {
            List<RedisMessage> entry = new ArrayList<>(3);
            entry.add(Replies.array(List.of(Replies.integer(m.aStart()), Replies.integer(m.aEnd()))));
            entry.add(Replies.array(List.of(Replies.integer(m.bStart()), Replies.integer(m.bEnd()))));
            if (withMatchLen) entry.add(Replies.integer(m.length()));
            matches.add(Replies.array(entry));
        }
        return Replies.array(List.of(Replies.bulk("matches"), Replies.array(matches), Replies.bulk("len"), Replies.integer(result.length())));
    }
}
