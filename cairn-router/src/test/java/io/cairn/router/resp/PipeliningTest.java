package io.cairn.router.resp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Pipelined commands are answered in request order, whatever order the backend finishes in. */
class PipeliningTest {
    private static final long SEED = 20261130L;

    private final ScriptedBackend backend = new ScriptedBackend(new InMemoryKvBackend());
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) server.close();
        backend.close();
    }

    @Test
    void repliesFollowRequestOrderWhenTheBackendCompletesOutOfOrder() {
        backend.delayRandomly(SEED, 2_000);
        server = new TestServer(backend);
        ByteArrayOutputStream batch = new ByteArrayOutputStream();
        for (int i = 0; i < 250; i++) {
            batch.writeBytes(RawClient.encode("SET", "k" + i, "v" + i));
            batch.writeBytes(RawClient.encode("ECHO", "e" + i)); // answered without the backend
            batch.writeBytes(RawClient.encode("GET", "k" + i));
            batch.writeBytes(RawClient.encode("INCR", "counter"));
        }
        try (RawClient client = server.client()) {
            client.send(batch.toByteArray());
            for (int i = 0; i < 250; i++) {
                String context = "seed " + SEED + ", round " + i;
                assertThat(client.read()).as(context).isEqualTo("OK");
                assertThat(client.read()).as(context).isEqualTo("e" + i);
                assertThat(client.read()).as(context).isEqualTo("v" + i);
                assertThat(client.read()).as(context).isEqualTo((long) i + 1);
            }
        }
    }

    @Test
    void jedisPipelineOfAThousandCommandsGetsEveryReplyInOrder() {
        backend.delayRandomly(SEED + 1, 1_000);
        server = new TestServer(backend);
        // Replies are delayed up to 1 s on purpose: a client timeout well past that (Jedis's default is 2 s).
        try (Jedis jedis = new Jedis("127.0.0.1", server.port(), 30_000)) {
            Pipeline pipeline = jedis.pipelined();
            List<Response<String>> gets = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                pipeline.set("key" + i, "value" + i);
                gets.add(pipeline.get("key" + i));
            }
            pipeline.sync();
            for (int i = 0; i < 500; i++) assertThat(gets.get(i).get()).isEqualTo("value" + i);
        }
    }

    /**
     * With the backend holding every reply, reading stops once the connection has its in-flight
     * budget (4; below the 8 commands a new connection may start before its replies show their size) outstanding: the commands reaching the backend stop far short of the 50,000 sent,
     * and the client's writer stops with them. Released, every command is served in order.
     */
    @Test
    void readingPausesWhileTooManyCommandsAreInFlightAndResumesAfterwards() {
        int maxInFlight = 4;
        server = new TestServer(backend, RespConfig.builder().maxInFlightPerConnection(maxInFlight));
        int commands = 50_000;
        int chunkCommands = 500;
        try (RawClient seed = server.client()) {
            assertThat(seed.call("SET", "k", "v")).isEqualTo("OK");
        }
        long callsBefore = backend.calls();
        backend.hold();
        try (RawClient client = server.client()) {
            ByteArrayOutputStream chunk = new ByteArrayOutputStream();
            for (int i = 0; i < chunkCommands; i++) chunk.writeBytes(RawClient.encode("GET", "k"));
            AtomicInteger chunksSent = new AtomicInteger();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < commands / chunkCommands; i++) {
                    client.send(chunk.toByteArray());
                    chunksSent.incrementAndGet();
                }
            });
            // First the connection uses its whole in-flight budget (every reply is held) ...
            await("the connection's in-flight budget is used").atMost(Duration.ofSeconds(60))
                    .until(() -> backend.calls() - callsBefore >= maxInFlight);
            // ... then reading stops: neither the commands reaching the backend nor the writer move for a
            // second (four looks 250 ms apart). Judged from both and over several looks, a machine that is
            // merely slow does not pass for a paused reader.
            AtomicReference<List<Long>> last = new AtomicReference<>(List.of());
            AtomicInteger unchangedLooks = new AtomicInteger();
            await("reading paused").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> {
                List<Long> now = List.of(backend.calls(), (long) chunksSent.get());
                if (!now.equals(last.getAndSet(now))) {
                    unchangedLooks.set(0);
                    return false;
                }
                return unchangedLooks.incrementAndGet() >= 4;
            });
            long reached = backend.calls() - callsBefore;
            System.out.printf("reading paused: %d of %d commands reached the backend, the writer sent %d%n",
                    reached, commands, (long) chunksSent.get() * chunkCommands);
            // Commands decoded from the last read wait unstarted: exactly the budget reached the backend.
            assertThat(reached).as("commands that reached the backend while reading was paused").isEqualTo(maxInFlight);
            backend.release();
            for (int i = 0; i < commands; i++) assertThat(client.read()).as("reply %d", i).isEqualTo("v");
            writer.join();
        }
        assertThat(backend.calls() - callsBefore).isEqualTo(commands);
    }
}
