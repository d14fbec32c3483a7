package io.cairn.raftbench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

final class Ports {
    /** Longest the harness waits for a group to elect a leader. */
    static final Duration LEADER_WAIT = Duration.ofSeconds(60);

    private Ports() {
    }

    /** {@code n} free ports on 127.0.0.1 (free when asked; engines bind them moments later). */
    static List<InetSocketAddress> loopback(int n) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) held.add(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
            return held.stream().map(s -> new InetSocketAddress("127.0.0.1", s.getLocalPort())).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // it was only holding the number
                }
            }
        }
    }

    static String format(List<InetSocketAddress> peers) {
        return String.join(",", peers.stream().map(p -> p.getHostString() + ":" + p.getPort()).toList());
    }

    static List<InetSocketAddress> parse(String peers) {
        return Arrays.stream(peers.split(",")).map(p -> {
            int colon = p.lastIndexOf(':');
            return new InetSocketAddress(p.substring(0, colon), Integer.parseInt(p.substring(colon + 1)));
        }).toList();
    }
}
