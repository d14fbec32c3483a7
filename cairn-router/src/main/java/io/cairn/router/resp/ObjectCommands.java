package io.cairn.router.resp;

import io.cairn.core.kv.KvOp;
import io.cairn.router.KvBackend;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * OBJECT ENCODING, REFCOUNT, IDLETIME, FREQ and HELP (issue 24). ENCODING and REFCOUNT are derived
 * by the store from the value's content (ObjectApplier says how and where it differs from Redis).
 * Cairn does not track accesses: IDLETIME answers 0 for an existing key, and FREQ answers Redis's
 * error for a server without an LFU eviction policy (Cairn has no eviction); a missing key is nil.
 */
final class ObjectCommands {
    private static final List<String> HELP = List.of(
            "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "ENCODING <key>",
            "    Return the kind of internal representation used in order to store the value",
            "    associated with a <key>.",
            "FREQ <key>",
            "    Return the access frequency index of the <key>. The returned integer is",
            "    proportional to the logarithm of the recent access frequency of the key.",
            "IDLETIME <key>",
            "    Return the idle time of the <key>, that is the approximated number of",
            "    seconds elapsed since the last access to the key.",
            "REFCOUNT <key>",
            "    Return the number of references of the value associated with the specified",
            "    <key>.",
            "HELP",
            "    Prints this help.");
    private static final String NO_LFU = "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that"
            + " when switching between policies at runtime LRU and LFU data will take some time to adjust.";

    private final CollectionOps ops;

    ObjectCommands(CollectionOps ops) {
        this.ops = ops;
    }

    List<CommandSpec> specs() {
        return List.of(new CommandSpec("object", -2, List.of("readonly"), 2, 2, 1, (a, s) -> object(a)));
    }

    private CompletableFuture<RedisMessage> object(CommandArgs args) {
        String sub = args.string(1).toLowerCase(Locale.ROOT);
        if (sub.equals("help") && args.count() == 2) {
            return Replies.done(Replies.array(HELP.stream().map(line -> (RedisMessage) new SimpleStringRedisMessage(line)).toList()));
        }
        if (!List.of("encoding", "refcount", "idletime", "freq", "help").contains(sub)) return Replies.done(Replies.unknownSubcommand(args));
        if (sub.equals("help")) return Replies.done(Replies.wrongArity("object|help"));
        if (args.count() != 3) return Replies.done(Replies.wrongArity("object|" + sub));
        byte[] key = args.key(2);
        return switch (sub) {
            case "encoding" -> ops.execute(new KvOp(KvOp.Type.OBJECT, bucketOf(key), key, null, KvOp.OBJECT_ENCODING, 0));
            case "refcount" -> ops.execute(new KvOp(KvOp.Type.OBJECT, bucketOf(key), key, null, KvOp.OBJECT_REFCOUNT, 0));
            default -> ops.execute(KvOp.of(KvOp.Type.EXISTS, bucketOf(key), key),
                    r -> r.number() == 0 ? Replies.NIL : sub.equals("idletime") ? Replies.ZERO : Replies.error(NO_LFU));
        };
    }

    private int bucketOf(byte[] key) {
        return ops.bucketOf(key);
    }
}
