package io.cairn.router.resp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringRedisContent;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.LastBulkStringRedisContent;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import io.netty.util.ReferenceCountUtil;

/**
 * Checks the shape and size of requests between Netty's {@code RedisDecoder} and the
 * aggregators, before anything is buffered. A request is an inline line or a multibulk of bulk
 * strings; anything else (nested arrays, integers inside a request, a bare bulk string, a null
 * bulk) is a protocol error, as are more than {@code maxArgs} arguments, a bulk longer than
 * {@code maxBulkBytes} or a request longer than {@code maxRequestBytes}.
 *
 * <p>A bulk longer than any key or value may be, but within the protocol limit, is not an
 * error of framing: its content is released chunk by chunk as the decoder produces it and an
 * {@link OversizedArgument} takes its place, so the command gets a clear error and the
 * connection survives without the server ever holding the bytes.
 *
 * <p>After the first violation (or decoder exception) every later message is dropped: the
 * decoder may still emit messages from the same read, and the connection is about to close.
 * One instance per connection; runs on its event loop only.
 */
final class RequestGuard extends ChannelInboundHandlerAdapter {
    private final RespConfig config;
    /** Elements of the current multibulk still to arrive; 0 between requests. */
    private long remainingArgs;
    private long requestBytes;
    /** Length of the oversized bulk whose content is streaming past, or -1. */
    private long discardingLength = -1;
    private boolean failed;

    RequestGuard(RespConfig config) {
        this.config = config;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (failed) {
            ReferenceCountUtil.release(msg);
        } else if (discardingLength >= 0) {
            discard(ctx, msg);
        } else {
            String violation = violationOf(msg);
            if (violation != null) {
                ReferenceCountUtil.release(msg);
                fail(ctx, violation);
            } else if (msg instanceof BulkStringHeaderRedisMessage header
                    && header.bulkStringLength() > config.maxArgBytes()) {
                discardingLength = header.bulkStringLength();
            } else {
                ctx.fireChannelRead(msg);
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failed = true;
        ctx.fireExceptionCaught(cause);
    }

    private void discard(ChannelHandlerContext ctx, Object msg) {
        boolean content = msg instanceof BulkStringRedisContent;
        boolean last = msg instanceof LastBulkStringRedisContent;
        ReferenceCountUtil.release(msg);
        if (!content) {
            fail(ctx, "unexpected message inside a bulk string");
        } else if (last) {
            long length = discardingLength;
            discardingLength = -1;
            remainingArgs--;
            ctx.fireChannelRead(new OversizedArgument(length));
        }
    }

    /** Returns why {@code msg} breaks the request shape, or null; counts completed arguments. */
    private String violationOf(Object msg) {
        if (msg instanceof ArrayHeaderRedisMessage header) return onArrayHeader(header);
        if (remainingArgs == 0) {
            return msg instanceof InlineCommandRedisMessage ? null : "expected '*', got '" + typeOf(msg) + "'";
        }
        if (msg instanceof FullBulkStringRedisMessage full) {
            if (full.isNull()) return "invalid bulk length";
            remainingArgs--;
            return null;
        }
        if (msg instanceof BulkStringHeaderRedisMessage header) return onBulkHeader(header);
        if (msg instanceof LastBulkStringRedisContent) {
            remainingArgs--;
            return null;
        }
        if (msg instanceof BulkStringRedisContent) return null;
        return "expected '$', got '" + typeOf(msg) + "'";
    }

    private String onArrayHeader(ArrayHeaderRedisMessage header) {
        if (remainingArgs > 0) return "expected '$', got '*'";
        if (header.length() > config.maxArgs()) return "invalid multibulk length";
        if (header.length() > 0) {
            remainingArgs = header.length();
            requestBytes = 0;
        }
        return null;
    }

    private String onBulkHeader(BulkStringHeaderRedisMessage header) {
        long length = header.bulkStringLength();
        if (length > config.maxBulkBytes()) return "invalid bulk length";
        requestBytes += length;
        if (requestBytes > config.maxRequestBytes()) {
            return "request exceeds the configured maximum of " + config.maxRequestBytes() + " bytes";
        }
        return null;
    }

    private void fail(ChannelHandlerContext ctx, String violation) {
        failed = true;
        ctx.fireExceptionCaught(new RespProtocolException(violation));
    }

    private static char typeOf(Object msg) {
        if (msg instanceof SimpleStringRedisMessage) return '+';
        if (msg instanceof ErrorRedisMessage) return '-';
        if (msg instanceof IntegerRedisMessage) return ':';
        if (msg instanceof ArrayHeaderRedisMessage) return '*';
        if (msg instanceof InlineCommandRedisMessage inline && !inline.content().isEmpty()) {
            return inline.content().charAt(0);
        }
        return '$';
    }
}
