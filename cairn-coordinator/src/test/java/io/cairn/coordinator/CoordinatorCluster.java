package io.cairn.coordinator;

import io.cairn.core.topology.NodeAddress;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.awaitility.Awaitility.await;

/**
 * Real coordinator servers on 127.0.0.1 for tests. Ports are found with ServerSocket(0); since
 * another process can take one before Ratis binds it, a start that fails to bind is retried on
 * fresh ports (all peers must be known up front, so the whole group starts again).
 */
final class CoordinatorCluster implements AutoCloseable {
    private static final int START_ATTEMPTS = 5;

    private final Path root;
    private final List<NodeAddress> addresses;
    private final CoordinatorServer[] servers;
    private final RemovalCheck removalCheck;

    private CoordinatorCluster(Path root, List<NodeAddress> addresses, RemovalCheck removalCheck) {
        this.root = root;
        this.addresses = addresses;
        this.removalCheck = removalCheck;
        this.servers = new CoordinatorServer[addresses.size()];
    }

    static CoordinatorCluster start(int size, Path root) throws IOException {
        return start(size, root, RemovalCheck.NONE);
    }

    static CoordinatorCluster start(int size, Path root, RemovalCheck removalCheck) throws IOException {
        for (int attempt = 1; ; attempt++) {
            Path attemptDir = root.resolve("attempt-" + attempt);
            CoordinatorCluster cluster = new CoordinatorCluster(attemptDir, freeAddresses(size), removalCheck);
            try {
                for (int i = 0; i < size; i++) cluster.startNode(i);
                return cluster;
            } catch (IOException e) {
                cluster.close();
                if (!isBindFailure(e) || attempt == START_ATTEMPTS) throw e;
            }
        }
    }

    List<NodeAddress> addresses() {
        return addresses;
    }

    CoordinatorServer server(int index) {
        return servers[index];
    }

    Path dataDir(int index) {
        return root.resolve(addresses.get(index).id());
    }

    /** Index of the leader, once there is one. */
    int awaitLeader() {
        return await().atMost(Duration.ofSeconds(20)).until(this::leaderIndex, i -> i >= 0);
    }

    int leaderIndex() {
        for (int i = 0; i < servers.length; i++) if (servers[i] != null && servers[i].isLeader()) return i;
        return -1;
    }

    void stop(int index) {
        if (servers[index] != null) servers[index].close();
        servers[index] = null;
    }

    /** Starts a stopped node again on the same folder and port (retrying while the port is still held). */
    void restart(int index) {
        await().atMost(Duration.ofSeconds(20)).ignoreExceptionsMatching(CoordinatorCluster::isBindFailure)
                .until(() -> {
                    startNode(index);
                    return true;
                });
    }

    CoordinatorClient client() {
        return new CoordinatorClient(addresses);
    }

    @Override
    public void close() {
        for (int i = 0; i < servers.length; i++) stop(i);
    }

    private void startNode(int index) throws IOException {
        CoordinatorServer server = new CoordinatorServer(addresses.get(index).id(), addresses, dataDir(index), removalCheck);
        try {
            server.start();
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        servers[index] = server;
    }

    private static List<NodeAddress> freeAddresses(int size) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 2 * size; i++) sockets.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            return IntStream.range(0, size)
                    .mapToObj(i -> new NodeAddress("c" + (i + 1), "127.0.0.1",
                            sockets.get(2 * i).getLocalPort(), sockets.get(2 * i + 1).getLocalPort()))
                    .toList();
        } finally {
            for (ServerSocket s : sockets) s.close();
        }
    }

    static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) return true;
            String m = t.getMessage();
            if (m != null && (m.contains("Address already in use") || m.contains("Failed to bind"))) return true;
        }
        return false;
    }
}
