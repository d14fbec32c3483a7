package io.cairn.storage;

import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.InProcessDataPlane;
import io.cairn.core.wire.StorageRequest;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientAsynchronousProtocol;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.NotLeaderException;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A storage member's data-plane listener ({@link DataPlane} frames). Each request becomes a
 * {@link RaftClientRequest} submitted to this member's Raft server in process: writes go
 * through the log (answered after commit on a majority and apply, exactly like a Ratis client
 * request), reads are linearizable read-only requests (ReadIndex with leader lease). A member
 * that is not the leader answers NOT_LEADER with the leader it knows of (reads included, so
 * they stay on the leader's lease), and the router redirects. No Ratis client RPC (gRPC stream, ordered sliding window) is involved.
 *
 * <p>The request carries the router's client id and call id, so a write the router re-sends
 * after losing track of it is de-duplicated by Ratis's retry cache.
 *
 * <p>Threads: the process's event loops (by default one shared by every listener of this JVM;
 * in a local cluster the same loops as the router's, so a read crosses no thread) decode frames
 * and submit them (see {@link #submit}); replies are written from the thread that completes the
 * Ratis future: this loop for a read under the leader's lease, the state machine updater for a
 * write.
 */
final class DataPlaneServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DataPlaneServer.class);
    /** The listeners' event loop when the process gives none: one thread for every listener of this JVM. */
    private static final class DefaultLoop {
        static final EventLoopGroup GROUP = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("cairn-dataplane-server", true), NioIoHandler.newFactory());
    }

    private final EventLoopGroup loops;
    private final RaftServer server;
    private final RaftGroupId groupId;
    private final RaftPeerId selfId;
    private final String host;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private volatile Channel serverChannel;
    private volatile String publishedEndpoint;
    private final java.util.Set<LocalSession> localSessions = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final InProcessDataPlane.Listener inProcess = (responses, closed) -> {
        LocalSession session = new LocalSession(responses, closed);
        localSessions.add(session);
        // Opened while closing: it must not outlive the member.
        if (serverChannel == null) session.drop();
        return session;
    };

    /** @param loops the event loops to serve on; null for this JVM's default data-plane loop */
    DataPlaneServer(RaftServer server, RaftGroupId groupId, RaftPeerId selfId, String host, EventLoopGroup loops) {
        this.loops = loops != null ? loops : DefaultLoop.GROUP;
        this.server = server;
        this.groupId = groupId;
        this.selfId = selfId;
        this.host = host;
    }

    /** Binds an ephemeral port on the node's host; routers learn it with {@link DataPlane#ENDPOINT_QUERY}. */
    DataPlaneServer start() throws IOException {
        try {
            serverChannel = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            channels.add(ch);
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(DataPlane.MAX_FRAME_BYTES, 0, 4, 0, 4),
                                    new Handler());
                        }
                    })
                    .bind(new InetSocketAddress(host, 0)).sync().channel();
            publishedEndpoint = endpoint();
            InProcessDataPlane.register(publishedEndpoint, inProcess);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while binding the data plane", e);
        } catch (Exception e) {
            throw new IOException("cannot bind the data plane on " + host + ": " + e.getMessage(), e);
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

    private final class Handler extends SimpleChannelInboundHandler<ByteBuf> {
        private Responses out;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            if (frame.readableBytes() < DataPlane.REQUEST_HEADER_BYTES) {
                log.debug("closing data-plane connection {}: short frame", ctx.channel().remoteAddress());
                ctx.close();
                return;
            }
            long callId = frame.readLong();
            UUID clientId = new UUID(frame.readLong(), frame.readLong());
            byte type = frame.readByte();
            if (type != DataPlane.WRITE && type != DataPlane.READ) {
                log.debug("closing data-plane connection {}: unknown request type {}", ctx.channel().remoteAddress(), type);
                ctx.close();
                return;
            }
            // Its own array: protobuf's ByteBuffer-backed strings use native byte order and
            // offset-backed ones keep the offset, and the state machine reads big-endian from index 0.
            byte[] payload = new byte[frame.readableBytes()];
            frame.readBytes(payload);
            if (out == null) out = new ChannelResponses(ctx.channel());
            handle(out, callId, clientId, type, payload);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("data-plane connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }
    }

    /** One request, from a socket or an in-process session; its response goes to {@code out}. */
    private void handle(Responses out, long callId, UUID clientId, byte type, byte[] payload) {
        RaftServer.Division division = division();
        if (type == DataPlane.READ && (division == null || !division.getInfo().isLeader())) {
            // A follower could answer through ReadIndex, at the cost of a round trip to the
            // leader; sending the router to the leader keeps reads on its lease.
            respondNotLeader(out, callId, division);
            return;
        }
        RaftClientRequest raftRequest = RaftClientRequest.newBuilder()
                .setClientId(ClientId.valueOf(clientId))
                .setServerId(selfId)
                .setGroupId(groupId)
                .setCallId(callId)
                .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(payload)))
                .setType(type == DataPlane.WRITE ? RaftClientRequest.writeRequestType() : RaftClientRequest.readRequestType())
                .build();
        try {
            submit(raftRequest, payload.length > 0 && runsInline(payload[0]) ? division : null)
                    .whenComplete((reply, error) -> respond(out, callId, reply, error));
        } catch (IOException | RuntimeException e) {
            respond(out, callId, null, e);
        }
    }

    /**
     * Submits to this member's division. Ratis's server-level entry point hands every request to
     * the division's client executor and blocks until that thread has submitted it: two thread
     * switches per request, most of the cost of a small read. Key reads and writes are submitted
     * here instead (a read served under the leader's lease then completes on this thread, so its
     * reply needs no hand-off either); scans and move queries keep the executor, so a KEYS cannot
     * hold up every replicaset behind this event loop.
     *
     * @param inline the division to submit to on this thread, or null for Ratis's executor
     */
    private CompletableFuture<RaftClientReply> submit(RaftClientRequest request, RaftServer.Division inline) throws IOException {
        if (inline instanceof RaftClientAsynchronousProtocol division) return division.submitClientRequestAsync(request);
        return server.submitClientRequestAsync(request);
    }

    private static boolean runsInline(byte kind) {
        return kind == StorageRequest.Kind.WRITE.ordinal() || kind == StorageRequest.Kind.READ.ordinal()
                || kind == StorageRequest.Kind.DISCOVER.ordinal();
    }

    /** This member's Raft division, or null while it has none (starting, closing). */
    private RaftServer.Division division() {
        try {
            return server.getDivision(groupId);
        } catch (IOException e) {
            return null;
        }
    }

    private void respondNotLeader(Responses out, long callId, RaftServer.Division division) {
        RaftPeerId leader = division == null ? null : division.getInfo().getLeaderId();
        byte[] body = DataPlane.utf8(leader == null || leader.equals(selfId) ? "" : leader.toString());
        out.respond(callId, DataPlane.NOT_LEADER, 0, ByteBuffer.wrap(body));
    }

    private static void respond(Responses out, long callId, RaftClientReply reply, Throwable error) {
        if (!out.isOpen()) return;
        byte status;
        long logIndex = 0;
        ByteBuffer body;
        if (error != null) {
            status = DataPlane.RETRY;
            body = ByteBuffer.wrap(DataPlane.utf8(String.valueOf(error.getMessage())));
        } else if (reply.isSuccess()) {
            status = DataPlane.OK;
            logIndex = reply.getLogIndex();
            body = reply.getMessage().getContent().asReadOnlyByteBuffer();
        } else {
            RaftException e = reply.getException();
            NotLeaderException notLeader = reply.getNotLeaderException();
            if (notLeader != null) {
                status = DataPlane.NOT_LEADER;
                RaftPeer leader = notLeader.getSuggestedLeader();
                body = ByteBuffer.wrap(DataPlane.utf8(leader == null ? "" : leader.getId().toString()));
            } else if (e instanceof StateMachineException) {
                status = DataPlane.FAILED;
                body = ByteBuffer.wrap(DataPlane.utf8(e.getMessage()));
            } else {
                // Leader not ready, stepping down, read index failure, resource limits: transient.
                status = DataPlane.RETRY;
                body = ByteBuffer.wrap(DataPlane.utf8(e == null ? "request failed" : e.getMessage()));
            }
        }
        out.respond(callId, status, logIndex, body);
    }

    /** Where a request's response goes. */
    private interface Responses {
        boolean isOpen();

        void respond(long callId, byte status, long logIndex, ByteBuffer body);
    }

    private record ChannelResponses(Channel channel) implements Responses {
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
    private final class LocalSession implements InProcessDataPlane.Session, Responses {
        private final Consumer<DataPlane.Response> responses;
        private final Runnable closed;
        private volatile boolean open = true;

        LocalSession(Consumer<DataPlane.Response> responses, Runnable closed) {
            this.responses = responses;
            this.closed = closed;
        }

        @Override
        public void send(long callId, UUID clientId, byte type, byte[] message) {
            // After a drop the router has been told; a request that raced with it times out there.
            if (open) handle(this, callId, clientId, type, message);
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
