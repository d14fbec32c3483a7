package io.cairn.replication.microraft;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;

import java.util.List;

/**
 * Splits incoming bytes into frames of a 4-byte length and a body. Until the connection's hello is
 * accepted ({@link #helloAccepted()}) a frame may be at most {@link #HELLO_MAX_BYTES}, so a stranger
 * cannot make the member buffer a large frame; after it, at most the member's frame limit. A longer
 * length fails at once with a {@link TooLongFrameException}, before its body is read.
 */
final class FrameDecoder extends ByteToMessageDecoder {
    static final int HELLO_MAX_BYTES = 1024;

    private final int maxFrameBytes;
    private int limit = HELLO_MAX_BYTES;

    FrameDecoder(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    void helloAccepted() {
        limit = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws TooLongFrameException {
        // one frame per call: the hello is handled (and the limit raised) before the next length is checked
        if (in.readableBytes() < 4) return;
        int length = in.getInt(in.readerIndex());
        if (length < 0 || length > limit) {
            in.skipBytes(in.readableBytes());
            throw new TooLongFrameException("a frame of " + Integer.toUnsignedString(length) + " bytes; at most " + limit + " are taken");
        }
        if (in.readableBytes() < 4 + length) return;
        in.skipBytes(4);
        out.add(in.readRetainedSlice(length));
    }
}
