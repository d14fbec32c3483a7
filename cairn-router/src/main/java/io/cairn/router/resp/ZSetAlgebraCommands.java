package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The sorted-set algebra of Redis 7 (issue 24): ZUNION, ZINTER, ZDIFF, ZINTERCARD, ZUNIONSTORE,
 * ZINTERSTORE, ZDIFFSTORE and ZRANGESTORE, each one {@link KvOp} applied atomically by the store
 * (ZSetAlgebraApplier). Every key must share a bucket (a {hash tag}); keys of two buckets are refused
 * with Redis Cluster's CROSSSLOT, as the set algebra is. Only numkeys is checked here, since Redis
 * checks it before it looks at the keys; the options after the keys (WEIGHTS, AGGREGATE, WITHSCORES,
 * LIMIT) go to the store unparsed, because Redis answers WRONGTYPE for a source before it reads them.
 */
final class ZSetAlgebraCommands {
    private static final List<String> READ = List.of("readonly");
    private static final List<String> WRITE = List.of("write", "denyoom");

    private final CollectionOps ops;

    ZSetAlgebraCommands(CollectionOps ops) {
        this.ops = ops;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("zunion", -3, READ, 0, 0, 0, (a, s) -> combine(KvOp.Type.ZUNION, "zunion", a, false), a -> sources(a, 1)),
                new CommandSpec("zinter", -3, READ, 0, 0, 0, (a, s) -> combine(KvOp.Type.ZINTER, "zinter", a, false), a -> sources(a, 1)),
                new CommandSpec("zdiff", -3, READ, 0, 0, 0, (a, s) -> combine(KvOp.Type.ZDIFF, "zdiff", a, false), a -> sources(a, 1)),
                new CommandSpec("zintercard", -3, READ, 0, 0, 0, (a, s) -> combine(KvOp.Type.ZINTERCARD, "zintercard", a, false),
                        a -> sources(a, 1)),
                new CommandSpec("zunionstore", -4, WRITE, 1, 1, 1, (a, s) -> combine(KvOp.Type.ZUNIONSTORE, "zunionstore", a, true),
                        a -> sources(a, 2)),
                new CommandSpec("zinterstore", -4, WRITE, 1, 1, 1, (a, s) -> combine(KvOp.Type.ZINTERSTORE, "zinterstore", a, true),
                        a -> sources(a, 2)),
                new CommandSpec("zdiffstore", -4, WRITE, 1, 1, 1, (a, s) -> combine(KvOp.Type.ZDIFFSTORE, "zdiffstore", a, true),
                        a -> sources(a, 2)),
                new CommandSpec("zrangestore", -5, WRITE, 1, 2, 1, (a, s) -> rangeStore(a)));
    }

    /** The keys' positions after numkeys at {@code numkeysAt} (SINTERCARD and LMPOP use it too); none when numkeys is not a usable count. */
    static List<Integer> sources(CommandArgs args, int numkeysAt) {
        Long numKeys = io.cairn.core.kv.KvApplier.parseLong(args.raw(numkeysAt));
        if (numKeys == null || numKeys < 1 || numKeys > args.count() - numkeysAt - 1) return new ArrayList<>();
        List<Integer> positions = new ArrayList<>(numKeys.intValue());
        for (int i = 1; i <= numKeys; i++) positions.add(numkeysAt + i);
        return positions;
    }

    /**
     * [destination] numkeys key [key ...] [options]: numkeys checked as redis-server checks it (an
     * integer, at least 1, no more than the arguments left), then one operation whose packed list is
     * the source keys and the options as given; {@code arg} is numkeys.
     */
    private CompletableFuture<RedisMessage> combine(KvOp.Type type, String name, CommandArgs args, boolean store) {
        int numkeysAt = store ? 2 : 1;
        long numKeys = args.longAt(numkeysAt);
        if (numKeys < 1) throw new CairnException(ErrorCode.SYNTAX, "at least 1 input key is needed for '" + name + "' command");
        if (numKeys > args.count() - numkeysAt - 1) return Replies.done(Replies.syntaxError());
        List<byte[]> keys = CollectionOps.keys(args, numkeysAt + 1, numkeysAt + (int) numKeys);
        List<byte[]> packed = new ArrayList<>(keys);
        for (int i = numkeysAt + 1 + (int) numKeys; i < args.count(); i++) packed.add(args.value(i));
        List<byte[]> bucketKeys = new ArrayList<>(keys);
        if (store) bucketKeys.add(args.key(1));
        ops.requireOneBucket(bucketKeys);
        byte[] opKey = store ? args.key(1) : keys.get(0);
        return ops.execute(ops.op(type, opKey, packed, numKeys, 0));
    }

    /** ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]: ZRANGE's parsing, no WITHSCORES. */
    private CompletableFuture<RedisMessage> rangeStore(CommandArgs args) {
        ZSetCommands.Range range = ZSetCommands.Range.parse(args, 3, null, false, true);
        if (range.refused() != null) return Replies.done(range.refused());
        ops.requireOneBucket(List.of(args.key(1), args.key(2)));
        List<byte[]> packed = new ArrayList<>(range.packed().size() + 1);
        packed.add(args.key(2));
        packed.addAll(range.packed());
        return ops.execute(ops.op(KvOp.Type.ZRANGESTORE, args.key(1), packed, 0, range.flags()));
    }
}
