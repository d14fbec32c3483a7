package io.cairn.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP relay on 127.0.0.1 that plays a receiver which stops reading (a stalled follower, a
 * destination whose host swaps), for tests of what the sender then holds. It forwards bytes both
 * ways between each connection it accepts and {@code targetPort}; {@link #stopReading} stops it
 * reading what the connecting side sends (what it has already read still goes through), so the
 * kernel buffers fill and the sender's own queue is all that grows; {@link #resumeReading} lets the
 * bytes flow again. Answers from the target keep flowing. Its listening socket's receive buffer is
 * small ({@link #RECEIVE_BUFFER_BYTES}), so the sender feels the stall after little data.
 *
 * <p>Blocking sockets and two threads per connection: it is for tests with a handful of connections.
 */
public final class StallingProxy implements AutoCloseable {
    public static final int RECEIVE_BUFFER_BYTES = 64 << 10;

    private final ServerSocket server;
    private final int targetPort;
    private final Object gate = new Object();
    private final List<Socket> sockets = new ArrayList<>();
    private boolean reading = true;
    private volatile boolean closed;

    public StallingProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        server = new ServerSocket();
        server.setReceiveBufferSize(RECEIVE_BUFFER_BYTES); // accepted sockets inherit it
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        daemon("proxy-accept-" + port(), this::accept).start();
    }

    /** The port senders connect to instead of the target's. */
    public int port() {
        return server.getLocalPort();
    }

    /** From now on nothing more is read from the connecting side (at most the buffer being read already goes on). */
    public void stopReading() {
        synchronized (gate) {
            reading = false;
        }
    }

    public void resumeReading() {
        synchronized (gate) {
            reading = true;
            gate.notifyAll();
        }
    }

    private void accept() {
        while (!closed) {
            Socket in = null;
            try {
                in = server.accept();
                Socket out = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                synchronized (sockets) {
                    sockets.add(in);
                    sockets.add(out);
                }
                Socket accepted = in;
                daemon("proxy-up-" + in.getPort(), () -> pump(accepted, out, true)).start();
                daemon("proxy-down-" + in.getPort(), () -> pump(out, accepted, false)).start();
            } catch (IOException e) {
                // the target is not listening (yet): the sender sees its connection close, as it would without a relay
                if (in != null) closeQuietly(in);
            }
        }
    }

    private void pump(Socket from, Socket to, boolean gated) {
        byte[] buffer = new byte[16 << 10];
        try (InputStream input = from.getInputStream(); OutputStream output = to.getOutputStream()) {
            while (true) {
                if (gated) awaitReading();
                int n = input.read(buffer);
                if (n < 0 || closed) break;
                output.write(buffer, 0, n);
            }
        } catch (IOException | InterruptedException e) {
            // one side went away: close both below
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitReading() throws InterruptedException {
        synchronized (gate) {
            while (!reading && !closed) gate.wait();
        }
    }

    @Override
    public void close() {
        closed = true;
        resumeReading();
        closeQuietly(server);
        synchronized (sockets) {
            sockets.forEach(StallingProxy::closeQuietly);
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing a relay in a test's teardown
        }
    }
}
