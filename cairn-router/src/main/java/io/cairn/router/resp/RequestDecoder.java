package io.cairn.router.resp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;

/**
 * Turns the bytes of a connection into {@link CommandArgs}, one per request, in a single pass:
 * a request is a multibulk of bulk strings ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}) or an inline
 * line ({@code GET k\r\n}). Each argument is copied once, from the socket's buffer into its
 * array; nothing else is allocated per argument.
 *
 * <p>Limits are checked from the headers, before anything is buffered: more than {@code maxArgs}
 * arguments, a bulk longer than {@code maxBulkBytes} or bulks adding up to more than
 * {@code maxRequestBytes} are protocol errors, as is any other shape (nested arrays, integers or
 * null bulks inside a request, a request starting with {@code $ + - :}). A bulk longer than any
 * key or value may be, but within the protocol limit, is skipped as it arrives and marked
 * oversized, so its command gets a clear error, the connection survives, and the server never
 * holds the bytes.
 *
 * <p>A protocol error is thrown as {@link RespProtocolException} after the requests before it
 * were passed on; everything after it is discarded (the connection is about to close).
 * <p>Input held: after every read the decoder reports what it holds of the connection's input
 * (bytes not yet decoded plus the arguments of the request being read) to {@code inputHeld};
 * when that answers false (client-query-buffer-limit), the rest of the input is discarded.
 *
 * <p>Unlike Redis, inline lines have no quoting. One instance per connection.
 */
final class RequestDecoder extends ByteToMessageDecoder {
    /** Longest valid "*N" or "$N" line: type, sign, 18 digits (a long cannot hold every 19-digit number), CR LF. */
    private static final int MAX_LENGTH_LINE_BYTES = 22;
    /** Arguments from this size on are followed by a look at the input held (smaller ones are checked once per read). */
    private static final int LARGE_ARG_BYTES = 4096;

    private final RespConfig config;
    /** Arguments of the multibulk being read; null between requests. */
    private byte[][] argv;
    private int argCount;
    private BitSet oversized;
    private long requestBytes;
    /** Length of the bulk whose content (and CR LF) is next; -1 when its header is next. */
    private long bulkLength = -1;
    /** Bytes of an oversized bulk (content and CR LF) still to discard. */
    private long skipping;
    private boolean failed;
    /** Bytes of the arguments of {@link #argv} read so far. */
    private long heldArgBytes;
    private final java.util.function.LongPredicate inputHeld;

    RequestDecoder(RespConfig config) {
        this(config, bytes -> true);
    }

