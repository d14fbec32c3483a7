package io.cairn.router.resp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 28: what well-formed traffic may hold. Real sockets on loopback; clients that do not read
 * are raw sockets whose writer runs on its own thread (it blocks once the server stops reading) and
 * ends when the test closes the socket.
 */
class ClientLimitsTest {
    private static final int VALUE_BYTES = 100_000;
    private static final int HIGH_WATER = 256 << 10;
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final ScriptedBackend backend = new ScriptedBackend(new InMemoryKvBackend(64, 1 << 20));
    private final List<RawClient> opened = new ArrayList<>();
    private TestServer server;

    @AfterEach
    void stop() {
        opened.forEach(RawClient::close);
        if (server != null) server.close();
        backend.close();
    }

    private void start(RespConfig.Builder config) {
        server = new TestServer(backend, config.maxValueBytes(256 << 10).outputHighWaterBytes(HIGH_WATER));
        try (RawClient seed = server.client()) {
            assertThat(seed.call("SET", "big", "x".repeat(VALUE_BYTES))).isEqualTo("OK");
        }
        await("the seeding client's place is free").atMost(PATIENCE).until(() -> metrics().connectedClients() == 0);
    }

    private ClientMetrics metrics() {
        return server.server.clientMetrics();
    }

    /** A client that pipelines {@code gets} GETs of the 100 KB value and never reads a reply. */
    private RawClient nonReader(int gets) {
        RawClient client = server.client();
        opened.add(client);
        ByteArrayOutputStream chunk = new ByteArrayOutputStream();
        for (int i = 0; i < 1_000; i++) chunk.writeBytes(RawClient.encode("GET", "big"));
        byte[] bytes = chunk.toByteArray();
        background("non-reader", () -> {
            try {
                for (int i = 0; i < gets / 1_000; i++) client.send(bytes);
            } catch (RuntimeException closed) {
                // the server closed it, or the test did
            }
        });
        return client;
    }

