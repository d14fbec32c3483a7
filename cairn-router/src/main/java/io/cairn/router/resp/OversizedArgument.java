package io.cairn.router.resp;

import io.netty.handler.codec.redis.RedisMessage;

/**
 * Stands in for a bulk string that was longer than any key or value may be. Its bytes were
 * discarded as they arrived, so a client sending a 500 MB value costs no memory; the command
 * that carries it is answered with an error and the connection stays usable.
 */
record OversizedArgument(long length) implements RedisMessage {
}
