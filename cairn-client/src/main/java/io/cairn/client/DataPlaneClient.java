package io.cairn.client;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.tls.ClusterTls;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.InProcessDataPlane;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * A data-plane connection to one replicaset (a router's, a mover's, an admin tool's) ({@link DataPlane} frames to the
 * members' listeners). Calls go to the member believed to be the leader; a NOT_LEADER answer
 * redirects to the member it names (or the next one), a lost connection or an attempt that
 * stays unanswered for {@link #ATTEMPT_TIMEOUT_MS} moves on to the next member.
 *
 * <p>Retry safety: every call keeps its call id (and this client's id) across attempts, and
 * the storage member applies a write once per (client, call): on MicroRaft it wraps the write in a
 * ONCE entry whose reply is kept in the replicated state, on Ratis it submits it under those ids
 * to Ratis's retry cache. So a write re-sent after an unknown outcome is answered, not applied again. A call still unanswered at its deadline fails with
 * {@link ReplicasetUnavailable}: its outcome is unknown and the router does
 * not retry it (writes) or retries it as a new call (reads).
 *
 * <p>Follower reads ({@link #staleRead}) are the exception: pinned to the member chosen, sent once,
 * and a refusal or silence fails them at once, because the caller's fallback is the leader.
 *
 * <p>A member's listener is at the data-plane port its topology entry names. In a topology written
 * before that port existed, the port is learned with a Ratis stale read to that member
 * ({@link DataPlane#ENDPOINT_QUERY}) and looked up again after every lost connection, so a
 * restarted member on a new port is found.
 *
 * <p>A member in this JVM (a local cluster) is reached through {@link InProcessDataPlane}
 * rather than a loopback socket: the same calls, ids and redirects, with responses handed to
 * the connection's event loop instead of read from a socket.
 *
 * <p>Bounded sending (issue 28): what waits for one member's socket is at most
 * {@link #UNSENT_HIGH_WATER_BYTES} and one request. A member that does not read (stalled, or its
 * host swapping) would otherwise collect a copy of every re-sent attempt in this process's heap.
 * An attempt for a connection over the mark is not written: the call waits (back-off) and tries
 * again, on the same ids, until the connection drains below {@link #UNSENT_LOW_WATER_BYTES} or its
 * deadline passes; nothing of it was sent, so its outcome stays known. Callers' own bounds (the
 * router's group-commit queues, the mover's entries in flight) limit how many calls wait.
 *
 * <p>Threads: the router's event loops (by default one loop shared by every data-plane client of
 * this JVM; a router process shares its RESP loops) read replies, run attempt timeouts and
 * back-offs.
 */
public final class DataPlaneClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DataPlaneClient.class);
    /** The event loop when the process gives none: one thread for every data-plane client of this JVM. */
    private static final class DefaultLoop {
        static final EventLoopGroup GROUP = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("cairn-dataplane-client", true), NioIoHandler.newFactory());
    }
    /** An attempt unanswered this long is sent again (same ids) to the next member. */
    public static final long ATTEMPT_TIMEOUT_MS = 1_000;
    /**
     * Longest a call may keep re-sending: well inside how long a member remembers a write's reply
     * (Ratis's retry cache: 60 s by default; a ONCE entry's reply: ten minutes of leader stamps).
     */
    public static final long MAX_BUDGET_MS = 50_000;
    /** Unsent request bytes per connection past which no attempt is written to it, and below which they are again. */
    public static final int UNSENT_HIGH_WATER_BYTES = 4 << 20;
    public static final int UNSENT_LOW_WATER_BYTES = 1 << 20;
    private static final long CONNECT_TIMEOUT_MS = 1_000;
    private static final long MIN_BACKOFF_MS = 10;
    private static final long MAX_BACKOFF_MS = 200;

    /** A successful answer: the log index of a write (0 for reads) and the state machine's reply. */
    public record Reply(long logIndex, ByteBuffer body) {}

    /** Cluster TLS when the client is made (issue 26): presents this process's certificate; null: plain TCP. */
    private final ClusterTls tls = ClusterTls.current();
    private final String replicasetId;
    private final EventLoopGroup loops;
    private final List<String> members;
    /** Each member's "host:port" from the topology; absent for a member whose entry names no data-plane port. */
    private final Map<String, String> namedEndpoints;
    /** Looks up unnamed endpoints; null when every member's port is named. */
    private final EndpointLookup lookup;
    private final long budgetNs;
    private final UUID clientId = UUID.randomUUID();
    private final AtomicLong callIds = new AtomicLong();
    private final Map<String, CompletableFuture<Connection>> connections = new ConcurrentHashMap<>();
    private volatile String leader;
    private volatile boolean closed;
    private final AtomicLong deferredAttempts = new AtomicLong();
    private final AtomicLong peakUnsentBytes = new AtomicLong();
    /** The topology epoch every request carries; 0 sends none (a caller without a coordinator). */
    private volatile LongSupplier epoch = () -> 0;
    private volatile LongConsumer onStaleEpoch = e -> { };

    /**
     * @param budgetMs how long a call may take, all attempts included
     * @param loops    event loops for the connections; null for this JVM's default data-plane loop
     */
    public DataPlaneClient(ReplicasetSpec spec, long budgetMs, EventLoopGroup loops) {
        this.replicasetId = spec.id();
        this.loops = loops != null ? loops : DefaultLoop.GROUP;
        this.members = spec.nodes().stream().map(NodeAddress::id).toList();
        this.namedEndpoints = spec.nodes().stream().filter(n -> n.dataAddress() != null)
                .collect(Collectors.toUnmodifiableMap(NodeAddress::id, NodeAddress::dataAddress));
        this.budgetNs = TimeUnit.MILLISECONDS.toNanos(budgetMs);
        this.lookup = namedEndpoints.size() == members.size() ? null : new EndpointLookup(spec);
    }

    /**
     * Sends {@code epoch} (the caller's topology epoch) with every request: a member that knows a newer
     * one refuses it at once (nothing submitted), {@code onStaleEpoch} hears the member's epoch so the
     * caller refreshes its topology, and the call goes again, with the same ids, within its deadline.
     */
    public DataPlaneClient withEpoch(LongSupplier epoch, LongConsumer onStaleEpoch) {
        this.epoch = epoch;
        this.onStaleEpoch = onStaleEpoch;
        return this;
    }

    /**
     * Sends one request (a {@link DataPlane} type and a StorageRequest message) and answers its
     * reply, giving up at {@code deadlineNs} ({@link System#nanoTime}) or after this client's
     * budget, whichever comes first.
     */
    public CompletableFuture<Reply> call(byte type, byte[] message, long deadlineNs) {
        Call call = new Call(callIds.incrementAndGet(), type, 0, message, withinBudget(deadlineNs));
        String target = leader;
        dispatch(call, target != null ? target : members.get(0));
        return call.result;
    }

    /**
     * A follower read ({@link DataPlane#STALE_READ}) of the READ message {@code read}, sent to
     * {@code member} once and never redirected or re-sent: a refusal fails it with a
     * {@link CairnException} ({@link ErrorCode#STALE_READ}), a lost connection or no answer by
     * {@code deadlineNs} with {@link ReplicasetUnavailable}; the caller then asks the leader.
     */
    public CompletableFuture<Reply> staleRead(String member, long minIndex, byte[] read, long deadlineNs) {
        Call call = new Call(callIds.incrementAndGet(), DataPlane.STALE_READ, minIndex, read, withinBudget(deadlineNs));
        dispatch(call, member);
        return call.result;
    }

    /** A member other than the one believed to lead (any member while none is known, or with one member). */
    public String someFollower() {
        int n = members.size();
        int i = ThreadLocalRandom.current().nextInt(n);
        if (n > 1 && members.get(i).equals(leader)) i = (i + 1 + ThreadLocalRandom.current().nextInt(n - 1)) % n;
        return members.get(i);
    }

    private long withinBudget(long deadlineNs) {
        long budgetDeadline = System.nanoTime() + budgetNs;
        return deadlineNs - budgetDeadline < 0 ? deadlineNs : budgetDeadline;
    }

    /** A deadline for a call that has none of its own: this client's whole budget from now. */
    public long budgetDeadlineNs() {
        return System.nanoTime() + budgetNs;
    }

    /** The member this client believes leads the replicaset, or null. */
    public String leaderHint() {
        return leader;
    }

    /** Attempts not written so far because their connection held {@link #UNSENT_HIGH_WATER_BYTES} unsent (a member not reading). */
    public long deferredAttempts() {
        return deferredAttempts.get();
    }

    /** Request bytes written to this client's connections and not yet taken by their sockets, now. */
    public long unsentBytes() {
        long sum = 0;
        for (CompletableFuture<Connection> f : connections.values()) {
            // a connection that failed to open holds nothing (getNow would throw its failure)
            if (!f.isDone() || f.isCompletedExceptionally()) continue;
            sum += f.join().unsentBytes();
        }
        return sum;
    }

    /** The most request bytes one of this client's connections has held unsent. */
    public long peakUnsentBytes() {
        return peakUnsentBytes.get();
    }

    private void dispatch(Call call, String target) {
        if (call.result.isDone()) return;
        if (closed) {
            fail(call, "router closed");
            return;
        }
        if (System.nanoTime() - call.deadlineNs > 0) {
            fail(call, "no answer from replicaset " + replicasetId + " within the request's deadline" + (call.deferred
                    ? " (its connection held " + (UNSENT_HIGH_WATER_BYTES >> 20) + " MB of requests unsent: the member is not reading)" : ""));
            return;
        }
        int generation = call.generation.incrementAndGet();
        CompletableFuture<Connection> connection = connection(target);
        if (call.type == DataPlane.STALE_READ && !connection.isDone()) {
            // Looking up and connecting may take seconds, longer than a follower read may wait: the
            // leader answers this one, and the connection is there for the next.
            fail(call, "follower read: still connecting to " + target);
            return;
        }
        connection.whenComplete((conn, error) -> {
            if (error != null) {
                attemptFailed(call, generation, target);
            } else {
                conn.send(call, generation);
            }
        });
    }

    private void attemptFailed(Call call, int generation, String target) {
        if (call.generation.get() != generation || call.result.isDone()) return;
        if (call.type == DataPlane.STALE_READ) {
            fail(call, "follower read: " + target + " unreachable or not answering in time");
            return;
        }
        String next = next(target);
        if (target.equals(leader)) leader = null;
        retry(call, next, backoffMs(generation));
    }

    private void retry(Call call, String target, long delayMs) {
        delayMs = Math.min(delayMs, Math.max(0, TimeUnit.NANOSECONDS.toMillis(call.deadlineNs - System.nanoTime())));
        if (delayMs <= 0) {
            dispatch(call, target);
            return;
        }
        try {
            loops.schedule(() -> dispatch(call, target), delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException shuttingDown) {
            fail(call, "router closed");
        }
    }

    private void onResponse(Connection conn, DataPlane.Response response) {
        Attempt attempt = conn.pending.remove(response.callId());
        if (attempt == null) return;
        attempt.timeout.cancel(false);
        Call call = attempt.call;
        if (call.type == DataPlane.STALE_READ) {
            // Pinned to its member: an answer says nothing about who leads, a refusal is final.
            if (response.status() == DataPlane.OK) call.result.complete(new Reply(response.logIndex(), response.body()));
            else call.result.completeExceptionally(new CairnException(ErrorCode.STALE_READ, conn.member + ": " + response.text()));
            return;
        }
        switch (response.status()) {
            case DataPlane.OK -> {
                leader = conn.member;
                // Any attempt's success is the call's outcome (the retry cache answers re-sent writes).
                call.result.complete(new Reply(response.logIndex(), response.body()));
            }
            case DataPlane.NOT_LEADER -> {
                call.unknownAttempts.decrementAndGet(); // this member submitted nothing
                if (call.generation.get() != attempt.generation) return;
                String hint = response.text();
                boolean useful = !hint.isEmpty() && !hint.equals(conn.member) && members.contains(hint);
                String target = useful ? hint : next(conn.member);
                leader = useful ? hint : null;
                retry(call, target, useful ? 0 : backoffMs(attempt.generation));
            }
            case DataPlane.RETRY -> {
                if (call.generation.get() != attempt.generation) return;
                retry(call, conn.member, backoffMs(attempt.generation));
            }
            case DataPlane.STALE_EPOCH -> {
                // nothing submitted: the caller refreshes its topology, and the same call (same ids, so an earlier
                // attempt that was appended is answered, not applied twice) goes again at the newer epoch
                call.unknownAttempts.decrementAndGet();
                long newer;
                try {
                    newer = Long.parseLong(response.text().trim());
                } catch (NumberFormatException e) {
                    newer = 0;
                }
                onStaleEpoch.accept(newer);
                if (call.generation.get() != attempt.generation) return;
                retry(call, conn.member, backoffMs(attempt.generation));
            }
            default -> call.result.completeExceptionally(new ReplicasetUnavailable(response.text()));
        }
    }

    private void fail(Call call, String reason) {
        // a write handed to a member that may have appended it, and never answered for: its outcome is unknown
        boolean unknown = call.type != DataPlane.READ && call.type != DataPlane.STALE_READ && call.unknownAttempts.get() > 0;
        call.result.completeExceptionally(new ReplicasetUnavailable(reason, unknown));
    }

    private String next(String member) {
        int i = members.indexOf(member);
        return members.get((i + 1) % members.size());
    }

    private static long backoffMs(int attempt) {
        return Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS << Math.min(Math.max(attempt - 1, 0), 5));
    }

    private CompletableFuture<Connection> connection(String member) {
        CompletableFuture<Connection> existing = connections.get(member);
        if (existing != null) return existing;
        CompletableFuture<Connection> created = new CompletableFuture<>();
        existing = connections.putIfAbsent(member, created);
        if (existing != null) return existing;
        created.whenComplete((c, e) -> {
            if (e != null) connections.remove(member, created);
        });
        lookupEndpoint(member).thenAccept(address -> connect(member, address, created))
                .exceptionally(e -> {
                    created.completeExceptionally(e);
                    return null;
                });
        return created;
    }

    /** The member's data-plane endpoint, "host:port": from the topology, else asked of its Raft group. */
    private CompletableFuture<String> lookupEndpoint(String member) {
        String named = namedEndpoints.get(member);
        return named != null ? CompletableFuture.completedFuture(named) : lookup.endpointOf(member);
    }

    /** Connects to the member's listener: in process when it is in this JVM ({@link InProcessDataPlane}), else over TCP. */
    private void connect(String member, String endpoint, CompletableFuture<Connection> result) {
        Connection conn = new Connection(member, result);
        InProcessDataPlane.Listener local = InProcessDataPlane.find(endpoint);
        if (local != null) {
            conn.loop = loops.next();
            conn.session = local.open(conn::deliver, () -> connectionLost(conn));
            if (closed) conn.close();
            result.complete(conn);
            return;
        }
        int colon = endpoint.lastIndexOf(':');
        InetSocketAddress address = new InetSocketAddress(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1)));
        new Bootstrap().group(loops).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) CONNECT_TIMEOUT_MS)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(UNSENT_LOW_WATER_BYTES, UNSENT_HIGH_WATER_BYTES))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) ch.pipeline().addLast(new SslHandler(tls.clientEngine(address.getHostString(), address.getPort())));
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(DataPlane.MAX_FRAME_BYTES, 0, 4, 0, 4),
                                new ResponseHandler(conn));
                    }
                })
                .connect(address).addListener((ChannelFutureListener) f -> {
                    if (!f.isSuccess()) {
                        result.completeExceptionally(f.cause());
                        return;
                    }
                    SslHandler ssl = f.channel().pipeline().get(SslHandler.class);
                    if (ssl == null) {
                        connected(conn, f.channel(), result);
                        return;
                    }
                    // with TLS the connection is usable once the handshake is over: a call's attempt time is not spent on it
                    ssl.handshakeFuture().addListener(h -> {
                        if (h.isSuccess()) {
                            connected(conn, f.channel(), result);
                        } else {
                            if (!this.closed) {
                                log.warn("data-plane TLS handshake with {} of {} at {} failed: {}", member, replicasetId, endpoint, h.cause().toString());
                            }
                            f.channel().close();
                            result.completeExceptionally(h.cause());
                        }
                    });
                });
    }

    private void connected(Connection conn, Channel ch, CompletableFuture<Connection> result) {
        conn.channel = ch;
        conn.loop = ch.eventLoop();
        ch.closeFuture().addListener(closed -> connectionLost(conn));
        if (this.closed) ch.close();
        result.complete(conn);
    }

    private void connectionLost(Connection conn) {
        connections.remove(conn.member, conn.entry);
        for (Attempt a : conn.pending.values()) {
            if (conn.pending.remove(a.call.callId, a)) {
                a.timeout.cancel(false);
                attemptFailed(a.call, a.generation, conn.member);
            }
        }
    }

    /**
     * Closes once the calls made so far are over, at most one budget (and a second) from now: for a
     * client replaced by one with other members, whose calls in flight must still get their answers.
     */
    public void closeAfterCallsInFlight() {
        try {
            loops.schedule(this::close, TimeUnit.NANOSECONDS.toMillis(budgetNs) + 1_000, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException shuttingDown) {
            close();
        }
    }

    @Override
    public void close() {
        closed = true;
        for (CompletableFuture<Connection> f : connections.values()) {
            f.thenAccept(Connection::close);
        }
        if (lookup != null) lookup.close();
    }

    private static final class Call {
        final long callId;
        final byte type;
        /** A {@link DataPlane#STALE_READ}'s minimum applied index; 0 for the other types. */
        final long minIndex;
        final byte[] message;
        final long deadlineNs;
        final AtomicInteger generation = new AtomicInteger();
        /** Attempts handed to a member whose answer did not say "nothing submitted" (NOT_LEADER, STALE_EPOCH): they may have appended it. */
        final AtomicInteger unknownAttempts = new AtomicInteger();
        final CompletableFuture<Reply> result = new CompletableFuture<>();
        /** An attempt waited for a backed-up connection: said in the error if the deadline passes. */
        volatile boolean deferred;

        Call(long callId, byte type, long minIndex, byte[] message, long deadlineNs) {
            this.callId = callId;
            this.type = type;
            this.minIndex = minIndex;
            this.message = message;
            this.deadlineNs = deadlineNs;
        }
    }

    private record Attempt(Call call, int generation, ScheduledFuture<?> timeout) {}

    /** A connection to one member: a TCP channel, or an in-process session. */
    private final class Connection {
        final String member;
        /** This connection's entry in {@link #connections}. */
        final CompletableFuture<Connection> entry;
        final Map<Long, Attempt> pending = new ConcurrentHashMap<>();
        volatile Channel channel;
        volatile InProcessDataPlane.Session session;
        /** Runs this connection's attempt timeouts and handles its responses. */
        volatile EventLoop loop;

        Connection(String member, CompletableFuture<Connection> entry) {
            this.member = member;
            this.entry = entry;
        }

        void send(Call call, int generation) {
            Channel tcp = session == null ? channel : null;
            // a closed channel is unwritable too, but it will never drain: the write below fails and the call moves on
            if (tcp != null && tcp.isActive() && !tcp.isWritable()) {
                // not written, so nothing of it can apply: the call waits and tries this member again
                deferredAttempts.incrementAndGet();
                call.deferred = true;
                retry(call, member, backoffMs(generation));
                return;
            }
            // Not past the call's deadline: the last attempt ends when the call does.
            long waitNs = Math.min(TimeUnit.MILLISECONDS.toNanos(ATTEMPT_TIMEOUT_MS), Math.max(0, call.deadlineNs - System.nanoTime()));
            ScheduledFuture<?> timeout = loop.schedule(() -> timedOut(call.callId, generation), waitNs, TimeUnit.NANOSECONDS);
            pending.put(call.callId, new Attempt(call, generation, timeout));
            call.unknownAttempts.incrementAndGet();
            InProcessDataPlane.Session local = session;
            if (local != null) {
                // As a task, like a socket write: a read under the lease is answered inline, and
                // sent at once its batch would be answered before the requests read in this same
                // loop turn joined the next one (batches of one at pipeline 16: 6 us of CPU per
                // GET, not 4).
                long at = epoch.getAsLong();
                if (call.type == DataPlane.STALE_READ) loop.execute(() -> local.staleRead(call.callId, clientId, at, call.minIndex, call.message));
                else loop.execute(() -> local.send(call.callId, clientId, call.type, at, call.message));
                return;
            }
            Channel ch = channel;
            boolean staleRead = call.type == DataPlane.STALE_READ;
            long at = epoch.getAsLong();
            int length = DataPlane.REQUEST_HEADER_BYTES + (at != 0 ? DataPlane.EPOCH_BYTES : 0) + (staleRead ? DataPlane.MIN_INDEX_BYTES : 0)
                    + call.message.length;
            ByteBuf out = ch.alloc().buffer(4 + length);
            out.writeInt(length).writeLong(call.callId).writeLong(clientId.getMostSignificantBits())
                    .writeLong(clientId.getLeastSignificantBits()).writeByte(at != 0 ? call.type | DataPlane.EPOCH_FLAG : call.type);
            if (at != 0) out.writeLong(at);
            if (staleRead) out.writeLong(call.minIndex);
            out.writeBytes(call.message);
            ch.writeAndFlush(out).addListener((ChannelFutureListener) f -> {
                if (f.isSuccess()) return;
                call.unknownAttempts.decrementAndGet(); // never left this process
                lost(call.callId, generation);
            });
            peakUnsentBytes.accumulateAndGet(unsentBytes(), Math::max);
        }

        /** Request bytes written to this connection and not yet taken by its socket (0 in process). */
        long unsentBytes() {
            Channel ch = session == null ? channel : null;
            ChannelOutboundBuffer unsent = ch == null ? null : ch.unsafe().outboundBuffer();
            return unsent == null ? 0 : unsent.totalPendingWriteBytes();
        }

        /** An in-process response, on the thread that produced it (for a write, Ratis's applier): handled on this loop. */
        void deliver(DataPlane.Response response) {
            if (loop.inEventLoop()) onResponse(this, response);
            else loop.execute(() -> onResponse(this, response));
        }

        void close() {
            InProcessDataPlane.Session local = session;
            if (local == null) {
                channel.close(); // its close listener fails the attempts in flight
                return;
            }
            local.close();
            connectionLost(this);
        }

        private void timedOut(long callId, int generation) {
            if (lost(callId, generation)) log.debug("call {} to {} unanswered within its attempt's time", callId, member);
        }

        private boolean lost(long callId, int generation) {
            Attempt a = pending.get(callId);
            if (a == null || a.generation != generation || !pending.remove(callId, a)) return false;
            a.timeout.cancel(false);
            attemptFailed(a.call, generation, member);
            return true;
        }
    }

    private final class ResponseHandler extends SimpleChannelInboundHandler<ByteBuf> {
        private final Connection conn;

        ResponseHandler(Connection conn) {
            this.conn = conn;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            byte[] copy = new byte[frame.readableBytes()];
            frame.readBytes(copy);
            onResponse(conn, DataPlane.decodeResponse(ByteBuffer.wrap(copy)));
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (!ctx.channel().isWritable()) {
                log.info("data-plane connection to {} of {} holds {} MB of requests unsent (the member is not reading): calls to it wait",
                        conn.member, replicasetId, UNSENT_HIGH_WATER_BYTES >> 20);
            } else {
                log.info("data-plane connection to {} of {} drained: calls to it go again", conn.member, replicasetId);
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("data-plane connection to {} of {} failed: {}", conn.member, replicasetId, cause.toString());
            ctx.close();
        }
    }
}
