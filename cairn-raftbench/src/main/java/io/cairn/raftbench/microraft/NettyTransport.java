package io.cairn.raftbench.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.message.RaftMessage;
import io.microraft.transport.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * MicroRaft's transport over TCP with Netty: the member listens on its own address (127.0.0.1) for
 * the messages others send it, and keeps one outgoing connection to each peer for the messages it
 * sends; each message is one length-prefixed frame ({@link MessageCodec}). {@link #send} never
 * blocks: it hands the message to the connection's event loop, which encodes and writes it. While a
 * peer is unreachable, messages to it are dropped (Raft retries) and it is dialled again at most every
 * {@link #RETRY_NANOS}; the few messages sent while a dial is under way go out once it connects.
 * One event-loop thread per member serves the listener and every connection.
 */
final class NettyTransport implements Transport, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NettyTransport.class);
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private static final int MAX_PENDING = 256;
    private static final int MAX_FRAME = 1 << 30;

    private final MicroEndpoint self;
    private final InetSocketAddress bindAddress;
    private final EventLoopGroup group;
    private final Class<? extends ServerChannel> serverChannelType;
    private final Bootstrap client;
    private final Map<RaftEndpoint, Peer> peers = new HashMap<>();
    private volatile Channel server;
    private volatile boolean closed;

    /** One outgoing connection; fields guarded by the instance's lock except the volatile channel. */
    private static final class Peer {
        final InetSocketAddress address;
        volatile Channel channel;
        boolean dialling;
        long nextDialNanos;
        final List<RaftMessage> pending = new ArrayList<>();

        Peer(InetSocketAddress address) {
            this.address = address;
        }
    }

    NettyTransport(MicroEndpoint self, InetSocketAddress bindAddress, Map<MicroEndpoint, InetSocketAddress> others) {
        this.self = self;
        this.bindAddress = bindAddress;
        DefaultThreadFactory threads = new DefaultThreadFactory("microraft-io-" + self.id(), true);
        boolean epoll = Epoll.isAvailable();
        group = epoll ? new EpollEventLoopGroup(1, threads) : new NioEventLoopGroup(1, threads);
        serverChannelType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        client = new Bootstrap().group(group).channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 1000)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new Encoder(), new OutgoingHandler());
                    }
                });
        others.forEach((endpoint, address) -> peers.put(endpoint, new Peer(address)));
    }

    /** Binds the listener; every message received goes to {@code inbound} on the event-loop thread. */
    void listen(Consumer<RaftMessage> inbound) throws InterruptedException {
        ChannelFuture bound = new ServerBootstrap().group(group).channel(serverChannelType)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4), new IncomingHandler(inbound));
                    }
                })
                .bind(bindAddress).sync();
        server = bound.channel();
    }

    @Override
    public void send(RaftEndpoint target, RaftMessage message) {
        Peer peer = peers.get(target);
        if (peer == null) throw new IllegalArgumentException(self + " has no address for " + target);
        Channel ch = peer.channel;
        if (ch != null && ch.isActive()) {
            ch.writeAndFlush(message, ch.voidPromise());
            return;
        }
        synchronized (peer) {
            if (closed) return;
            ch = peer.channel;
            if (ch != null && ch.isActive()) {
                ch.writeAndFlush(message, ch.voidPromise());
            } else if (peer.dialling) {
                if (peer.pending.size() < MAX_PENDING) peer.pending.add(message);
            } else if (System.nanoTime() - peer.nextDialNanos >= 0) {
                peer.dialling = true;
                peer.pending.add(message);
                client.connect(peer.address).addListener((ChannelFuture f) -> connected(peer, f));
            }
            // else: dropped; the peer was unreachable moments ago
        }
    }

    private void connected(Peer peer, ChannelFuture f) {
        synchronized (peer) {
            peer.dialling = false;
            if (!f.isSuccess() || closed) {
                if (f.isSuccess()) f.channel().close();
                peer.pending.clear();
                peer.nextDialNanos = System.nanoTime() + RETRY_NANOS;
                return;
            }
            Channel ch = f.channel();
            for (RaftMessage m : peer.pending) ch.write(m, ch.voidPromise());
            ch.flush();
            peer.pending.clear();
            peer.channel = ch;
            ch.closeFuture().addListener(x -> {
                synchronized (peer) {
                    if (peer.channel == ch) peer.channel = null;
                }
            });
        }
    }

    @Override
    public boolean isReachable(RaftEndpoint endpoint) {
        Peer peer = peers.get(endpoint);
        Channel ch = peer == null ? null : peer.channel;
        return ch != null && ch.isActive();
    }

    @Override
    public void close() {
        closed = true;
        for (Peer peer : peers.values()) {
            synchronized (peer) {
                if (peer.channel != null) peer.channel.close();
                peer.pending.clear();
            }
        }
        Channel s = server;
        if (s != null) s.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Frames and encodes outgoing messages on the event loop. */
    private static final class Encoder extends MessageToByteEncoder<RaftMessage> {
        @Override
        protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, RaftMessage msg, boolean preferDirect) {
            return ctx.alloc().ioBuffer(4 + MessageCodec.sizeHint(msg));
        }

        @Override
        protected void encode(ChannelHandlerContext ctx, RaftMessage msg, ByteBuf out) {
            int start = out.writerIndex();
            out.writeInt(0);
            MessageCodec.encode(msg, out);
            out.setInt(start, out.writerIndex() - start - 4);
        }
    }

    private final class OutgoingHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg); // peers never answer on this connection
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (closed) {
                // closing
            } else if (cause instanceof IOException) {
                LOG.info("{}: connection to {} lost: {}", self, ctx.channel().remoteAddress(), cause.toString()); // the peer went away
            } else {
                LOG.error("{}: connection to {} failed", self, ctx.channel().remoteAddress(), cause);
            }
            ctx.close();
        }
    }

    private final class IncomingHandler extends SimpleChannelInboundHandler<ByteBuf> {
        private final Consumer<RaftMessage> inbound;

        IncomingHandler(Consumer<RaftMessage> inbound) {
            this.inbound = inbound;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            RaftMessage message = MessageCodec.decode(frame);
            if (frame.isReadable()) throw new IllegalStateException(frame.readableBytes() + " bytes left after " + message.getClass().getSimpleName());
            try {
                inbound.accept(message);
            } catch (RejectedExecutionException e) {
                // the Raft node is terminating
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (closed) {
                // closing
            } else if (cause instanceof IOException) {
                LOG.info("{}: connection from {} lost: {}", self, ctx.channel().remoteAddress(), cause.toString());
            } else {
                LOG.error("{}: bad message from {}", self, ctx.channel().remoteAddress(), cause);
            }
            ctx.close();
        }
    }
}
