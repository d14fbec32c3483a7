package io.cairn.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** Free loopback port ranges for clusters started in this JVM (benchmarks, tests). */
public final class Ports {
    private Ports() {}

    /** First of {@code count} consecutive loopback ports that are free right now. */
    public static int freeRange(int count) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = 20_000 + ThreadLocalRandom.current().nextInt(30_000);
            if (allFree(base, count)) return base;
        }
        throw new IOException("no " + count + " consecutive free ports found");
    }

    private static boolean allFree(int base, int count) {
        for (int p = base; p < base + count; p++) {
            try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
            } catch (IOException busy) {
                return false;
            }
        }
        return true;
    }
}
