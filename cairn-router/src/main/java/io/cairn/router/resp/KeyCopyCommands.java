package io.cairn.router.resp;

import io.cairn.core.BucketHasher;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.router.KvBackend;
import io.netty.handler.codec.redis.RedisMessage;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * RENAME, RENAMENX and COPY (issue 24): both keys in one bucket (a hash tag), else CROSSSLOT as Redis
 * Cluster answers for two slots; one operation applied atomically in storage, for a key of any type.
 * COPY takes REPLACE, and DB 0 only (Cairn has one database).
 */
final class KeyCopyCommands {
    private static final List<String> WRITE = List.of("write");

    private final KvBackend backend;

    KeyCopyCommands(KvBackend backend) {
        this.backend = backend;
    }

    List<CommandSpec> specs() {
        return List.of(
                new CommandSpec("rename", 3, WRITE, 1, 2, 1, (a, s) -> copy(KvOp.Type.RENAME, a, 0)),
                new CommandSpec("renamenx", 3, List.of("write", "fast"), 1, 2, 1, (a, s) -> copy(KvOp.Type.RENAMENX, a, 0)),
                new CommandSpec("copy", -3, List.of("write", "denyoom"), 1, 2, 1, (a, s) -> copyCommand(a)));
    }

    /** COPY source destination [DB 0] [REPLACE]. */
    private CompletableFuture<RedisMessage> copyCommand(CommandArgs args) {
        int flags = 0;
        for (int i = 3; i < args.count(); i++) {
            if (args.is(i, "replace")) {
                flags = KvOp.FLAG_XX;
            } else if (args.is(i, "db") && i + 1 < args.count()) {
                if (args.longAt(++i) != 0) return Replies.done(Replies.error("ERR DB index is out of range"));
            } else {
                return Replies.done(Replies.syntaxError());
            }
        }
        return copy(KvOp.Type.COPY, args, flags);
    }

    private CompletableFuture<RedisMessage> copy(KvOp.Type type, CommandArgs args, int flags) {
        byte[] from = args.key(1);
        byte[] to = args.key(2);
        int bucket = BucketHasher.bucketOf(from, backend.bucketCount());
        if (BucketHasher.bucketOf(to, backend.bucketCount()) != bucket) return Replies.done(Replies.error(ErrorCode.CROSS_SLOT, null));
        return backend.execute(List.of(new KvOp(type, bucket, from, to, 0, flags))).thenApply(results -> {
            OpResult r = results.get(0);
            return Replies.of(r);
        });
    }
}
