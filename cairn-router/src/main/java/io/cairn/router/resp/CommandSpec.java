package io.cairn.router.resp;

import io.netty.handler.codec.redis.RedisMessage;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One command the server understands, described the way Redis's COMMAND reply does.
 *
 * @param name     lower case
 * @param arity    Redis convention: n means exactly n arguments (name included), -n at least n
 * @param flags    e.g. "write", "readonly", "fast"
 * @param firstKey position of the first key argument, 0 for none
 * @param lastKey  position of the last key, -1 for "the last argument"
 * @param keyStep  distance between keys (2 for MSET)
 */
record CommandSpec(String name, int arity, List<String> flags, int firstKey, int lastKey, int keyStep,
                   Handler handler, MovableKeys movableKeys) {

    /** A command whose keys are all at the fixed positions firstKey..lastKey by keyStep. */
    CommandSpec(String name, int arity, List<String> flags, int firstKey, int lastKey, int keyStep, Handler handler) {
        this(name, arity, flags, firstKey, lastKey, keyStep, handler, null);
    }

    /**
     * Where the keys are in a command whose keys follow a numkeys argument (Redis's "movablekeys"), so
     * MULTI can refuse keys of another bucket when the command is queued, as Redis Cluster does.
     */
    @FunctionalInterface
    interface MovableKeys {
        /** The positions of the keys in {@code args}; an empty list when numkeys is malformed (the command refuses it when run). */
        List<Integer> positions(CommandArgs args);
    }

    /** Runs a command whose arity was checked; may throw CairnException for a bad argument. */
    @FunctionalInterface
    interface Handler {
        CompletableFuture<RedisMessage> handle(CommandArgs args, ClientSession session);
    }

    boolean acceptsArgCount(int argc) {
        return arity >= 0 ? argc == arity : argc >= -arity;
    }
}
