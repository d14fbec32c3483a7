package io.cairn.router.resp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConnectionLifecycleTest {
    private TestServer server;

    @BeforeEach
    void start() {
        server = new TestServer(new InMemoryKvBackend());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void quitRepliesOkThenClosesAndIgnoresLaterCommands() {
        try (RawClient client = server.client()) {
            client.send(new String(RawClient.encode("QUIT")) + new String(RawClient.encode("SET", "after", "quit")));
            assertThat(client.read()).isEqualTo("OK");
            assertThat(client.closedByServer()).isTrue();
        }
        try (RawClient other = server.client()) {
            assertThat(other.call("EXISTS", "after")).isEqualTo(0L);
        }
    }

    @Test
    void emptyRequestsAreIgnoredLikeRedisDoes() {
        try (RawClient client = server.client()) {
            client.send("*0\r\n*-1\r\n\r\n");
            assertThat(client.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void clientListShowsEveryOpenConnection() {
        try (RawClient first = server.client(); RawClient second = server.client()) {
            long firstId = (Long) first.call("CLIENT", "ID");
            long secondId = (Long) second.call("CLIENT", "ID");
            assertThat(secondId).isNotEqualTo(firstId);
            String list = (String) first.call("CLIENT", "LIST");
            assertThat(list).contains("id=" + firstId + " ").contains("id=" + secondId + " ");
            assertThat((String) first.call("INFO", "clients")).contains("connected_clients:2");
        }
    }

    @Test
    void serverCloseDisconnectsClientsAndFreesThePort() {
        RawClient client = server.client();
        assertThat(client.call("PING")).isEqualTo("PONG");
        int port = server.port();
        server.close();
        assertThat(client.closedByServer()).isTrue();
        client.close();
        RespServer again = new RespServer(new InMemoryKvBackend(),
                RespConfig.builder().host("127.0.0.1").port(port).build()).start();
        try (RawClient reconnected = new RawClient(again.port())) {
            assertThat(reconnected.call("PING")).isEqualTo("PONG");
        } finally {
            again.close();
        }
    }

    @Test
    void startingOnAPortInUseFailsClearly() {
        RespServer clash = new RespServer(new InMemoryKvBackend(),
                RespConfig.builder().host("127.0.0.1").port(server.port()).build());
        assertThatThrownBy(clash::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot bind RESP server to 127.0.0.1:" + server.port());
        clash.close();
    }

    @Test
    void helloWithoutArgumentsDescribesTheServer() {
        try (RawClient client = server.client()) {
            @SuppressWarnings("unchecked")
            List<Object> hello = (List<Object>) client.call("HELLO");
            assertThat(hello).containsSubsequence("server", "redis", "proto", 2L, "mode", "standalone",
                    "role", "master", "modules", List.of());
        }
    }
}
