package io.cairn.replication.microraft;

import io.microraft.model.message.RaftMessage;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The outgoing connection to one peer. {@link #send} never blocks: it hands the message to the
 * connection's event loop, which encodes and writes it. What waits is bounded: at most
 * {@link #MAX_QUEUED} messages handed over but not yet encoded, nothing while the connection holds
 * {@link NettyTransport#HIGH_WATER_BYTES} unsent (until it drains below the low mark), and
 * {@link #MAX_PENDING} while a dial is under way. Anything more is dropped and counted: Raft sends again (heartbeats, append retries), so a drop costs time,
 * never safety. A peer that cannot be reached is dialled again after a backoff that doubles up to
 * {@link #MAX_BACKOFF_NANOS}; a message sent before then is dropped.
 *
 * <p>A connection can hang without closing: across a network partition the kernel keeps
 * retransmitting what it holds, backing off to several seconds between tries, and after the
 * partition heals it sends again only when its next try is due (after an outage of 8 s, up to
 * 6 s later). So a link that has sent and heard nothing back from its peer (on any connection)
 * for the silence limit is {@link #overdue}: the transport closes it and the next message dials
 * afresh, which reaches a healed peer at once.
 */
final class PeerLink {
    private static final Logger LOG = LoggerFactory.getLogger(PeerLink.class);
    static final int MAX_QUEUED = 1024;
    static final int MAX_PENDING = 64;
    private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final String selfId;
    private final String peerId;
    private final InetSocketAddress address;
    private final Bootstrap bootstrap;
    private final AtomicInteger queued;
    private final AtomicLong dropped;
    private final AtomicLong droppedBackedUp;

    private volatile Channel channel;
    private boolean dialling;
    private boolean closed;
    private boolean unreachableLogged;
    private long nextDialNanos = System.nanoTime();
    private long backoffNanos = MIN_BACKOFF_NANOS;
    private final ArrayDeque<RaftMessage> pending = new ArrayDeque<>();
    private final long silenceLimitNanos;
    /** When the first message since the peer was last heard went out; 0 while none is waiting. */
    private volatile long waitingSinceNanos;

    /**
     * @param queued  messages handed to the connection and not yet encoded; its encoder counts down
     * @param dropped the transport's count of dropped messages
     * @param droppedBackedUp the transport's count of messages dropped because the connection held too much unsent
     */
    PeerLink(String selfId, String peerId, InetSocketAddress address, Bootstrap bootstrap, AtomicInteger queued, AtomicLong dropped,
             AtomicLong droppedBackedUp, long silenceLimitNanos) {
        this.silenceLimitNanos = silenceLimitNanos;
        this.selfId = selfId;
        this.peerId = peerId;
        this.address = address;
        this.bootstrap = bootstrap;
        this.queued = queued;
        this.dropped = dropped;
        this.droppedBackedUp = droppedBackedUp;
    }

    boolean isConnected() {
        Channel ch = channel;
        return ch != null && ch.isActive();
    }

    void send(RaftMessage message) {
        Channel ch = channel;
        if (ch != null && ch.isActive()) {
            write(ch, message);
            return;
        }
        synchronized (this) {
            ch = channel;
            if (ch != null && ch.isActive()) {
                write(ch, message);
            } else if (closed) {
                dropped.incrementAndGet();
            } else if (dialling) {
                if (pending.size() < MAX_PENDING) pending.add(message);
                else dropped.incrementAndGet();
            } else if (System.nanoTime() - nextDialNanos >= 0) {
                dialling = true;
                pending.add(message);
                bootstrap.connect(address).addListener((ChannelFuture f) -> connected(f));
            } else {
                dropped.incrementAndGet(); // the peer was unreachable moments ago
            }
        }
    }

    /** Bytes written to this peer's connection and not yet taken by its socket. */
    long unsentBytes() {
        Channel ch = channel;
        ChannelOutboundBuffer unsent = ch == null ? null : ch.unsafe().outboundBuffer();
        return unsent == null ? 0 : unsent.totalPendingWriteBytes();
    }

    private void write(Channel ch, RaftMessage message) {
        if (!ch.isWritable()) {
            // a closed channel is unwritable too: only an open one that holds too much unsent is backed up
            if (ch.isActive()) droppedBackedUp.incrementAndGet();
            dropped.incrementAndGet();
            return;
        }
        if (queued.get() >= MAX_QUEUED) {
            dropped.incrementAndGet();
            return;
        }
        queued.incrementAndGet();
        ch.writeAndFlush(message, ch.voidPromise());
        sent(System.nanoTime());
    }

    /** A message went out on the connection at {@code nowNanos}. */
    void sent(long nowNanos) {
        if (waitingSinceNanos == 0) waitingSinceNanos = nowNanos == 0 ? 1 : nowNanos;
    }

    /** A message came from the peer, on whichever connection. */
    void heard() {
        if (waitingSinceNanos != 0) waitingSinceNanos = 0;
    }

    /**
     * Whether the peer has been silent for the silence limit since a message went out to it; the wait
     * starts again, so the answer is yes once per limit.
     */
    boolean overdue(long nowNanos) {
        long since = waitingSinceNanos;
        if (since == 0 || nowNanos - since <= silenceLimitNanos) return false;
        waitingSinceNanos = nowNanos;
        return true;
    }

    /** Closes the connection (a hung one: {@link #overdue}); the next message dials the peer again. */
    void redial() {
        Channel ch = channel;
        if (ch != null) ch.close();
    }

    /** Whether this link was ever up: before that, failures to dial are a peer still starting. */
    private boolean everConnected;

    private synchronized void connected(ChannelFuture f) {
        dialling = false;
        if (!f.isSuccess() || closed) {
            if (f.isSuccess()) f.channel().close();
            dropped.addAndGet(pending.size());
            pending.clear();
            nextDialNanos = System.nanoTime() + backoffNanos;
            backoffNanos = Math.min(MAX_BACKOFF_NANOS, backoffNanos * 2);
            if (!closed && !unreachableLogged) {
                unreachableLogged = true;
                // Peers start in any order: not reaching one that was never reached is no event for an operator.
                String cause = f.cause() == null ? "closed" : f.cause().getMessage();
                if (everConnected) LOG.info("{}: cannot reach {} at {}: {}", selfId, peerId, address, cause);
                else LOG.debug("{}: cannot reach {} at {} yet: {}", selfId, peerId, address, cause);
            }
            return;
        }
        Channel ch = f.channel();
        if (unreachableLogged && everConnected) LOG.info("{}: connected to {} at {}", selfId, peerId, address);
        unreachableLogged = false;
        everConnected = true;
        backoffNanos = MIN_BACKOFF_NANOS;
        for (RaftMessage m : pending) write(ch, m);
        pending.clear();
        channel = ch;
        ch.closeFuture().addListener(x -> lost(ch));
    }

    private synchronized void lost(Channel ch) {
        if (channel != ch) return;
        channel = null;
        queued.set(0);
        if (!closed) {
            unreachableLogged = true;
            LOG.info("{}: connection to {} at {} closed", selfId, peerId, address);
        }
    }

    synchronized void close() {
        closed = true;
        pending.clear();
        Channel ch = channel;
        if (ch != null) ch.close();
    }
}
