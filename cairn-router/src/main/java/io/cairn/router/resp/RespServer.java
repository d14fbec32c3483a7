package io.cairn.router.resp;

import io.cairn.router.KvBackend;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The Redis protocol (RESP2) front end of a router: accepts Redis clients on a TCP port and
 * serves string commands from a {@link KvBackend}.
 *
 * <p>Each connection's pipeline is: {@link RequestDecoder} (bytes to {@link CommandArgs}, with the
 * request shape and size limits, discarding oversized arguments unbuffered) ->
 * {@link RespConnectionHandler} (commands in, replies out in request order, back pressure), with
 * {@link ReplyEncoder} for replies.
 * Commands are translated by {@link CommandDispatcher}; everything but this class,
 * {@link RespConfig}, {@link ClientMetrics} and {@link ClientLimit} is package-private.
 *
 * <p>Client limits (issue 28): past {@link RespConfig#maxClients()} a new connection is answered
 * "-ERR max number of clients reached" and closed; each connection's buffers are bounded by
 * {@link RespConnectionHandler}, and the limits over time or over all clients by a
 * {@link ClientWatchdog} ticking on one of the event loops.
 *
 * <p>Usage: {@code try (var server = new RespServer(backend, config)) { server.start(); ... }}.
 */
public final class RespServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RespServer.class);
    /** How long {@link #close()} waits for the event loops to finish. */
    private static final long SHUTDOWN_TIMEOUT_MS = 5_000;

    private final RespConfig config;
    /** Event loops the process shares with other sockets (not shut down here), or null: this server makes its own. */
    private final EventLoopGroup sharedLoops;
    /** Every accepted connection, so that closing works without shutting down shared loops. */
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final ClientRegistry clients = new ClientRegistry();
    private final ClientMetrics metrics = new ClientMetrics(clients);
    private final ClientWatchdog watchdog;
    private final CommandDispatcher dispatcher;
    private final RespAuth auth;
    private java.util.concurrent.ScheduledFuture<?> watchdogTask;
    /** Whether the last connection was refused (so that reaching maxclients is logged once per episode). */
    private volatile boolean refusing;
    private EventLoopGroup group;
    private Channel serverChannel;
    private volatile int boundPort = -1;
    /** TLS on every connection, or null. */
    private volatile RespTls tls;

    public RespServer(KvBackend backend, RespConfig config) {
        this(backend, config, null);
    }

    /**
     * @param sharedLoops event loops to serve on, shared with the router's data-plane connections
     *                    (a request and its reply then cross no thread); the caller shuts them down.
     *                    Null: {@link RespConfig#eventLoopThreads()} loops of this server's own.
     */
    public RespServer(KvBackend backend, RespConfig config, EventLoopGroup sharedLoops) {
        this(backend, config, sharedLoops, RespAuth.open());
    }

    /** As above, with {@code auth} deciding who may run commands (requirepass, issue 26). */
    public RespServer(KvBackend backend, RespConfig config, EventLoopGroup sharedLoops, RespAuth auth) {
        this.config = config;
        this.sharedLoops = sharedLoops;
        this.auth = auth;
        this.watchdog = new ClientWatchdog(clients, config);
        this.dispatcher = new CommandDispatcher(backend, config, clients, metrics, () -> boundPort, auth);
    }

    /** Who may run commands, and the failed AUTH attempts counted. */
    public RespAuth auth() {
        return auth;
    }

    /** Serves TLS only, with these certificates (call before {@link #start}); null: plain TCP. */
    public RespServer tls(RespTls tls) {
        this.tls = tls;
        return this;
    }

    /**
     * Binds {@link RespConfig#host()}:{@link RespConfig#port()} and starts serving.
     *
     * @throws IllegalStateException if already started or the address cannot be bound
     */
    public synchronized RespServer start() {
        if (group != null) throw new IllegalStateException("RESP server already started");
        group = sharedLoops != null ? sharedLoops
                : new MultiThreadIoEventLoopGroup(config.eventLoopThreads(), new DefaultThreadFactory("cairn-resp"), NioIoHandler.newFactory());
        ChannelFuture bind = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(config.outputLowWaterBytes(), config.outputHighWaterBytes()))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.add(ch);
                        RespTls t = tls;
                        if (t != null) ch.pipeline().addLast(t.newHandler(ch.alloc()));
                        if (clients.tryAdmit(config.maxClients())) {
                            refusing = false;
                            initPipeline(ch);
                        } else {
                            refuse(ch);
                        }
                    }
                })
                .bind(config.host(), config.port())
                .awaitUninterruptibly();
        if (!bind.isSuccess()) {
            shutdownGroup();
            throw new IllegalStateException("cannot bind RESP server to " + config.host() + ":" + config.port(),
                    bind.cause());
        }
        serverChannel = bind.channel();
        watchdogTask = group.next().scheduleAtFixedRate(this::tickWatchdog, ClientWatchdog.TICK_MS, ClientWatchdog.TICK_MS,
                TimeUnit.MILLISECONDS);
        boundPort = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        log.info("RESP server listening on {}:{}", config.host(), boundPort);
        return this;
    }

    private void initPipeline(SocketChannel ch) {
        metrics.countAccepted();
        RespConnectionHandler handler = new RespConnectionHandler(dispatcher, clients, config, metrics, watchdog);
        ch.pipeline().addLast(new RequestDecoder(config, handler::inputHeld), new ReplyEncoder(), handler);
    }

    /** Redis's answer past maxclients; the connection is closed once it is written. */
    private void refuse(SocketChannel ch) {
        metrics.countRefused();
        if (!refusing) {
            refusing = true;
            log.warn("RESP server on port {}: {} clients connected (maxclients), refusing new connections", boundPort, config.maxClients());
        }
        ch.pipeline().addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(io.netty.channel.ChannelHandlerContext ctx) {
                ctx.writeAndFlush(io.netty.buffer.Unpooled.copiedBuffer(MAX_CLIENTS_REPLY, java.nio.charset.StandardCharsets.US_ASCII))
                        .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
            }

            @Override
            public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                io.netty.util.ReferenceCountUtil.release(msg);
            }

            @Override
            public void exceptionCaught(io.netty.channel.ChannelHandlerContext ctx, Throwable cause) {
                ctx.close();
            }
        });
    }

    private static final String MAX_CLIENTS_REPLY = "-ERR max number of clients reached\r\n";

    private void tickWatchdog() {
        try {
            watchdog.tick();
        } catch (RuntimeException e) {
            log.warn("client watchdog failed; it runs again at the next tick", e); // a thrown task would stop its schedule
        }
    }

    /** Client counts, buffer sizes and the connections the client limits closed or refused. */
    public ClientMetrics clientMetrics() {
        return metrics;
    }

    /** The bound TCP port (useful with port 0); -1 before {@link #start()}. */
    public int port() {
        return boundPort;
    }

    /** Stops accepting, closes every connection and releases the event loop threads. */
    @Override
    public synchronized void close() {
        if (group == null) return;
        if (watchdogTask != null) watchdogTask.cancel(false);
        if (serverChannel != null) serverChannel.close().awaitUninterruptibly();
        connections.close().awaitUninterruptibly();
        shutdownGroup();
        log.info("RESP server on port {} closed", boundPort);
    }

    private void shutdownGroup() {
        if (group != sharedLoops) {
            group.shutdownGracefully(0, SHUTDOWN_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .awaitUninterruptibly(SHUTDOWN_TIMEOUT_MS * 2);
        }
        group = null;
    }
}
