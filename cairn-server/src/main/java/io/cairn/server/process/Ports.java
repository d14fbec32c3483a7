package io.cairn.server.process;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/** Free loopback port ranges for clusters started in this JVM (benchmarks, tests). */
public final class Ports {
    private Ports() {}

    private static final int LOWEST = 10_000;

    /**
     * {@code K/N}: pick ranges only in the K-th of N equal slices of the usable ports. Set by the
     * build for its parallel test JVMs (one slice each, surefire's fork number), so two JVMs never
     * race for the same free ports; unset, the whole range is used.
     */
    static final String SLICE_PROPERTY = "cairn.ports.slice";

    /**
     * First of {@code count} consecutive loopback ports that are free right now, below the
     * kernel's ephemeral range: outgoing connections take ports from that range at any moment,
     * and one of them could take a port between this check and the server's bind.
     */
    public static int freeRange(int count) throws IOException {
        Bases bases = bases(count, ephemeralLow(), System.getProperty(SLICE_PROPERTY));
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = bases.lowest() + ThreadLocalRandom.current().nextInt(bases.bound() - bases.lowest());
            if (allFree(base, count)) return base;
        }
        throw new IOException("no " + count + " consecutive free ports found");
    }

    /** First ports a range may start at: from {@code lowest} up to, not including, {@code bound}. */
    record Bases(int lowest, int bound) {}

    /**
     * Where a range of {@code count} ports may start so that it ends below {@code ephemeralLow},
     * inside the K-th of N equal slices when {@code slice} ("K/N") is not null.
     */
    static Bases bases(int count, int ephemeralLow, String slice) {
        int end = Math.max(LOWEST + 1_000, ephemeralLow);
        if (slice == null) return new Bases(LOWEST, end - count);
        int k = Integer.parseInt(slice.substring(0, slice.indexOf('/')));
        int n = Integer.parseInt(slice.substring(slice.indexOf('/') + 1));
        if (k < 1 || k > n) throw new IllegalArgumentException(SLICE_PROPERTY + " must be K/N with 1 <= K <= N, was " + slice);
        int width = (end - LOWEST) / n;
        int lowest = LOWEST + (k - 1) * width;
        return new Bases(lowest, lowest + width - count);
    }

    /**
     * The first port of the ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range), 32768 when unknown.
     * Read through a buffered reader: {@code Files.readString} sees a size of 0, reads one byte, and the
     * kernel answers the read at offset 1 with end of file, so it returned "3" and every range came from
     * the 1,000 ports above 10,000.
     */
    static int ephemeralLow() {
        try {
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
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
