package io.cairn.router.resp;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.OpResult;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Builders of RESP2 replies, including Redis's exact error texts. */
final class Replies {
    static final RedisMessage OK = new SimpleStringRedisMessage("OK");
    static final RedisMessage PONG = new SimpleStringRedisMessage("PONG");
    static final RedisMessage NIL = FullBulkStringRedisMessage.NULL_INSTANCE;
    static final RedisMessage EMPTY_ARRAY = ArrayRedisMessage.EMPTY_INSTANCE;
    static final RedisMessage ZERO = new IntegerRedisMessage(0);
    static final RedisMessage ONE = new IntegerRedisMessage(1);
    /** Redis quotes at most this many characters of arguments in "unknown command". */
    private static final int UNKNOWN_COMMAND_ARGS_CHARS = 128;

    private Replies() {}

    static CompletableFuture<RedisMessage> done(RedisMessage reply) {
        return CompletableFuture.completedFuture(reply);
    }

    static RedisMessage bulk(byte[] bytes) {
        return bytes == null ? NIL : new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(bytes));
    }

    static RedisMessage bulk(String text) {
        return bulk(text.getBytes(StandardCharsets.UTF_8));
    }

    static RedisMessage integer(long n) {
        return n == 0 ? ZERO : n == 1 ? ONE : new IntegerRedisMessage(n);
    }

    static RedisMessage array(List<RedisMessage> children) {
        return children.isEmpty() ? EMPTY_ARRAY : new ArrayRedisMessage(children);
    }

    static RedisMessage bulkArray(List<String> texts) {
        List<RedisMessage> children = new ArrayList<>(texts.size());
        for (String text : texts) children.add(bulk(text));
        return array(children);
    }

    /** An error line; the text must start with its prefix word (ERR, NOPROTO, ...). */
    static RedisMessage error(String text) {
        // A CR or LF would end the error line early and desynchronise the client.
        return new ErrorRedisMessage(text.replace('\r', ' ').replace('\n', ' '));
    }

    static RedisMessage error(ErrorCode code, String message) {
        return error(code.redisPrefix + " " + (message == null ? code.description : message));
    }

    static RedisMessage error(CairnException e) {
        return error(e.code(), e.getMessage());
    }

    static RedisMessage of(OpResult result) {
        return switch (result.kind()) {
            case BULK -> bulk(result.bytes());
            case INTEGER -> integer(result.number());
            case OK -> OK;
            case ERROR -> error(result.error(), result.message());
            case STATUS -> new SimpleStringRedisMessage(new String(result.bytes(), StandardCharsets.UTF_8));
            case ARRAY -> {
                List<byte[]> elements = result.elements();
                List<RedisMessage> children = new ArrayList<>(elements.size());
                for (byte[] e : elements) children.add(bulk(e));
                yield array(children);
            }
        };
    }

    static RedisMessage wrongArity(String commandName) {
        return error("ERR wrong number of arguments for '" + commandName + "' command");
    }

    static RedisMessage syntaxError() {
        return error("ERR syntax error");
    }

    static RedisMessage unknownSubcommand(CommandArgs args) {
        return error("ERR unknown subcommand '" + args.printable(1) + "'. Try "
                + args.name().toUpperCase(java.util.Locale.ROOT) + " HELP.");
    }

    /** Redis's text, e.g. "ERR unknown command 'foo', with args beginning with: 'a' 'b' ". */
    static RedisMessage unknownCommand(CommandArgs args) {
        StringBuilder quoted = new StringBuilder();
        for (int i = 1; i < args.count() && quoted.length() < UNKNOWN_COMMAND_ARGS_CHARS; i++) {
            String arg = args.printable(i);
            int room = UNKNOWN_COMMAND_ARGS_CHARS - quoted.length();
            quoted.append('\'').append(arg, 0, Math.min(arg.length(), room)).append("' ");
        }
        String name = args.printable(0);
        return error("ERR unknown command '" + name.substring(0, Math.min(name.length(), 128))
                + "', with args beginning with: " + quoted);
    }
}
