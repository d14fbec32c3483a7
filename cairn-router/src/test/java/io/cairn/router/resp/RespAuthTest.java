package io.cairn.router.resp;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** requirepass, AUTH and HELLO AUTH over real sockets, with Redis 7's replies (issue 26). */
class RespAuthTest {
    private static final String PASSWORD = "s3cret pass";
    private TestServer server;

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    private TestServer start(RespAuth auth) {
        server = new TestServer(new InMemoryKvBackend(), RespConfig.builder(), auth);
        return server;
    }

    @Test
    void withoutAPasswordEveryoneIsTheDefaultUserAndAuthAnswersAsRedisDoes() {
        start(RespAuth.open());
        try (RawClient client = server.client()) {
            assertThat(client.call("SET", "k", "v")).isEqualTo("OK");
            assertThat(client.call("AUTH", "anything")).isEqualTo(new RawClient.Err("ERR AUTH <password> called without any "
                    + "password configured for the default user. Are you sure your configuration is correct?"));
            assertThat(client.call("AUTH", "default", "anything")).isEqualTo("OK"); // the default user is nopass
            assertThat(client.call("AUTH", "alice", "x")).isEqualTo(new RawClient.Err(AuthCommands.WRONGPASS));
            assertThat(client.call("AUTH", "a", "b", "c")).isEqualTo(new RawClient.Err("ERR syntax error"));
        }
    }

    @Test
    void withAPasswordOnlyAuthHelloAndQuitRunBeforeAuthenticating() {
        start(RespAuth.withPassword(PASSWORD));
        try (RawClient client = server.client()) {
            for (List<String> command : List.of(List.of("PING"), List.of("GET", "k"), List.of("SET", "k", "v"),
                    List.of("CONFIG", "GET", "*"), List.of("CLIENT", "LIST"), List.of("COMMAND"), List.of("INFO"))) {
                assertThat(client.call(command.toArray(String[]::new))).as(command.toString())
                        .isEqualTo(new RawClient.Err("NOAUTH Authentication required."));
            }
            // Redis checks the command and its arity before authentication.
            assertThat(client.call("NOSUCH")).isEqualTo(new RawClient.Err("ERR unknown command 'NOSUCH', with args beginning with: "));
            assertThat(client.call("GET")).isEqualTo(new RawClient.Err("ERR wrong number of arguments for 'get' command"));
            assertThat(client.call("HELLO", "2")).isEqualTo(new RawClient.Err(AuthCommands.HELLO_NOAUTH));
            assertThat(client.call("AUTH", "wrong")).isEqualTo(new RawClient.Err(AuthCommands.WRONGPASS));
            assertThat(client.call("AUTH", "nobody", PASSWORD)).isEqualTo(new RawClient.Err(AuthCommands.WRONGPASS));
            assertThat(client.call("GET", "k")).isEqualTo(new RawClient.Err("NOAUTH Authentication required."));
            assertThat(client.call("AUTH", PASSWORD)).isEqualTo("OK");
            assertThat(client.call("SET", "k", "v")).isEqualTo("OK");
            assertThat(client.call("GET", "k")).isEqualTo("v");
            assertThat((String) client.call("CLIENT", "INFO")).contains(" user=default ");
            // A failed AUTH afterwards leaves the connection authenticated, as in Redis.
            assertThat(client.call("AUTH", "wrong")).isEqualTo(new RawClient.Err(AuthCommands.WRONGPASS));
            assertThat(client.call("GET", "k")).isEqualTo("v");
            assertThat(client.call("QUIT")).isEqualTo("OK");
        }
        assertThat(server.server.auth().failures()).isEqualTo(3);
    }

