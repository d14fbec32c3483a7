package io.cairn.router.resp;

import io.cairn.router.KvBackend;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
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
 * Commands are translated by {@link CommandDispatcher}; everything but this class and
 * {@link RespConfig} is package-private.
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
    private final CommandDispatcher dispatcher;
    private EventLoopGroup group;
    private Channel serverChannel;
    private volatile int boundPort = -1;

    public RespServer(KvBackend backend, RespConfig config) {
        this(backend, config, null);
    }

    /**
     * @param sharedLoops event loops to serve on, shared with the router's data-plane connections
     *                    (a request and its reply then cross no thread); the caller shuts them down.
     *                    Null: {@link RespConfig#eventLoopThreads()} loops of this server's own.
     */
    public RespServer(KvBackend backend, RespConfig config, EventLoopGroup sharedLoops) {
        this.config = config;
        this.sharedLoops = sharedLoops;
        this.dispatcher = new CommandDispatcher(backend, config, clients, () -> boundPort);
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
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.add(ch);
                        initPipeline(ch);
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
        boundPort = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        log.info("RESP server listening on {}:{}", config.host(), boundPort);
        return this;
    }

    private void initPipeline(SocketChannel ch) {
        ch.pipeline().addLast(
                new RequestDecoder(config),
                new ReplyEncoder(),
                new RespConnectionHandler(dispatcher, clients, config));
    }

    /** The bound TCP port (useful with port 0); -1 before {@link #start()}. */
    public int port() {
        return boundPort;
    }

    /** Stops accepting, closes every connection and releases the event loop threads. */
    @Override
    public synchronized void close() {
        if (group == null) return;
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
