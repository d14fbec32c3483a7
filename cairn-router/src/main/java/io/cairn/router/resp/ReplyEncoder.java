package io.cairn.router.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;

import java.util.List;

/**
 * Writes a reply (the {@link RedisMessage} values {@link Replies} builds) as RESP2. Small replies,
 * a GET's included, leave as one buffer sized up front; Netty's {@code RedisEncoder} emitted three
 * per bulk string (header, content, CR LF), three entries in the outbound buffer and three pieces
 * of the socket write. A bulk of {@link #COPY_LIMIT} bytes or more is passed on by reference, not
 * copied, so a large MGET costs no second copy of its values.
 */
final class ReplyEncoder extends MessageToMessageEncoder<RedisMessage> {
    static final int COPY_LIMIT = 16 * 1024;
    private static final short CRLF = ('\r' << 8) | '\n';
    /** Type byte, a long's digits and sign, CR LF. */
    private static final int LINE_BYTES = 23;

    @Override
    protected void encode(ChannelHandlerContext ctx, RedisMessage msg, List<Object> out) {
        ByteBufAllocator alloc = ctx.alloc();
        out.add(write(msg, alloc.ioBuffer((int) Math.min(sizeOf(msg), COPY_LIMIT)), alloc, out));
    }

    /** Appends {@code msg} to {@code buf}; returns the buffer to go on with (a new one after a bulk passed by reference). */
    private static ByteBuf write(RedisMessage msg, ByteBuf buf, ByteBufAllocator alloc, List<Object> out) {
        if (msg instanceof FullBulkStringRedisMessage bulk) {
            if (bulk.isNull()) return buf.writeByte('$').writeByte('-').writeByte('1').writeShort(CRLF);
            ByteBuf content = bulk.content();
            line(buf, '$', content.readableBytes());
            if (content.readableBytes() < COPY_LIMIT) {
                return buf.writeBytes(content, content.readerIndex(), content.readableBytes()).writeShort(CRLF);
            }
            out.add(buf);
            out.add(content.retainedDuplicate());
            return alloc.ioBuffer(LINE_BYTES).writeShort(CRLF);
        }
        if (msg instanceof SimpleStringRedisMessage simple) {
            ByteBufUtil.writeUtf8(buf.writeByte('+'), simple.content());
            return buf.writeShort(CRLF);
        }
        if (msg instanceof ErrorRedisMessage error) {
            ByteBufUtil.writeUtf8(buf.writeByte('-'), error.content());
            return buf.writeShort(CRLF);
        }
        if (msg instanceof IntegerRedisMessage integer) return line(buf, ':', integer.value());
        if (msg instanceof ArrayRedisMessage array) {
            if (array.isNull()) return buf.writeByte('*').writeByte('-').writeByte('1').writeShort(CRLF);
            line(buf, '*', array.children().size());
            for (RedisMessage child : array.children()) buf = write(child, buf, alloc, out);
            return buf;
        }
        throw new EncoderException("not a reply: " + msg.getClass().getName());
    }

    /** The encoded size (at most), so a small reply's buffer is allocated once. */
    private static long sizeOf(RedisMessage msg) {
        if (msg instanceof FullBulkStringRedisMessage bulk) return LINE_BYTES + 2 + (bulk.isNull() ? 0 : bulk.content().readableBytes());
        if (msg instanceof SimpleStringRedisMessage simple) return 3 + ByteBufUtil.utf8MaxBytes(simple.content());
        if (msg instanceof ErrorRedisMessage error) return 3 + ByteBufUtil.utf8MaxBytes(error.content());
        if (msg instanceof ArrayRedisMessage array && !array.isNull()) {
            long size = LINE_BYTES;
            for (RedisMessage child : array.children()) size += sizeOf(child);
            return size;
        }
        return LINE_BYTES;
    }

    private static ByteBuf line(ByteBuf buf, char type, long n) {
        buf.writeByte(type);
        if (n >= 0 && n < 10) buf.writeByte('0' + (int) n);
        else ByteBufUtil.writeAscii(buf, Long.toString(n));
        return buf.writeShort(CRLF);
    }
}
