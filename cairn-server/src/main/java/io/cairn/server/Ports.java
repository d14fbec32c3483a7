package io.cairn.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** Free loopback port ranges for clusters started in this JVM (benchmarks, tests). */
public final class Ports {
    private Ports() {}

    private static final int LOWEST = 10_000;

    /**
     * First of {@code count} consecutive loopback ports that are free right now, below the
     * kernel's ephemeral range: outgoing connections take ports from that range at any moment,
     * and one of them could take a port between this check and the server's bind.
     */
    public static int freeRange(int count) throws IOException {
        int highest = Math.max(LOWEST + 1_000, ephemeralLow()) - count;
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = LOWEST + ThreadLocalRandom.current().nextInt(highest - LOWEST);
            if (allFree(base, count)) return base;
        }
        throw new IOException("no " + count + " consecutive free ports found");
    }

    /**
     * The first port of the ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range), 32768 when unknown.
     * Read through a buffered reader: {@code Files.readString} sees a size of 0, reads one byte, and the
     * kernel answers the read at offset 1 with end of file, so it returned "3" and every range came from
     * the 1,000 ports above 10,000.
     */
    static int ephemeralLow() {
        try {
            String range = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException unknown) {
            return 32_768;
        }
    }

    private static boolean allFree(int base, int count) {
        for (int p = base; p < base + count; p++) {
            if (!isFree(new InetSocketAddress(InetAddress.getLoopbackAddress(), p))) return false;
        }
        return true;
    }

    /** Whether a server could bind {@code address} right now. */
    static boolean isFree(InetSocketAddress address) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(address, 1);
            return true;
        } catch (IOException busy) {
            return false;
        }
    }
}
