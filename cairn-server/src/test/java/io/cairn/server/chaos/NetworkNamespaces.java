package io.cairn.server.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A test host per storage node, for network partitions between processes: each node runs in its
 * own network namespace, joined by a veth pair to a bridge of this test's own in the root
 * namespace, with an address of a private /24 ({@code 10.213.X.N}; the bridge, where the
 * coordinator, the router and the test listen, is {@code .1}). Cutting a node off is taking its
 * veth's root side down: its packets go nowhere, connections hang rather than reset, as on a real
 * partition; healing is bringing it up again. Only what this object created is deleted at
 * {@link #close} (its namespaces, whose veths go with them, and its bridge).
 *
 * <p>Needs root and {@code ip}; {@link #unavailableBecause} says why not, so the chaos test skips
 * partitions and prints that.
 */
final class NetworkNamespaces implements AutoCloseable {
    private final String tag = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
    private final int subnet = 16 + ThreadLocalRandom.current().nextInt(200);
    private final String bridge = "cbr" + tag;
    private final Map<String, String> namespaces = new LinkedHashMap<>();
    private final Map<String, String> hostSide = new LinkedHashMap<>();
    private boolean bridgeUp;

    /** Null when namespaces can be made here, else the reason they cannot. */
    static String unavailableBecause() {
        if (!"root".equals(System.getProperty("user.name"))) return "not root (user " + System.getProperty("user.name") + ")";
        if (!Files.isExecutable(Path.of("/usr/sbin/ip")) && !Files.isExecutable(Path.of("/sbin/ip")) && !Files.isExecutable(Path.of("/usr/bin/ip"))) {
            return "no ip command (apt-get install iproute2)";
        }
        try {
            ip("netns", "list");
            return null;
        } catch (IOException e) {
            return "ip netns does not work here: " + e.getMessage();
        }
    }

    /** The address the coordinator, the router and the test use (on the bridge, in the root namespace). */
    String hostAddress() {
        return "10.213." + subnet + ".1";
    }

    NetworkNamespaces up() throws IOException {
        ip("link", "add", bridge, "type", "bridge");
        bridgeUp = true;
        ip("addr", "add", hostAddress() + "/24", "dev", bridge);
        ip("link", "set", bridge, "up");
        return this;
    }

    /** A namespace for {@code node}, joined to the bridge; returns its address. */
    String add(String node) throws IOException {
        int n = namespaces.size() + 2;
        String ns = "cairn-" + tag + "-" + node;
        String host = "cv" + tag + "h" + n;
        String peer = "cv" + tag + "p" + n;
        ip("netns", "add", ns);
        namespaces.put(node, ns);
        ip("link", "add", host, "type", "veth", "peer", "name", peer);
        ip("link", "set", peer, "netns", ns);
        ip("link", "set", host, "master", bridge);
        ip("link", "set", host, "up");
        String address = "10.213." + subnet + "." + n;
        ip("netns", "exec", ns, "ip", "addr", "add", address + "/24", "dev", peer);
        ip("netns", "exec", ns, "ip", "link", "set", peer, "up");
        ip("netns", "exec", ns, "ip", "link", "set", "lo", "up");
        hostSide.put(node, host);
        return address;
    }

    /** The command prefix that runs a program in {@code node}'s namespace (ip execs it: the process is the program's own). */
    List<String> launcher(String node) {
        String ns = namespaces.get(node);
        return ns == null ? List.of() : List.of("ip", "netns", "exec", ns);
    }

    boolean hosts(String node) {
        return namespaces.containsKey(node);
    }

    /** Cuts {@code node} off from every other process. */
    void isolate(String node) throws IOException {
        ip("link", "set", hostSide.get(node), "down");
    }

    void heal(String node) throws IOException {
        ip("link", "set", hostSide.get(node), "up");
    }

    @Override
    public void close() {
        for (String ns : namespaces.values()) quietly("netns", "del", ns);
        if (bridgeUp) quietly("link", "del", bridge);
    }

    private static void quietly(String... args) {
        try {
            ip(args);
        } catch (IOException e) {
            System.out.println("cleanup: " + e.getMessage());
        }
    }

    private static String ip(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": no answer within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) throw new IOException(String.join(" ", command) + " -> " + p.exitValue() + ": " + out.trim());
        return out;
    }
}
