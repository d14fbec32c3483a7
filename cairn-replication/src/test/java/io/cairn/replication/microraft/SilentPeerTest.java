package io.cairn.replication.microraft;

import io.microraft.model.message.RaftMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.cairn.replication.microraft.ModelCodec.MODEL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A connection across a healed network partition can hang for seconds (the kernel retransmits on a
 * backed-off timer), so a peer that answers nothing while it is sent to is dialled again, and its
 * own connections here are closed so that it dials again too.
 */
class SilentPeerTest {
    private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(3);

    @TempDir
    Path dir;

    @Test
    void aLinkIsOverdueOnceItsPeerSaidNothingForTheLimitSinceAMessageWentOut() {
        PeerLink link = new PeerLink("m0", "m1", null, null, null, null, null, LIMIT_NANOS);
        long t = 1_000_000_000L;
        assertThat(link.overdue(t + 10 * LIMIT_NANOS)).as("nothing sent: nothing awaited").isFalse();

        link.sent(t);
        link.sent(t + LIMIT_NANOS / 2); // the wait runs from the first message not answered
        assertThat(link.overdue(t + LIMIT_NANOS)).isFalse();
        assertThat(link.overdue(t + LIMIT_NANOS + 1)).isTrue();
        assertThat(link.overdue(t + LIMIT_NANOS + 2)).as("once per limit").isFalse();
        assertThat(link.overdue(t + 2 * LIMIT_NANOS + 2)).as("still silent a limit later").isTrue();

        link.heard();
        assertThat(link.overdue(t + 10 * LIMIT_NANOS)).as("the peer answered").isFalse();
        link.sent(t + 10 * LIMIT_NANOS);
        assertThat(link.overdue(t + 11 * LIMIT_NANOS)).isFalse();
        assertThat(link.overdue(t + 11 * LIMIT_NANOS + 1)).isTrue();
    }

    /**
     * A peer that takes every byte and answers nothing, as one behind a partition that has just healed
     * looks: the member's connection to it is closed and made again, and the peer's connection to the
     * member (named by its hello) is closed too.
     */
    @Test
    @Timeout(60)
    void aPeerThatAnswersNothingIsDialledAgainAndItsOwnConnectionClosed() throws Exception {
        WireCodec codec = new WireCodec("g", 1 << 20, new SnapshotFiles(dir, "m0"));
        try (ServerSocket silentPeer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
             NettyTransport transport = new NettyTransport("m0", "127.0.0.1:0", Map.of("m1", "127.0.0.1:" + silentPeer.getLocalPort()),
                     codec, null, Duration.ofMillis(300))) {
            transport.listen(message -> { });
            List<Socket> accepted = new CopyOnWriteArrayList<>();
            AtomicBoolean stop = new AtomicBoolean();
            Thread acceptor = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        accepted.add(silentPeer.accept()); // and never read from: the member's bytes sit in its buffers
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            acceptor.start();
            try (Socket fromPeer = new Socket(InetAddress.getLoopbackAddress(), transport.boundAddress().getPort())) {
                sendHello(codec, fromPeer, "m1");
                fromPeer.setSoTimeout(100);
                RaftMessage heartbeat = MODEL.createAppendEntriesRequestBuilder().setGroupId("g").setSender(new Endpoint("m0", null))
                        .setTerm(2).setPreviousLogTerm(1).setPreviousLogIndex(4).setCommitIndex(4).setLogEntries(List.of())
                        .setQuerySequenceNumber(0).setFlowControlSequenceNumber(0).build();
                Endpoint m1 = new Endpoint("m1", null);
                AtomicBoolean peerConnectionClosed = new AtomicBoolean();
                await().atMost(20, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(50)).until(() -> {
                    transport.send(m1, heartbeat); // as a leader's heartbeats go on
                    if (!peerConnectionClosed.get()) peerConnectionClosed.set(closedByMember(fromPeer));
                    return accepted.size() >= 2 && peerConnectionClosed.get();
                });
            } finally {
                stop.set(true);
                silentPeer.close();
                acceptor.join(5_000);
                for (Socket s : accepted) s.close();
            }
            assertThat(accepted.get(0).isClosed() || drainedToEnd(accepted.get(0))).as("the first connection was given up").isTrue();
        }
    }

    private static void sendHello(WireCodec codec, Socket socket, String sender) throws IOException {
        ByteBuf hello = Unpooled.buffer();
        codec.writeHello(sender, hello);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(hello.readableBytes());
        byte[] bytes = new byte[hello.readableBytes()];
        hello.readBytes(bytes);
        out.write(bytes);
        out.flush();
        hello.release();
    }

    /** Whether the member closed this connection (end of stream), waiting at most the socket's timeout. */
    private static boolean closedByMember(Socket socket) throws IOException {
        try {
            return socket.getInputStream().read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    private static boolean drainedToEnd(Socket socket) {
        try {
            socket.setSoTimeout(2_000);
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[8192];
            while (in.read(buf) != -1) { }
            return true;
        } catch (IOException e) {
            return e.getMessage() != null && e.getMessage().contains("reset");
        }
    }
}
