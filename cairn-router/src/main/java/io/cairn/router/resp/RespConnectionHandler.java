package io.cairn.router.resp;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
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
 * <p><b>Back pressure (issue 28).</b> A command starts only while the connection's reply bytes
 * stay under {@link RespConfig#outputHighWaterBytes}: the bytes queued for the socket plus the
 * replies still being computed, estimated from the sizes of its recent replies
 * ({@link #replyBytesEstimate}), and while fewer than {@code maxInFlight} commands are pending.
 * Otherwise commands decoded from the last read wait in {@link #waiting} (they count towards the
 * query buffer) and reading stops (auto-read off) until the socket has drained below the
 * low-water mark and the pending commands fit again. So a client that does not read holds about
 * the high-water mark of replies, and slows only itself: before this, every command of the
 * last 64 KiB read started at once, and 3,000 pipelined GETs of 100 KB held 300 MB.
 *
 * <p><b>Limits.</b> Past the hard output limit (checked as replies are written) or the query
 * buffer limit (checked after each read) the connection is closed at once, counted and logged
 * ({@link #disconnect}); the soft limit, idle timeout and maxmemory-clients are the
 * {@link ClientWatchdog}'s, which closes through the same method.
 *
 * <p><b>Ending.</b> QUIT and protocol errors end the connection: their reply is the last
 * entry; later input is ignored and the channel closes after writing it.
 */
final class RespConnectionHandler extends ChannelInboundHandlerAdapter implements ClientSession.Connection {
    private static final Logger log = LoggerFactory.getLogger(RespConnectionHandler.class);
    private static final long CLOSE_DRAIN_MS = 1_000;
    /** Commands a new connection may have in flight before its first reply sizes are known. */
    static final int INITIAL_WINDOW_COMMANDS = 8;

    private final CommandDispatcher dispatcher;
    private final ClientRegistry clients;
    private final RespConfig config;
    private final ClientMetrics metrics;
    private final ClientWatchdog watchdog;
    private final ArrayDeque<Pending> pending = new ArrayDeque<>();
    /** Commands read but not started (a {@link CommandArgs}, or a protocol error's text in its place in line). */
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    private long waitingBytes;
    /** What the decoder holds of this connection's input (its last report). */
    private long decoderBytes;
    /** Moving average of this connection's encoded reply sizes: what a pending command is expected to add. */
    private long replyBytesEstimate;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private volatile ChannelHandlerContext ctx;
    private ClientSession session;
    /** No further commands are accepted: QUIT or a protocol error is queued. */
    private boolean ending;
    /** Closed by a client limit. */
    private boolean disconnected;
    private boolean unflushed;
    /** Last value given to {@link ClientSession#awaitingReplies}, so that it is written on changes only. */
    private boolean awaitingReplies;

    private record Pending(CompletableFuture<RedisMessage> reply, boolean last) {}

    RespConnectionHandler(CommandDispatcher dispatcher, ClientRegistry clients, RespConfig config,
                          ClientMetrics metrics, ClientWatchdog watchdog) {
        this.dispatcher = dispatcher;
        this.clients = clients;
        this.config = config;
        this.metrics = metrics;
        this.watchdog = watchdog;
        // A new connection starts cautious (8 commands in flight) until its replies show their size: with
        // the router's backend all replies of a read batch complete together, so the first window is what
        // a client that never reads gets to hold (8 x 100 KB rather than 64 x 100 KB in issue 28's test).
        this.replyBytesEstimate = Math.max(1, config.outputHighWaterBytes() / INITIAL_WINDOW_COMMANDS);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        session = clients.open(ctx.channel().remoteAddress(), ctx.channel().localAddress());
        session.attach(this);
        dispatcher.welcome(session);
        log.debug("client {} connected from {}", session.id(), ctx.channel().remoteAddress());
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (session != null) session.closing(true); // a blocked BLPOP stops waiting rather than pop for nobody
        clients.closed(session);
        if (session != null) log.debug("client {} disconnected with {} replies pending", session.id(), pending.size());
        pending.clear();
        waiting.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (ending || disconnected || !(msg instanceof CommandArgs args)) return;
        if (!waiting.isEmpty() || mustWait()) {
            waiting.add(args);
            waitingBytes += args.heldBytes();
            if (!queryBufferWithinLimit()) return;
            updateAutoRead();
        } else {
            start(args);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        session.interacted(clients.nanoTime());
        flushIfNeeded();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // Not inline: this fires from inside a write or flush of ours.
        if (ctx.channel().isWritable()) ctx.executor().execute(this::startWaiting);
        else updateAutoRead();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (root instanceof RespProtocolException || cause instanceof CodecException) {
            String detail = root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
            if (waiting.isEmpty()) protocolError(detail);
            else waiting.add(detail); // answered after the commands read before it
        } else if (cause instanceof IOException) {
            log.debug("client {}: {}", session == null ? "?" : session.id(), cause.toString());
            ctx.close();
        } else {
            log.warn("client {}: unexpected failure, closing", session == null ? "?" : session.id(), cause);
            ctx.close();
        }
    }

    /** The decoder's report of the input it holds ({@link RequestDecoder}); false once over the limit. */
    boolean inputHeld(long bytes) {
        decoderBytes = bytes;
        return queryBufferWithinLimit();
    }

    private boolean queryBufferWithinLimit() {
        long qbuf = decoderBytes + waitingBytes;
        if (session != null) session.queryBufferBytes(qbuf);
        if (qbuf <= config.queryBufferLimitBytes()) return true;
        disconnect(ClientLimit.QUERY_BUFFER, "qbuf=" + qbuf + " above " + config.queryBufferLimitBytes() + " bytes");
        return false;
    }

    private void start(CommandArgs args) {
        enqueue(dispatcher.dispatch(args, session), session.quitRequested());
    }

    /** Starts waiting commands while their replies fit; resumes reading once none wait. */
    private void startWaiting() {
        if (disconnected || !ctx.channel().isActive()) return;
        if (!waiting.isEmpty() && mayResume()) {
            while (!waiting.isEmpty() && !ending && !mustWait()) {
                Object next = waiting.poll();
                if (next instanceof CommandArgs args) {
                    waitingBytes -= args.heldBytes();
                    start(args);
                } else {
                    protocolError((String) next);
                }
            }
            if (ending) waiting.clear();
            if (waiting.isEmpty()) waitingBytes = 0;
            queryBufferWithinLimit();
            flushIfNeeded();
        }
        updateAutoRead();
    }

    private void protocolError(String detail) {
        if (ending || !ctx.channel().isActive()) return;
        log.debug("client {}: protocol error: {}", session.id(), detail);
        enqueue(Replies.done(Replies.error("ERR Protocol error: " + detail)), true);
        flushIfNeeded();
    }

    private void enqueue(CompletableFuture<RedisMessage> reply, boolean last) {
        pending.add(new Pending(reply, last));
        if (!reply.isDone() && !awaitingReplies) {
            awaitingReplies = true;
            session.awaitingReplies(true);
        }
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
        startWaiting();
    }

    /** Writes the replies at the head of the queue whose futures are done, in order. */
    private void writeReadyReplies() {
        boolean wrote = false;
        while (!disconnected && !pending.isEmpty() && pending.peek().reply().isDone()) {
            Pending head = pending.poll();
            RedisMessage reply = head.reply().getNow(null);
            if (reply == null) reply = Replies.error("ERR internal error: command produced no reply");
            if (head.last()) {
                pending.clear();
                ctx.writeAndFlush(reply).addListener(f -> closeGracefully(f.isSuccess()));
                unflushed = false;
                return;
            }
            long before = outputBufferBytes();
            ctx.write(reply, ctx.voidPromise());
            long size = outputBufferBytes() - before;
            if (size > 0) replyBytesEstimate += (size - replyBytesEstimate) / 8;
            unflushed = true;
            wrote = true;
        }
        if (awaitingReplies && pending.isEmpty()) {
            awaitingReplies = false;
            session.awaitingReplies(false);
        }
        if (wrote) checkOutputLimits();
    }

    private void checkOutputLimits() {
        long omem = outputBufferBytes();
        if (config.outputHardLimitBytes() > 0 && omem > config.outputHardLimitBytes()) {
            disconnect(ClientLimit.OUTPUT_HARD, "omem=" + omem + " above " + config.outputHardLimitBytes() + " bytes");
        } else if (!ctx.channel().isWritable()) {
            watchdog.enforceMaxMemory(); // replies are piling up: hold the sum over every client now, not at the next tick
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

    private void flushIfNeeded() {
        if (unflushed) {
            unflushed = false;
            session.interacted(clients.nanoTime());
            ctx.flush();
        }
    }

    /** Reply bytes the pending commands may add on top of what is queued. */
    private long expectedOutputBytes() {
        return outputBufferBytes() + pending.size() * replyBytesEstimate;
    }

    /** A command read now must wait: too many in flight, or their replies would pass the high-water mark. */
    private boolean mustWait() {
        return pending.size() >= config.maxInFlightPerConnection() || expectedOutputBytes() >= config.outputHighWaterBytes();
    }

    /** Hysteresis: waiting commands start (and reading resumes) only below the low-water mark. */
    private boolean mayResume() {
        return ctx.channel().isWritable() && pending.size() <= config.maxInFlightPerConnection() / 2
                && (pending.isEmpty() || expectedOutputBytes() <= config.outputLowWaterBytes());
    }

    private void updateAutoRead() {
        var channelConfig = ctx.channel().config();
        boolean reading = channelConfig.isAutoRead();
        if (ending || disconnected) {
            return; // input after the last reply is drained and ignored (see closeGracefully)
        } else if (reading && (!waiting.isEmpty() || mustWait())) {
            channelConfig.setAutoRead(false);
        } else if (!reading && waiting.isEmpty() && mayResume()) {
            channelConfig.setAutoRead(true);
        }
    }

    // ClientSession.Connection: called from any thread

    @Override
    public long outputBufferBytes() {
        ChannelHandlerContext c = ctx;
        ChannelOutboundBuffer out = c == null ? null : c.channel().unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    @Override
    public void disconnect(ClientLimit limit, String detail) {
        if (ctx.executor().inEventLoop()) disconnectNow(limit, detail);
        else ctx.executor().execute(() -> disconnectNow(limit, detail));
    }

    /** One log line and one count per connection a limit closes; what it held is dropped. */
    private void disconnectNow(ClientLimit limit, String detail) {
        if (disconnected || !ctx.channel().isActive()) return;
        disconnected = true;
        session.closing(true);
        metrics.countDisconnect(limit);
        log.info("client {} ({}{}) closed by {}: {}", session.id(), session.address(),
                session.name() == null ? "" : " " + session.name(), limit.setting(), detail);
        pending.clear();
        waiting.clear();
        ctx.close();
    }
}
