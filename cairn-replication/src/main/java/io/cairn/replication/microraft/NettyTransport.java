package io.cairn.replication.microraft;

import io.cairn.core.tls.ClusterTls;
import io.microraft.RaftEndpoint;
import io.microraft.model.message.RaftMessage;
import io.microraft.transport.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * MicroRaft's transport over TCP: the member listens on its own address only, and keeps one
 * outgoing connection per peer ({@link PeerLink}) for what it sends; peers answer on their own
 * connections. Each connection opens with a hello frame naming the group and the sender, then
 * carries length-prefixed frames of at most {@link WireCodec#maxFrameBytes()} ({@link FrameDecoder}). A connection that
 * sends a frame too long, a wrong hello or a frame that does not decode is closed with one WARN
 * line; the member goes on. Peers' addresses come from the configuration and from membership
 * changes ({@link #learnAddress}).
 *
 * <p>Bounded sending (issue 28): a follower that does not read (stalled, or its host swapping)
 * must not fill the leader's heap. MicroRaft keeps at most one append request outstanding per
 * follower, but sends it again after every back-off (one to two seconds) while no answer comes, and
 * each copy is a new frame (of about {@link WireCodec#APPEND_TARGET_BYTES}, or one larger entry).
 * So what waits for one peer's socket is capped: once {@link #HIGH_WATER_BYTES} are unsent the connection is unwritable and every message
 * for it is dropped (counted in {@link #droppedBackedUp}) until it drains below
 * {@link #LOW_WATER_BYTES}; the check is made both when a message is handed over and when it is
 * encoded, so at most one frame goes past the mark. Raft sends again, so a drop costs time, never
 * safety; a follower that reads again catches up from the leader's log or a snapshot.
 *
 * <p>A peer silent for the silence limit while it is sent to is dialled again, and its connections
 * to this member are closed too so that it dials again as well ({@link PeerLink}: a connection
 * across a healed partition can hang for seconds).
 *
 * <p>With cluster TLS ({@link ClusterTls#current()} when the transport is made) every connection, both
 * ways, starts with a mutually authenticated TLS handshake: a process without a certificate of the
 * cluster CA cannot send a vote or an entry, nor receive one (issue 26).
 */
final class NettyTransport implements Transport, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NettyTransport.class);

    private final String selfId;
    private final InetSocketAddress bindAddress;
    private final WireCodec codec;
    private final EventLoopGroup loops;
    private final boolean ownLoops;
    private final Bootstrap client;
    private final Map<String, String> addresses = new ConcurrentHashMap<>();
    private final Map<String, PeerLink> links = new ConcurrentHashMap<>();
    private final ChannelGroup inbound = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    /** The sender an inbound connection's hello named. */
    private static final AttributeKey<String> PEER = AttributeKey.valueOf("cairn.raft.peer");
    private static final long SILENCE_CHECK_MILLIS = 250;
    private final long silenceLimitNanos;
    private volatile ScheduledFuture<?> silenceCheck;
    /** Unsent bytes per peer connection past which messages to that peer are dropped, and below which they flow again. */
    static final int HIGH_WATER_BYTES = 32 << 20;
    static final int LOW_WATER_BYTES = 8 << 20;

    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong droppedBackedUp = new AtomicLong();
    private final AtomicLong peakUnsentBytes = new AtomicLong();
    private final Set<String> unknownWarned = ConcurrentHashMap.newKeySet();
    private final AtomicLong refusedConnections = new AtomicLong();
    private volatile Channel server;
    /** Null: plain TCP. */
    private final ClusterTls tls = ClusterTls.current();
    private volatile boolean closed;

    /**
     * @param silenceLimit how long a peer may say nothing while it is sent to before its connections
     *                     are closed and dialled again: longer than the leader's heartbeat period
     */
    NettyTransport(String selfId, String selfAddress, Map<String, String> peers, WireCodec codec, EventLoopGroup injected, Duration silenceLimit) {
        this.selfId = selfId;
        this.silenceLimitNanos = silenceLimit.toNanos();
        this.bindAddress = Endpoint.socketAddress(selfAddress);
        this.codec = codec;
        this.ownLoops = injected == null;
        this.loops = injected != null ? injected
                : new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("cairn-raft-io-" + selfId, true), NioIoHandler.newFactory());
        peers.forEach(this::learnAddress);
        client = new Bootstrap().group(loops).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 1000)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(LOW_WATER_BYTES, HIGH_WATER_BYTES));
    }

    private PeerLink newLink(String peerId, String address) {
        AtomicInteger queued = new AtomicInteger();
        Bootstrap bootstrap = client.clone().handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                if (tls != null) {
                    InetSocketAddress to = Endpoint.socketAddress(address);
                    ch.pipeline().addLast(new SslHandler(tls.clientEngine(to.getHostString(), to.getPort())));
                }
                ch.pipeline().addLast(new Encoder(peerId, queued), new Outgoing(peerId));
            }
        });
        return new PeerLink(selfId, peerId, Endpoint.socketAddress(address), bootstrap, queued, dropped, droppedBackedUp, silenceLimitNanos);
    }

    /** Binds the listener; every message received goes to {@code received} on an I/O thread. */
    void listen(Consumer<RaftMessage> received) {
        server = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        inbound.add(ch);
                        FrameDecoder frames = new FrameDecoder(codec.maxFrameBytes());
                        if (tls != null) {
                            SslHandler ssl = new SslHandler(tls.serverEngine());
                            // a failed handshake closes the channel before any handler hears of it: counted and told here
                            ssl.handshakeFuture().addListener(h -> {
                                if (!h.isSuccess()) refusedAtHandshake(ch, h.cause());
                            });
                            ch.pipeline().addLast(ssl);
                        }
                        ch.pipeline().addLast(frames, new Incoming(received, frames));
                    }
                })
                .bind(bindAddress).syncUninterruptibly().channel();
        silenceCheck = loops.next().scheduleWithFixedDelay(this::redialSilentPeers, SILENCE_CHECK_MILLIS, SILENCE_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void redialSilentPeers() {
        long now = System.nanoTime();
        links.forEach((peerId, link) -> {
            if (closed || !link.isConnected() || !link.overdue(now)) return;
            LOG.info("{}: nothing heard from {} for {} ms while sending to it: connecting again", selfId, peerId, silenceLimitNanos / 1_000_000);
            link.redial();
            for (Channel ch : inbound) if (peerId.equals(ch.attr(PEER).get())) ch.close();
        });
    }

    /** A peer without a certificate of the cluster CA (or not speaking TLS): it sends and receives nothing. */
    private void refusedAtHandshake(Channel ch, Throwable cause) {
        refusedConnections.incrementAndGet();
        if (!closed) LOG.warn("{}: refused the connection from {} at the TLS handshake: {}", selfId, ch.remoteAddress(), cause.getMessage());
    }

    InetSocketAddress boundAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    /** Remembers where {@code memberId} listens; a changed address takes effect with the next connection. */
    void learnAddress(String memberId, String address) {
        if (memberId.equals(selfId) || address == null) return;
        String before = addresses.put(memberId, address);
        if (before != null && !before.equals(address)) {
            PeerLink old = links.remove(memberId);
            if (old != null) old.close();
        }
    }

    /** Messages dropped so far: queue full, peer unreachable or not yet dialled again. */
    long dropped() {
        return dropped.get();
    }

    /** Messages dropped so far because their peer's connection held {@link #HIGH_WATER_BYTES} unsent (a peer not reading). */
    long droppedBackedUp() {
        return droppedBackedUp.get();
    }

    /** Bytes written to peers' connections and not yet taken by their sockets, summed over peers, now. */
    long unsentBytes() {
        long sum = 0;
        for (PeerLink link : links.values()) sum += link.unsentBytes();
        return sum;
    }

    /** The most bytes one peer's connection has held unsent since this transport started. */
    long peakUnsentBytes() {
        return peakUnsentBytes.get();
    }

    /** Incoming connections closed so far for a bad hello, an oversized or a malformed frame. */
    long refusedConnections() {
        return refusedConnections.get();
    }

    @Override
    public void send(RaftEndpoint target, RaftMessage message) {
        if (closed) return;
        String id = Endpoint.idOf(target);
        if (target instanceof Endpoint e && e.address() != null) learnAddress(id, e.address());
        PeerLink link = links.get(id);
        if (link == null) {
            String address = addresses.get(id);
            if (address == null) {
                dropped.incrementAndGet();
                if (unknownWarned.add(id)) LOG.warn("{}: no address known for {}; its messages are dropped", selfId, id);
                return;
            }
            link = links.computeIfAbsent(id, k -> newLink(k, address));
        }
        link.send(message);
    }

    @Override
    public boolean isReachable(RaftEndpoint endpoint) {
        PeerLink link = links.get(Endpoint.idOf(endpoint));
        return link != null && link.isConnected();
    }

    @Override
    public void close() {
        closed = true;
        ScheduledFuture<?> check = silenceCheck;
        if (check != null) check.cancel(false);
        links.values().forEach(PeerLink::close);
        Channel s = server;
        if (s != null) s.close().syncUninterruptibly();
        inbound.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        if (ownLoops) loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** Frames and encodes outgoing messages on the event loop; the hello goes ahead of the first. */
    private final class Encoder extends MessageToByteEncoder<RaftMessage> {
        private final String peerId;
        private final AtomicInteger queued;
        private boolean helloSent;

        Encoder(String peerId, AtomicInteger queued) {
            this.peerId = peerId;
            this.queued = queued;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (!ctx.channel().isWritable()) {
                // handed over while the connection was below its mark, encoded after it passed it: not encoded at all
                queued.decrementAndGet();
                if (ctx.channel().isActive()) droppedBackedUp.incrementAndGet();
                dropped.incrementAndGet();
                promise.trySuccess();
                return;
            }
            super.write(ctx, msg, promise);
            ChannelOutboundBuffer unsent = ctx.channel().unsafe().outboundBuffer();
            if (unsent != null) peakUnsentBytes.accumulateAndGet(unsent.totalPendingWriteBytes(), Math::max);
        }

        @Override
        protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, RaftMessage msg, boolean preferDirect) {
            // an append request is cut near APPEND_TARGET_BYTES, however many entries MicroRaft hands over; a larger entry grows the buffer
            return ctx.alloc().ioBuffer(4 + Math.min(WireCodec.sizeHint(msg), Math.min(codec.maxFrameBytes(), WireCodec.APPEND_TARGET_BYTES + (64 << 10))));
        }

        @Override
        protected void encode(ChannelHandlerContext ctx, RaftMessage msg, ByteBuf out) {
            queued.decrementAndGet();
            if (!helloSent) {
                helloSent = true; // before the first message, in the same buffer: nothing can overtake it
                int at = out.writerIndex();
                out.writeInt(0);
                codec.writeHello(selfId, out);
                out.setInt(at, out.writerIndex() - at - 4);
            }
            int start = out.writerIndex();
            out.writeInt(0);
            try {
                codec.encode(msg, out);
                out.setInt(start, out.writerIndex() - start - 4);
            } catch (IOException | RuntimeException e) {
                out.writerIndex(start); // nothing goes out; Raft sends again
                dropped.incrementAndGet();
                if (!closed) LOG.warn("{}: could not send {} to {}: {}", selfId, msg.getClass().getSimpleName(), peerId, e.toString());
            }
        }
    }

    private final class Outgoing extends ChannelInboundHandlerAdapter {
        private final String peerId;

        Outgoing(String peerId) {
            this.peerId = peerId;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg); // peers never answer on this connection
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (closed) return;
            if (!ctx.channel().isWritable()) {
                LOG.info("{}: {} is not taking what it is sent ({} MB unsent): messages to it are dropped until it does", selfId, peerId,
                        HIGH_WATER_BYTES >> 20);
            } else {
                LOG.info("{}: {} takes what it is sent again", selfId, peerId);
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!closed && !(cause instanceof IOException)) LOG.warn("{}: connection to {} failed: {}", selfId, peerId, cause.toString());
            ctx.close();
        }
    }

    /** Checks the hello, then decodes each frame and hands the message on; any fault closes the connection. */
    private final class Incoming extends ChannelInboundHandlerAdapter {
        private final Consumer<RaftMessage> received;
        private final FrameDecoder frames;
        private String peer;

        Incoming(Consumer<RaftMessage> received, FrameDecoder frames) {
            this.received = received;
            this.frames = frames;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            try {
                if (peer == null) {
                    peer = codec.readHello(frame);
                    ctx.channel().attr(PEER).set(peer);
                    frames.helloAccepted();
                    return;
                }
                PeerLink link = links.get(peer);
                if (link != null) link.heard();
                RaftMessage message = codec.decode(frame);
                if (frame.isReadable()) throw new IllegalArgumentException(frame.readableBytes() + " bytes left after the message");
                if (message != null && !closed) received.accept(message);
            } catch (IOException | RuntimeException e) {
                refuse(ctx, e);
            } finally {
                frame.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof IOException) {
                ctx.close(); // the peer went away
            } else {
                refuse(ctx, cause);
            }
        }

        private void refuse(ChannelHandlerContext ctx, Throwable cause) {
            if (!ctx.channel().isOpen()) return;
            refusedConnections.incrementAndGet();
            if (!closed) {
                String why = cause instanceof IndexOutOfBoundsException ? "a frame that ends inside its message" : cause.toString();
                LOG.warn("{}: closed the connection from {} ({}): {}", selfId, ctx.channel().remoteAddress(), peer == null ? "no hello yet" : peer, why);
            }
            ctx.close();
        }
    }
}
