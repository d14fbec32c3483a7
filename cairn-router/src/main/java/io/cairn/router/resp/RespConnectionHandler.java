package io.cairn.router.resp;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CodecException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.redis.RedisMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayDeque;
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
        if (ending || !(msg instanceof CommandArgs args)) return;
        enqueue(dispatcher.dispatch(args, session), session.quitRequested());
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
