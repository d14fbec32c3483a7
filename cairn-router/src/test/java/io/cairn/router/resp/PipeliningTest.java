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
import java.util.concurrent.atomic.AtomicLong;

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
        try (Jedis jedis = new Jedis("127.0.0.1", server.port())) {
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

    @Test
    void readingPausesWhileTooManyCommandsAreInFlightAndResumesAfterwards() {
        server = new TestServer(backend, RespConfig.builder().maxInFlightPerConnection(16));
        int commands = 50_000;
        try (RawClient seed = server.client()) {
            assertThat(seed.call("SET", "k", "v")).isEqualTo("OK");
        }
        long callsBefore = backend.calls();
        backend.hold();
        try (RawClient client = server.client()) {
            ByteArrayOutputStream chunk = new ByteArrayOutputStream();
            for (int i = 0; i < 500; i++) chunk.writeBytes(RawClient.encode("GET", "k"));
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < commands / 500; i++) client.send(chunk.toByteArray());
            });
            // Reading stops: the count of commands reaching the backend settles far below the total.
            // One read buffer (64 KiB, ~2,600 of these commands) may still be decoded after the pause.
            AtomicLong previous = new AtomicLong(-1);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                    .until(() -> backend.calls() == previous.getAndSet(backend.calls()));
            assertThat(backend.calls() - callsBefore).isBetween(16L, 5_000L);
            backend.release();
            for (int i = 0; i < commands; i++) assertThat(client.read()).as("reply %d", i).isEqualTo("v");
            writer.join();
        }
        assertThat(backend.calls() - callsBefore).isEqualTo(commands);
    }
}
