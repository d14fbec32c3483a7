package io.cairn.router.resp;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CodecException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.InlineCommandRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One client connection: turns requests into commands, and writes replies in request order.
 *
 * <p><b>Ordering.</b> A client may pipeline many commands; their backend futures complete in
 * any order on any thread. Each command appends its future to {@link #pending}; replies leave
 * only from the head, once the head's future is done. All queue work happens on the channel's
 * event loop: a completing future merely schedules {@link #drainFromCompletion}, at most one
 * such task outstanding at a time ({@link #drainScheduled}).
 *
 * <p><b>Flushing.</b> Replies are written without flushing; a flush follows each read batch
 * ({@link #channelReadComplete}) and each drain task. Flushing per reply costs a syscall each
 * and would halve pipelined throughput (redis-benchmark -P 16).
 *
 * <p><b>Back pressure.</b> Reading stops (auto-read off) while {@code maxInFlight} commands
 * are pending or the socket's outbound buffer is above its high-water mark, and resumes once
 * the queue has drained to half. Commands already decoded from the last read are still
 * accepted, so the bound may be exceeded by one read buffer's worth of small commands.
 *
 * <p><b>Ending.</b> QUIT and protocol errors end the connection: their reply is the last
 * entry; later input is ignored and the channel closes after writing it.
 */
final class RespConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RespConnectionHandler.class);

    private final CommandDispatcher dispatcher;
    private final ClientRegistry clients;
    private final RespConfig config;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private ChannelHandlerContext ctx;
    private ClientSession session;
    /** No further commands are accepted: QUIT or a protocol error is queued. */
    private boolean ending;
    private boolean unflushed;

    private record Pending(CompletableFuture<RedisMessage> reply, boolean last) {}

    RespConnectionHandler(CommandDispatcher dispatcher, ClientRegistry clients, RespConfig config) {
        this.dispatcher = dispatcher;
        this.clients = clients;
        this.config = config;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        session = clients.open(ctx.channel().remoteAddress(), ctx.channel().localAddress());
        log.debug("client {} connected from {}", session.id(), ctx.channel().remoteAddress());
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (session != null) {
            clients.closed(session);
            log.debug("client {} disconnected with {} replies pending", session.id(), pending.size());
        }
        pending.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (ending) return;
            CommandArgs args = toArgs(msg);
            if (args == null) return;
            CompletableFuture<RedisMessage> reply = dispatcher.dispatch(args, session);
            enqueue(reply, session.quitRequested());
        } catch (RespProtocolException e) {
            protocolError(e.getMessage());
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushIfNeeded();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        updateAutoRead();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (root instanceof RespProtocolException || cause instanceof CodecException) {
            protocolError(root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName());
        } else if (cause instanceof IOException) {
            log.debug("client {}: {}", session == null ? "?" : session.id(), cause.toString());
            ctx.close();
        } else {
            log.warn("client {}: unexpected failure, closing", session == null ? "?" : session.id(), cause);
            ctx.close();
        }
    }

    /** Null for requests Redis ignores: empty lines and empty or null multibulks. */
    private CommandArgs toArgs(Object msg) {
        if (msg instanceof ArrayRedisMessage array) {
            List<RedisMessage> children = array.children();
            if (array.isNull() || children.isEmpty()) return null;
            byte[][] argv = new byte[children.size()][];
            BitSet oversized = null;
            for (int i = 0; i < argv.length; i++) {
                RedisMessage child = children.get(i);
                if (child instanceof FullBulkStringRedisMessage bulk) {
                    argv[i] = ByteBufUtil.getBytes(bulk.content());
                } else if (child instanceof OversizedArgument) {
                    argv[i] = CommandArgs.oversizedPlaceholder();
                    if (oversized == null) oversized = new BitSet(argv.length);
                    oversized.set(i);
                } else {
                    throw new RespProtocolException("expected '$' in a request"); // RequestGuard prevents this
                }
            }
            return new CommandArgs(argv, oversized, config);
        }
        if (msg instanceof InlineCommandRedisMessage inline) return inlineArgs(inline.content());
        throw new RespProtocolException("expected '*'");
    }

    /**
     * Inline commands (telnet style, redis-benchmark's first PING): words split on blanks.
     * Unlike Redis there is no quoting, and lines must end in CR LF (Netty's decoder).
     */
    private CommandArgs inlineArgs(String line) {
        // The decoder bounds only lines still waiting for their end; a whole line can be longer.
        if (line.length() > config.maxInlineBytes()) throw new RespProtocolException("too big inline request");
        String trimmed = line.strip();
        if (trimmed.isEmpty()) return null;
        String[] words = trimmed.split("[ \t]+");
        if (words.length > config.maxArgs()) throw new RespProtocolException("invalid multibulk length");
        byte[][] argv = new byte[words.length][];
        for (int i = 0; i < words.length; i++) argv[i] = words[i].getBytes(StandardCharsets.UTF_8);
        return new CommandArgs(argv, null, config);
    }

    private void protocolError(String detail) {
        if (ending || !ctx.channel().isActive()) return;
        log.debug("client {}: protocol error: {}", session.id(), detail);
        enqueue(Replies.done(Replies.error("ERR Protocol error: " + detail)), true);
        flushIfNeeded();
    }

    private void enqueue(CompletableFuture<RedisMessage> reply, boolean last) {
        pending.add(new Pending(reply, last));
        if (last) ending = true;
        if (!reply.isDone()) reply.whenComplete((r, e) -> scheduleDrain());
        writeReadyReplies();
        updateAutoRead();
    }

    /** Runs on whichever thread completed a backend future. */
    private void scheduleDrain() {
        if (drainScheduled.compareAndSet(false, true)) ctx.executor().execute(this::drainFromCompletion);
    }

    private void drainFromCompletion() {
        // Cleared first: a future completing from here on schedules another drain.
        drainScheduled.set(false);
        if (!ctx.channel().isActive()) {
            pending.clear();
            return;
        }
        writeReadyReplies();
        flushIfNeeded();
        updateAutoRead();
    }

    /** Writes the replies at the head of the queue whose futures are done, in order. */
    private void writeReadyReplies() {
        while (!pending.isEmpty() && pending.peek().reply().isDone()) {
            Pending head = pending.poll();
            RedisMessage reply = head.reply().getNow(null);
            if (reply == null) reply = Replies.error("ERR internal error: command produced no reply");
            if (head.last()) {
                pending.clear();
                ctx.writeAndFlush(reply).addListener(f -> closeGracefully(f.isSuccess()));
                unflushed = false;
                return;
            }
            ctx.write(reply, ctx.voidPromise());
            unflushed = true;
        }
    }

    /**
     * Sends FIN after the last reply and drains (ignores) what the client still sends for a moment
     * before closing: closing with unread input would reset the connection, and a reset can make
     * the client lose the error reply it was about to read.
     */
    private void closeGracefully(boolean written) {
        if (written && ctx.channel() instanceof io.netty.channel.socket.SocketChannel socket) {
            socket.shutdownOutput();
            socket.config().setAutoRead(true);
            ctx.executor().schedule(() -> ctx.close(), CLOSE_DRAIN_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
        } else {
            ctx.close();
        }
    }

    private static final long CLOSE_DRAIN_MS = 1_000;

    private void flushIfNeeded() {
        if (unflushed) {
            unflushed = false;
            ctx.flush();
        }
    }

    private void updateAutoRead() {
        var channelConfig = ctx.channel().config();
        boolean reading = channelConfig.isAutoRead();
        if (ending) {
            return; // input after the last reply is drained and ignored (see closeGracefully)
        } else if (reading && (pending.size() >= config.maxInFlightPerConnection() || !ctx.channel().isWritable())) {
            channelConfig.setAutoRead(false);
        } else if (!reading && pending.size() <= config.maxInFlightPerConnection() / 2 && ctx.channel().isWritable()) {
            channelConfig.setAutoRead(true);
        }
    }
}