    /** @param inputHeld told the input bytes held after each read; false: stop decoding (the connection is closing) */
    RequestDecoder(RespConfig config, java.util.function.LongPredicate inputHeld) {
        this.config = config;
        this.inputHeld = inputHeld;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        try {
            while (in.isReadable() && decodeStep(in, out)) {
                // each step consumed input; continue with what is left
            }
            if (!failed) withinLimit(in);
        } catch (RespProtocolException e) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    /** Reports the input held; past the limit, discards it all and decodes nothing more. */
    private boolean withinLimit(ByteBuf in) {
        if (inputHeld.test(in.readableBytes() + (argv == null ? 0 : heldArgBytes))) return true;
        failed = true;
        in.skipBytes(in.readableBytes());
        return false;
    }

    /** Consumes one header, bulk or inline line if it is complete; false when more input is needed. */
    private boolean decodeStep(ByteBuf in, List<Object> out) {
        if (skipping > 0) {
            int n = (int) Math.min(skipping, in.readableBytes());
            in.skipBytes(n);
            skipping -= n;
            if (skipping == 0) addOversized(out);
            return true;
        }
        if (argv == null) {
            byte type = in.getByte(in.readerIndex());
            if (type == '*') return readArrayHeader(in);
            if (type == '$' || type == ':' || type == '+' || type == '-') {
                throw new RespProtocolException("expected '*', got '" + (char) type + "'");
            }
            return readInline(in, out);
        }
        return bulkLength < 0 ? readBulkHeader(in) : readBulk(in, out);
    }

    private boolean readArrayHeader(ByteBuf in) {
        long count = readLength(in, "invalid multibulk length");
        if (count == Long.MIN_VALUE) return false;
        if (count > config.maxArgs()) throw new RespProtocolException("invalid multibulk length");
        if (count > 0) { // Redis ignores *0 and *-1
            argv = new byte[(int) count][];
            argCount = 0;
            heldArgBytes = 0;
            oversized = null;
            requestBytes = 0;
        }
        return true;
    }

    private boolean readBulkHeader(ByteBuf in) {
        byte type = in.getByte(in.readerIndex());
        if (type != '$') throw new RespProtocolException("expected '$', got '" + (char) type + "'");
        long length = readLength(in, "invalid bulk length");
        if (length == Long.MIN_VALUE) return false;
        if (length < 0 || length > config.maxBulkBytes()) throw new RespProtocolException("invalid bulk length");
        requestBytes += length;
        if (requestBytes > config.maxRequestBytes()) {
            throw new RespProtocolException(
                    "request exceeds the configured maximum of " + config.maxRequestBytes() + " bytes");
        }
        if (length > config.maxArgBytes()) {
            skipping = length + 2;
        } else {
            bulkLength = length;
        }
        return true;
    }

    private boolean readBulk(ByteBuf in, List<Object> out) {
        int length = (int) bulkLength;
        if (in.readableBytes() < length + 2) return false;
        byte[] arg = new byte[length];
        in.readBytes(arg);
        if (in.readByte() != '\r' || in.readByte() != '\n') {
            throw new RespProtocolException("expected CR LF after a bulk string of " + length + " bytes");
        }
        bulkLength = -1;
        addArgument(arg, out);
        // A request of many large arguments may pass the limit within one read: look after each large one.
        return length < LARGE_ARG_BYTES || withinLimit(in);
    }

    private void addOversized(List<Object> out) {
        if (oversized == null) oversized = new BitSet(argv.length);
        oversized.set(argCount);
        addArgument(CommandArgs.oversizedPlaceholder(), out);
    }

    private void addArgument(byte[] arg, List<Object> out) {
        argv[argCount++] = arg;
        heldArgBytes += arg.length;
        if (argCount == argv.length) {
            out.add(new CommandArgs(argv, oversized, config));
            argv = null;
        }
    }

    /**
     * Reads a "*N" or "$N" line (type byte, optional minus, digits, CR LF); returns
     * {@code Long.MIN_VALUE} when the line is not complete yet.
     */
    private static long readLength(ByteBuf in, String error) {
        int start = in.readerIndex();
        int end = in.indexOf(start, start + Math.min(in.readableBytes(), MAX_LENGTH_LINE_BYTES), (byte) '\n');
        if (end < 0) {
            if (in.readableBytes() >= MAX_LENGTH_LINE_BYTES) throw new RespProtocolException(error);
            return Long.MIN_VALUE;
        }
        int last = end - 1; // the CR
        if (last <= start + 1 || in.getByte(last) != '\r') throw new RespProtocolException(error);
        int i = start + 1;
        boolean negative = in.getByte(i) == '-';
        if (negative) i++;
        if (i == last || last - i > 18) throw new RespProtocolException(error);
        long value = 0;
        for (; i < last; i++) {
            byte digit = in.getByte(i);
            if (digit < '0' || digit > '9') throw new RespProtocolException(error);
            value = value * 10 + (digit - '0');
        }
        in.readerIndex(end + 1);
        return negative ? -value : value;
    }

    /**
     * Inline commands (telnet style, redis-benchmark's first PING): words split on blanks; the
     * line ends in LF or CR LF. Empty lines are ignored, as in Redis.
     */
    private boolean readInline(ByteBuf in, List<Object> out) {
        int start = in.readerIndex();
        int lineLimit = config.maxInlineBytes() + 2; // the words and CR LF
        int end = in.indexOf(start, start + Math.min(in.readableBytes(), lineLimit), (byte) '\n');
        if (end < 0) {
            if (in.readableBytes() >= lineLimit) throw new RespProtocolException("too big inline request");
            return false;
        }
        String line = in.toString(start, end - start, StandardCharsets.UTF_8).strip();
        in.readerIndex(end + 1);
        if (line.isEmpty()) return true;
        String[] words = line.split("[ \t]+");
        if (words.length > config.maxArgs()) throw new RespProtocolException("invalid multibulk length");
        byte[][] args = new byte[words.length][];
        for (int i = 0; i < words.length; i++) args[i] = words[i].getBytes(StandardCharsets.UTF_8);
        out.add(new CommandArgs(args, null, config));
        return true;
    }
}
