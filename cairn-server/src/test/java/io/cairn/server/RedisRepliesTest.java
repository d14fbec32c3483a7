package io.cairn.server;

import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Cairn's replies to list, set and sorted set commands, byte for byte as redis-server 7 gives them: a script
 * of commands with the replies redis-server 7.0.15 gave (test resource redis7-collections.golden),
 * replayed against a real cluster through a raw RESP socket (a nil array and a nil bulk differ
 * there, as they do for clients). When a redis-server is on the PATH, the same script is replayed
 * against it too, so the pinned replies stay honest.
 */
class RedisRepliesTest {
    private static final String GOLDEN = "/redis7-collections.golden";

    @TempDir
    Path dir;

    @Test
    void listSetAndSortedSetCommandsReplyAsRedis7() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, 300, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            replay(cluster.router().respPort());
        }
    }

    @Test
    void thePinnedRepliesAreRedisServersOwn() throws Exception {
        Path redis = onPath("redis-server");
        Assumptions.assumeTrue(redis != null, "no redis-server on the PATH: the pinned replies are checked against Cairn only");
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Process server = new ProcessBuilder(redis.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
                try (RawResp probe = new RawResp(port)) {
                    return "+PONG".equals(probe.call("PING"));
                }
            });
            replay(port);
        } finally {
            server.destroy();
            server.waitFor();
        }
    }

    /** Sends every scripted command in order on one connection; every reply must be the pinned one. */
    private static void replay(int port) throws IOException {
        List<String[]> script = script();
        assertThat(script).as("the script is not empty").hasSizeGreaterThan(100);
        List<String> mismatches = new ArrayList<>();
        try (RawResp client = new RawResp(port)) {
            for (String[] step : script) {
                boolean unordered = step[0].startsWith("~");
                String command = unordered ? step[0].substring(1) : step[0];
                String reply;
                try {
                    reply = format(client.call(command.split(" ")), unordered);
                } catch (java.net.SocketTimeoutException e) {
                    throw new AssertionError("no reply to " + command, e);
                }
                if (!reply.equals(step[1])) mismatches.add(command + "\n    expected " + step[1] + "\n    got      " + reply);
            }
        }
        assertThat(mismatches).as("replies that differ from redis-server 7's").isEmpty();
    }

    private static List<String[]> script() throws IOException {
        List<String[]> steps = new ArrayList<>();
        try (InputStream in = RedisRepliesTest.class.getResourceAsStream(GOLDEN)) {
            assertThat(in).as(GOLDEN).isNotNull();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isEmpty() || line.startsWith("#")) continue;
                String[] parts = line.split("\t", 2);
                assertThat(parts).as("line '%s' has a command and a reply", line).hasSize(2);
                steps.add(parts);
            }
        }
        return steps;
    }

    private static String format(Object reply, boolean sorted) {
        if (!(reply instanceof List<?> items)) return (String) reply;
        List<String> texts = new ArrayList<>();
        for (Object item : items) texts.add(format(item, false));
        if (sorted) texts.sort(null);
        return "[" + String.join(", ", texts) + "]";
    }

    private static Path onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) return null;
        for (String folder : path.split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(folder, program);
            if (Files.isExecutable(candidate)) return candidate;
        }
        return null;
    }
}
