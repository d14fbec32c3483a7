package io.cairn.archive;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP forwarder on 127.0.0.1 that counts every byte a client sends and receives: put between
 * an S3 client and the server, it measures what passes through the caller's process, independent
 * of the SDK's own accounting (so "no bucket bytes through the node" is measured, not assumed).
 */
final class CountingTcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final AtomicLong sentBytes = new AtomicLong();
    private final AtomicLong receivedBytes = new AtomicLong();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    CountingTcpProxy(URI target) throws IOException {
        this.target = new InetSocketAddress(target.getHost(), target.getPort());
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "counting-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    /** Bytes the client sent towards the server, since the last reset. */
    long sentBytes() {
        return sentBytes.get();
    }

    /** Bytes the server sent back to the client, since the last reset. */
    long receivedBytes() {
        return receivedBytes.get();
    }

    void reset() {
        sentBytes.set(0);
        receivedBytes.set(0);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream, sentBytes, "up");
                pump(upstream, client, receivedBytes, "down");
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void pump(Socket from, Socket to, AtomicLong counter, String name) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    counter.addAndGet(n);
                    out.write(buffer, 0, n);
                }
            } catch (IOException ignored) {
                // the other side closed; closing both ends below ends the pair
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "counting-proxy-" + name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) closeQuietly(s);
    }
}