    /**
     * Runs a sender on a thread of its own, not the common pool: a send blocks once the server stops
     * reading, and the common pool (one thread on two cores) may be taken, so the bytes would never go.
     */
    private static CompletableFuture<Void> background(String name, Runnable send) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                send.run();
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return done;
    }

    /** Round trips of another client meanwhile: every GET answered in full; returns the slowest, in ms. */
    private long slowestRoundTripMs(int rounds) {
        long slowest = 0;
        try (RawClient other = server.client()) {
            for (int i = 0; i < rounds; i++) {
                long start = System.nanoTime();
                assertThat(other.call("PING")).isEqualTo("PONG");
                assertThat((String) other.call("GET", "big")).hasSize(VALUE_BYTES);
                slowest = Math.max(slowest, (System.nanoTime() - start) / 1_000_000);
            }
        }
        return slowest;
    }

    @Test
    void clientThatDoesNotReadIsThrottledAtTheHighWaterMarkWhileOthersAreServed() {
        start(RespConfig.builder().outputBufferLimit(0, 0, Duration.ZERO));
        long callsBefore = backend.calls();
        nonReader(50_000);
        await("the non-reading client's replies reach the high-water mark").atMost(PATIENCE)
                .until(() -> metrics().outputBufferBytes() >= HIGH_WATER);
        // Reading has stopped: the GETs that reached the backend stay put (five looks 200 ms apart).
        AtomicLong last = new AtomicLong(-1);
        AtomicLong unchanged = new AtomicLong();
        await("reading paused").atMost(PATIENCE).pollInterval(Duration.ofMillis(200)).until(() -> {
            long now = backend.calls();
            if (last.getAndSet(now) != now) unchanged.set(0);
            return unchanged.incrementAndGet() >= 5;
        });
        long started = backend.calls() - callsBefore;
        System.out.printf("throttled: %d of 50000 GETs started, client buffers %d bytes%n", started, metrics().bufferBytes());
        assertThat(started).as("GETs started for a client that reads nothing").isLessThan(1_000);
        // What one connection holds: about the high-water mark (one reply may pass it) and the rest of its last read.
        assertThat(metrics().outputBufferBytes()).isLessThanOrEqualTo(HIGH_WATER + VALUE_BYTES + 1_024);
        // The commands of the last read wait unstarted: a 64 KiB read holds ~2,600 of these GETs.
        assertThat(metrics().queryBufferBytes()).isLessThanOrEqualTo(512 << 10);
        long slowest = slowestRoundTripMs(20);
        System.out.printf("another client meanwhile: slowest PING + GET of 100 KB %d ms%n", slowest);
        assertThat(slowest).as("another client's round trip (ms)").isLessThan(5_000);
        await("only the non-reader left").atMost(PATIENCE).until(() -> metrics().connectedClients() == 1);
    }

    @Test
    void clientThatDoesNotReadIsClosedAtTheSoftLimitAndAnotherClientIsUnaffected() {
        start(RespConfig.builder().outputBufferLimit(4 << 20, HIGH_WATER, Duration.ofSeconds(1)));
        RawClient stuck = nonReader(50_000);
        await("closed by the soft limit").atMost(PATIENCE).until(() -> metrics().disconnected(ClientLimit.OUTPUT_SOFT) == 1);
        assertThat(stuck.readsToEndOfStream()).isTrue();
        assertThat(slowestRoundTripMs(5)).isLessThan(5_000);
        assertThat(metrics().disconnected(ClientLimit.OUTPUT_HARD)).isZero();
        await().atMost(PATIENCE).until(() -> metrics().connectedClients() == 0);
        assertThat(metrics().bufferBytes()).isZero();
    }

    /**
     * Replies held by the backend and then released together pile up past the hard limit at once
     * (a new connection may have 8 commands in flight before it has replied once: 8 x 100 KB).
     */
    @Test
    void repliesPilingUpPastTheHardLimitCloseTheConnectionAtOnce() {
        start(RespConfig.builder().outputBufferLimit(512 << 10, 0, Duration.ZERO));
        long callsBefore = backend.calls();
        backend.hold();
        RawClient stuck = nonReader(10_000);
        await("GETs in flight").atMost(PATIENCE).until(() -> backend.calls() - callsBefore >= RespConnectionHandler.INITIAL_WINDOW_COMMANDS);
        backend.release();
        await("closed by the hard limit").atMost(PATIENCE).until(() -> metrics().disconnected(ClientLimit.OUTPUT_HARD) == 1);
        assertThat(stuck.readsToEndOfStream()).isTrue();
        assertThat(slowestRoundTripMs(5)).isLessThan(5_000);
    }

    @Test
    void clientPipeliningLargeRepliesAndReadingThemGetsEveryOneInOrder() {
        start(RespConfig.builder());
        int gets = 2_000;
        try (RawClient client = server.client()) {
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            for (int i = 0; i < gets; i++) {
                batch.writeBytes(RawClient.encode("ECHO", "e" + i));
                batch.writeBytes(RawClient.encode("GET", "big"));
            }
            CompletableFuture<Void> writer = background("pipelining writer", () -> client.send(batch.toByteArray()));
            for (int i = 0; i < gets; i++) {
                assertThat(client.read()).isEqualTo("e" + i);
                assertThat((String) client.read()).hasSize(VALUE_BYTES);
            }
            writer.join();
        }
        assertThat(metrics().disconnected(ClientLimit.OUTPUT_HARD) + metrics().disconnected(ClientLimit.OUTPUT_SOFT)).isZero();
    }

    @Test
    void maxClientsRefusesTheNextConnectionWithRedisError() {
        start(RespConfig.builder().maxClients(2));
        RawClient first = server.client();
        RawClient second = server.client();
        opened.add(first);
        opened.add(second);
        assertThat(first.call("PING")).isEqualTo("PONG");
        assertThat(second.call("PING")).isEqualTo("PONG");
        try (RawClient third = server.client()) {
            assertThat(third.read()).isEqualTo(new RawClient.Err("ERR max number of clients reached"));
            assertThat(third.closedByServer()).isTrue();
        }
        assertThat(metrics().refusedConnections()).isEqualTo(1);
        second.close();
        await("a place is free again").atMost(PATIENCE).until(() -> metrics().connectedClients() == 1);
        try (RawClient again = server.client()) {
            assertThat(again.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void requestPastTheQueryBufferLimitClosesTheConnection() {
        server = new TestServer(backend, RespConfig.builder().maxValueBytes(64 << 10).queryBufferLimitBytes(128 << 10));
        String value = "v".repeat(60_000);
        try (RawClient client = server.client()) {
            client.send("*8\r\n$4\r\nMSET\r\n"); // one pair short: the request never completes
            for (int i = 0; i < 3; i++) client.send(new String(RawClient.encode("k" + i, value)).substring(4)); // the args, no header
            await("closed by the query buffer limit").atMost(PATIENCE)
                    .until(() -> metrics().disconnected(ClientLimit.QUERY_BUFFER) == 1);
            assertThat(client.closedByServer()).isTrue();
        }
        try (RawClient other = server.client()) {
            assertThat(other.call("MSET", "a", value, "b", value)).isEqualTo("OK"); // under the limit: served
        }
    }

    @Test
    void idleClientIsClosedAfterTheTimeoutAndCountedOnce() {
        start(RespConfig.builder().idleTimeout(Duration.ofMillis(500)));
        try (RawClient client = server.client()) {
            assertThat(client.call("PING")).isEqualTo("PONG");
            await("closed for idling").atMost(PATIENCE).until(() -> metrics().disconnected(ClientLimit.IDLE_TIMEOUT) == 1);
            assertThat(client.closedByServer()).isTrue();
        }
        assertThat(metrics().disconnected(ClientLimit.IDLE_TIMEOUT)).isEqualTo(1);
    }

    @Test
    void clientWaitingForASlowReplyIsNotIdle() {
        start(RespConfig.builder().idleTimeout(Duration.ofMillis(500)));
        backend.hold();
        try (RawClient waiting = server.client(); RawClient idle = server.client()) {
            waiting.command("GET", "big");
            assertThat(idle.call("PING")).isEqualTo("PONG");
            await("the idle one closed").atMost(PATIENCE).until(() -> metrics().disconnected(ClientLimit.IDLE_TIMEOUT) == 1);
            assertThat(idle.closedByServer()).isTrue();
            backend.release();
            assertThat((String) waiting.read()).as("the waiting client got its reply").hasSize(VALUE_BYTES);
        }
    }

    @Test
    void maxMemoryClientsClosesTheClientsHoldingTheMost() {
        // a non-reader's buffer swings between the low and the high-water mark as the kernel takes bytes: two
        // may never pass two marks at once, five always hold more than two
        long limit = 2L * HIGH_WATER;
        start(RespConfig.builder().outputBufferLimit(0, 0, Duration.ZERO).maxMemoryClientsBytes(limit));
        for (int i = 0; i < 5; i++) nonReader(50_000);
        await("one closed by maxmemory-clients").atMost(PATIENCE)
                .until(() -> metrics().disconnected(ClientLimit.MAXMEMORY_CLIENTS) >= 1);
        await("the rest under the limit").atMost(PATIENCE).until(() -> metrics().bufferBytes() <= limit);
        assertThat(slowestRoundTripMs(3)).isLessThan(5_000);
    }

    @Test
    void clientListShowsEachClientsBuffersAndInfoCountsTheLimits() {
        start(RespConfig.builder().outputBufferLimit(0, 0, Duration.ZERO));
        nonReader(50_000);
        try (RawClient observer = server.client()) {
            // at least a whole reply queued; not the high-water mark, which a non-reader's buffer may stop
            // just under when the replies it started were smaller than their estimate (CI saw it stay there)
            await("the non-reader's omem in CLIENT LIST").atMost(PATIENCE).until(() -> {
                String list = (String) observer.call("CLIENT", "LIST");
                return list.lines().anyMatch(l -> omem(l) >= VALUE_BYTES);
            });
            String mine = (String) observer.call("CLIENT", "INFO");
            assertThat(mine).contains(" qbuf=0 omem=0 tot-mem=0 ");
            String info = (String) observer.call("INFO", "clients", "stats", "memory");
            assertThat(info).contains("connected_clients:2", "maxclients:10000", "rejected_connections:0",
                    "client_output_buffer_limit_disconnections:0", "mem_clients_normal:");
        }
    }

    private static long omem(String line) {
        for (String field : line.split(" ")) if (field.startsWith("omem=")) return Long.parseLong(field.substring(5));
        return -1;
    }
}
