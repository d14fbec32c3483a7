package io.cairn.storage;

import io.cairn.client.InProcessDataPlane;
import io.cairn.core.tls.ClusterTls;
import io.cairn.core.wire.DataPlane;
import io.cairn.storage.raft.MemberAccess;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;

/**
 * A storage member's data-plane listener ({@link DataPlane} frames over TCP, or calls from a router
 * in this JVM through {@link InProcessDataPlane}). It decodes requests and writes responses; what a
 * request does is its member's replication engine's business ({@link MemberAccess}: Ratis today,
 * the replication port next).
 *
 * <p>Back pressure: a connection whose answers queue past {@link #HIGH_WATER_BYTES} (a router that
 * does not read them, or reads slowly) is not read from until they drain below the low-water mark,
 * so a slow router holds at most about that much of this process's memory in answers; its requests
 * wait in its own socket.
 *
 * <p>Threads: the process's event loops (by default one shared by every listener of this JVM;
 * in a local cluster the same loops as the router's, so a read crosses no thread) decode frames
 * and hand them to the engine; responses are written from whichever thread completes them.
 */
final class DataPlaneServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DataPlaneServer.class);
    /** The listeners' event loop when the process gives none: one thread for every listener of this JVM. */
    private static final class DefaultLoop {
        static final EventLoopGroup GROUP = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("cairn-dataplane-server", true), NioIoHandler.newFactory());
    }

    /** Answers queued for one connection past which it is not read from; reading resumes below a quarter of it. */
    static final int HIGH_WATER_BYTES = 8 << 20;

    /** Cluster TLS when the server is made (issue 26); null: plain TCP. */
    private final ClusterTls tls = ClusterTls.current();
    private final EventLoopGroup loops;
    private final MemberAccess member;
    private final LongAdder requestsServed = new LongAdder();
    private final LongAdder readingPaused = new LongAdder();
    private final AtomicLong knownEpoch = new AtomicLong();
    private final LongAdder staleEpochRefusals = new LongAdder();
    private final String host;
    private final int port;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private volatile Channel serverChannel;
    private volatile String publishedEndpoint;
    private final Set<LocalSession> localSessions = ConcurrentHashMap.newKeySet();
    private final InProcessDataPlane.Listener inProcess = (responses, closed) -> {
        LocalSession session = new LocalSession(responses, closed);
        localSessions.add(session);
        // Opened while closing: it must not outlive the member.
        if (serverChannel == null) session.drop();
        return session;
    };

    /**
     * @param port  the port the topology names for it; 0 for any free one (an older topology: callers then learn it
     *              with {@link DataPlane#ENDPOINT_QUERY})
     * @param loops the event loops to serve on; null for this JVM's default data-plane loop
     */
    DataPlaneServer(MemberAccess member, String host, int port, EventLoopGroup loops) {
        this.loops = loops != null ? loops : DefaultLoop.GROUP;
        this.member = member;
        this.host = host;
        this.port = port;
    }

    /** The newest topology epoch this node knows (from its coordinator); requests sent at an older one are refused. */
    void knowEpoch(long epoch) {
        knownEpoch.accumulateAndGet(epoch, Math::max);
    }

    /** Requests from sockets handed to the member so far (not those waiting for their connection's answers to drain). */
    long requestsServed() {
        return requestsServed.sum();
    }

    /** Times a connection was paused because its answers passed the high-water mark. */
    long readingPaused() {
        return readingPaused.sum();
    }

    /** Requests refused so far for a stale epoch. */
    long staleEpochRefusals() {
        return staleEpochRefusals.sum();
    }

    /**
     * One request, from a socket or an in-process session: refused with STALE_EPOCH when it was sent
     * at an older topology epoch than this node knows (nothing reaches the engine), else handed on.
     */
    private void dispatch(MemberAccess.Responses out, long callId, UUID clientId, byte type, long epoch, long minIndex, byte[] payload) {
        long known = knownEpoch.get();
        if (epoch != 0 && epoch < known) {
            staleEpochRefusals.increment();
            out.respond(callId, DataPlane.STALE_EPOCH, 0, ByteBuffer.wrap(DataPlane.utf8(Long.toString(known))));
            return;
        }
        if (type == DataPlane.STALE_READ) member.staleRead(out, callId, clientId, minIndex, payload);
        else member.handle(out, callId, clientId, type, payload);
    }

    /** Binds the node's data-plane port on its host. */
    DataPlaneServer start() throws IOException {
        try {
            serverChannel = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(HIGH_WATER_BYTES / 4, HIGH_WATER_BYTES))
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            channels.add(ch);
                            // cluster TLS (issue 26): only a process with a certificate of the cluster CA gets past the handshake
                            if (tls != null) ch.pipeline().addLast(new SslHandler(tls.serverEngine()));
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(DataPlane.MAX_FRAME_BYTES, 0, 4, 0, 4),
                                    new Handler());
                        }
                    })
                    .bind(new InetSocketAddress(host, port)).sync().channel();
            publishedEndpoint = endpoint();
            InProcessDataPlane.register(publishedEndpoint, inProcess);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while binding the data plane", e);
        } catch (Exception e) {
            throw new IOException("cannot bind the data plane on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        return this;
    }

    /** "host:port" while listening, else empty. */
    String endpoint() {
        Channel c = serverChannel;
        if (c == null || !c.isActive()) return "";
        return host + ":" + ((InetSocketAddress) c.localAddress()).getPort();
    }

    int inProcessSessions() {
        return localSessions.size();
    }

    @Override
    public void close() {
        Channel c = serverChannel;
        serverChannel = null;
        if (publishedEndpoint != null) InProcessDataPlane.unregister(publishedEndpoint, inProcess);
        if (c != null) c.close().awaitUninterruptibly();
        // Routers must see their connections drop at once, so they redirect in-flight calls.
        channels.close().awaitUninterruptibly();
        for (LocalSession session : localSessions) session.drop();
    }

    private record Request(long callId, UUID clientId, byte type, long epoch, long minIndex, byte[] payload) {
    }

    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        private MemberAccess.Responses out;
        /** Requests read while the connection's answers were past the high-water mark, in order. */
        private final ArrayDeque<Request> waiting = new ArrayDeque<>();

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (frame.readableBytes() < DataPlane.REQUEST_HEADER_BYTES) {
                log.debug("closing data-plane connection {}: short frame", ctx.channel().remoteAddress());
                ctx.close();
                return;
            }
            long callId = frame.readLong();
            UUID clientId = new UUID(frame.readLong(), frame.readLong());
            byte flagged = frame.readByte();
            byte type = (byte) (flagged & ~DataPlane.EPOCH_FLAG);
            boolean withEpoch = (flagged & DataPlane.EPOCH_FLAG) != 0;
            boolean staleRead = type == DataPlane.STALE_READ;
            int more = (withEpoch ? DataPlane.EPOCH_BYTES : 0) + (staleRead ? DataPlane.MIN_INDEX_BYTES : 0);
            if (!DataPlane.isRequestType(type) || frame.readableBytes() < more) {
                log.debug("closing data-plane connection {}: unknown request type {} or short frame", ctx.channel().remoteAddress(), flagged);
                ctx.close();
                return;
            }
            long epoch = withEpoch ? frame.readLong() : 0;
            long minIndex = staleRead ? frame.readLong() : 0;
            // Its own array: protobuf's ByteBuffer-backed strings use native byte order and
            // offset-backed ones keep the offset, and the state machine reads big-endian from index 0.
            byte[] payload = new byte[frame.readableBytes()];
            frame.readBytes(payload);
            if (out == null) out = new ChannelResponses(ctx.channel());
            Request request = new Request(callId, clientId, type, epoch, minIndex, payload);
            if (waiting.isEmpty() && ctx.channel().isWritable()) {
                serve(request);
            } else {
                // frames already read in this turn wait (as bytes, not as answers) until the answers drain
                waiting.add(request);
                pause(ctx);
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) resume(ctx);
            else pause(ctx);
            ctx.fireChannelWritabilityChanged();
        }

        private void serve(Request r) {
            requestsServed.increment();
            dispatch(out, r.callId, r.clientId, r.type, r.epoch, r.minIndex, r.payload);
        }

        private void pause(ChannelHandlerContext ctx) {
            if (!ctx.channel().config().isAutoRead()) return;
            readingPaused.increment();
            ctx.channel().config().setAutoRead(false);
        }

        /** Answers what waits while the answers fit; reads again once nothing waits. */
        private void resume(ChannelHandlerContext ctx) {
            while (!waiting.isEmpty() && ctx.channel().isWritable()) {
                serve(waiting.poll());
            }
            if (waiting.isEmpty() && ctx.channel().isWritable()) ctx.channel().config().setAutoRead(true);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof DecoderException && cause.getCause() instanceof SSLException tls) {
                // cluster TLS: a peer without a certificate of the cluster CA (or not speaking TLS) is what an operator wants to see
                log.warn("data-plane connection from {} refused at the TLS handshake: {}", ctx.channel().remoteAddress(), tls.getMessage());
            } else {
                log.debug("data-plane connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            }
            ctx.close();
        }
    }

    private record ChannelResponses(Channel channel) implements MemberAccess.Responses {
        @Override
        public boolean isOpen() {
            return channel.isActive();
        }

        @Override
        public void respond(long callId, byte status, long logIndex, ByteBuffer body) {
            int length = DataPlane.RESPONSE_HEADER_BYTES + body.remaining();
            ByteBuf out = channel.alloc().buffer(4 + length);
            out.writeInt(length).writeLong(callId).writeByte(status).writeLong(logIndex).writeBytes(body);
            channel.writeAndFlush(out, channel.voidPromise());
        }
    }

    /** A router of this JVM ({@link InProcessDataPlane}): requests are calls, responses are callbacks. */
    private final class LocalSession implements InProcessDataPlane.Session, MemberAccess.Responses {
        private final Consumer<DataPlane.Response> responses;
        private final Runnable closed;
        private volatile boolean open = true;

        LocalSession(Consumer<DataPlane.Response> responses, Runnable closed) {
            this.responses = responses;
            this.closed = closed;
        }

        @Override
        public void send(long callId, UUID clientId, byte type, long epoch, byte[] message) {
            // After a drop the router has been told; a request that raced with it times out there.
            if (open) dispatch(this, callId, clientId, type, epoch, 0, message);
        }

        @Override
        public void staleRead(long callId, UUID clientId, long epoch, long minIndex, byte[] read) {
            if (open) dispatch(this, callId, clientId, DataPlane.STALE_READ, epoch, minIndex, read);
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void respond(long callId, byte status, long logIndex, ByteBuffer body) {
            if (open) responses.accept(new DataPlane.Response(callId, status, logIndex, body));
        }

        @Override
        public void close() {
            open = false;
            localSessions.remove(this);
        }

        /** The member stops: like a dropped connection, the router redirects its calls in flight. */
        void drop() {
            if (!open) return;
            close();
            closed.run();
        }
    }
}