    @Test
    @SuppressWarnings("unchecked")
    void helloAuthAuthenticatesAndSetsTheNameAndHello3IsRefusedBeforeAuth() {
        start(RespAuth.withPassword(PASSWORD));
        try (RawClient client = server.client()) {
            assertThat(client.call("HELLO", "3", "AUTH", "default", PASSWORD))
                    .isEqualTo(new RawClient.Err("NOPROTO unsupported protocol version"));
            assertThat(client.call("PING")).isEqualTo(new RawClient.Err("NOAUTH Authentication required."));
            assertThat(client.call("HELLO", "2", "AUTH", "default", "wrong")).isEqualTo(new RawClient.Err(AuthCommands.WRONGPASS));
            assertThat(client.call("HELLO", "2", "AUTH", "default")).isEqualTo(new RawClient.Err("ERR Syntax error in HELLO option 'AUTH'"));
            List<Object> hello = (List<Object>) client.call("HELLO", "2", "AUTH", "default", PASSWORD, "SETNAME", "app-1");
            assertThat(hello).containsSubsequence("server", "redis", "proto", 2L);
            assertThat(client.call("CLIENT", "GETNAME")).isEqualTo("app-1");
            assertThat(client.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void jedisAndLettuceConnectWithThePasswordAndFailClearlyWithoutIt() {
        start(RespAuth.withPassword(PASSWORD));
        HostAndPort address = new HostAndPort("127.0.0.1", server.port());
        try (Jedis jedis = new Jedis(address, DefaultJedisClientConfig.builder().password(PASSWORD).build())) {
            assertThat(jedis.set("j", "1")).isEqualTo("OK");
        }
        try (Jedis jedis = new Jedis(address, DefaultJedisClientConfig.builder().user("default").password(PASSWORD).build())) {
            assertThat(jedis.get("j")).isEqualTo("1");
        }
        try (Jedis anonymous = new Jedis(address)) {
            assertThatThrownBy(() -> anonymous.get("j")).isInstanceOf(JedisDataException.class)
                    .hasMessage("NOAUTH Authentication required.");
        }
        RedisClient lettuce = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(server.port())
                .withPassword(PASSWORD.toCharArray()).build());
        try (StatefulRedisConnection<String, String> connection = lettuce.connect()) {
            // Lettuce sends HELLO 3 AUTH, gets NOPROTO, and falls back to AUTH over RESP2.
            assertThat(connection.sync().get("j")).isEqualTo("1");
        }
        RedisClient wrong = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(server.port())
                .withPassword("nope".toCharArray()).build());
        try {
            assertThatThrownBy(wrong::connect).isInstanceOf(RedisConnectionException.class)
                    .rootCause().isInstanceOf(RedisCommandExecutionException.class).hasMessageContaining("WRONGPASS");
        } finally {
            wrong.shutdown(0, 1, TimeUnit.SECONDS);
            lettuce.shutdown(0, 1, TimeUnit.SECONDS);
        }
    }

    @Test
    void anAddressThatFailsTooOftenIsRefusedEvenWithTheRightPasswordUntilItsWindowEnds() {
        long[] now = {0};
        start(RespAuth.withPassword(PASSWORD, 3, Duration.ofSeconds(30), () -> now[0]));
        try (RawClient client = server.client(); RawClient other = server.client()) {
            for (int i = 0; i < 3; i++) assertThat(client.call("AUTH", "guess" + i)).isEqualTo(new RawClient.Err(AuthCommands.WRONGPASS));
            RawClient.Err limited = new RawClient.Err("ERR too many failed AUTH attempts from 127.0.0.1; retry in 30 s");
            assertThat(client.call("AUTH", PASSWORD)).isEqualTo(limited);
            // The limit is per address, not per connection.
            assertThat(other.call("HELLO", "2", "AUTH", "default", PASSWORD)).isEqualTo(limited);
            assertThat(other.call("GET", "k")).isEqualTo(new RawClient.Err("NOAUTH Authentication required."));
            now[0] += Duration.ofSeconds(30).toNanos();
            assertThat(client.call("AUTH", PASSWORD)).isEqualTo("OK");
            assertThat(client.call("GET", "k")).isNull();
        }
        assertThat(server.server.auth().failures()).isEqualTo(3);
        assertThat(server.server.auth().refusedByLimit()).isEqualTo(2);
    }

    @Test
    void changingThePasswordAppliesToNewConnectionsAndKeepsAuthenticatedOnes() {
        RespAuth auth = start(RespAuth.open()).server.auth();
        try (RawClient before = server.client()) {
            assertThat(before.call("PING")).isEqualTo("PONG");
            auth.requirePass("new-pass");
            assertThat(before.call("PING")).isEqualTo("PONG");
            try (RawClient after = server.client()) {
                assertThat(after.call("PING")).isEqualTo(new RawClient.Err("NOAUTH Authentication required."));
                assertThat(after.call("AUTH", "new-pass")).isEqualTo("OK");
            }
            auth.requirePass(null);
            try (RawClient open = server.client()) {
                assertThat(open.call("PING")).isEqualTo("PONG");
            }
        }
    }
}
