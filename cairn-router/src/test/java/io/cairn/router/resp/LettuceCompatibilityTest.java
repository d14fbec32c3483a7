package io.cairn.router.resp;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Lettuce opens with HELLO 3; the server refuses with NOPROTO and Lettuce falls back to RESP2. */
class LettuceCompatibilityTest {
    private TestServer server;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;

    @BeforeEach
    void connect() {
        server = new TestServer(new InMemoryKvBackend());
        client = RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
        connection = client.connect();
    }

    @AfterEach
    void close() {
        connection.close();
        client.shutdown(0, 1, TimeUnit.SECONDS);
        server.close();
    }

    @Test
    void connectsByFallingBackToResp2() {
        // Lettuce's default options negotiate RESP3 first: connecting at all proves the fallback.
        assertThat(connection.sync().ping()).isEqualTo("PONG");
    }

    @Test
    void setGetAndIncrWork() {
        RedisCommands<String, String> redis = connection.sync();
        assertThat(redis.set("greeting", "hello")).isEqualTo("OK");
        assertThat(redis.get("greeting")).isEqualTo("hello");
        assertThat(redis.get("absent")).isNull();
        assertThat(redis.incr("counter")).isEqualTo(1);
        assertThat(redis.incrby("counter", 9)).isEqualTo(10);
        assertThat(redis.del("greeting", "counter")).isEqualTo(2);
    }

    @Test
    void asyncCommandsAreAnsweredInOrder() throws Exception {
        RedisAsyncCommands<String, String> redis = connection.async();
        List<RedisFuture<Long>> increments = new ArrayList<>();
        for (int i = 0; i < 500; i++) increments.add(redis.incr("n"));
        for (int i = 0; i < increments.size(); i++) {
            assertThat(increments.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i + 1);
        }
    }
}
