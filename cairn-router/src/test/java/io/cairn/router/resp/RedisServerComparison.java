package io.cairn.router.resp;

import io.cairn.core.testing.ExternalTool;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;

/**
 * A real redis-server (Debian's package, found on the PATH; see {@link ExternalTool}) on a loopback
 * port, to run the same script of commands against it and against Cairn and list every reply that
 * differs, errors word for word.
 */
final class RedisServerComparison implements AutoCloseable {
    private final Process redis;
    private final int port;

    RedisServerComparison() throws IOException {
        Path redisServer = ExternalTool.require("redis-server", "redis-server");
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        redis = new ProcessBuilder(redisServer.toString(), "--bind", "127.0.0.1", "--port", Integer.toString(port),
                "--save", "", "--appendonly", "no").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** Each command of {@code script} sent to both, in order, one connection each: "command: redis X, cairn Y" per difference. */
    List<String> differences(String[][] script, int cairnPort) {
        List<String> differences = new ArrayList<>();
        try (RawClient r = await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(this::connect, c -> c != null);
             RawClient c = new RawClient(cairnPort)) {
            for (String[] command : script) {
                Object expected = r.call(command);
                Object actual = c.call(command);
                if (!String.valueOf(expected).equals(String.valueOf(actual))) {
                    differences.add(String.join(" ", command) + ": redis " + expected + ", cairn " + actual);
                }
            }
        }
        return differences;
    }

    /** {@link #differences} of {@code script} between a fresh redis-server and a fresh Cairn router on an in-memory store. */
    static List<String> againstInMemoryCairn(String[][] script) throws IOException {
        try (RedisServerComparison redis = new RedisServerComparison(); TestServer cairn = new TestServer(new InMemoryKvBackend())) {
            return redis.differences(script, cairn.port());
        }
    }

    /** The port, once redis-server answers PING (for tests that talk to it with their own client). */
    int port() {
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(this::connect, c -> c != null).close();
        return port;
    }

    private RawClient connect() {
        RawClient client = new RawClient(port);
        client.call("ping");
        return client;
    }

    @Override
    public void close() {
        redis.destroy();
    }
}
