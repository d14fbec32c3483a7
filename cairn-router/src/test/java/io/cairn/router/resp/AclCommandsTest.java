package io.cairn.router.resp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** ACL users, command categories and key patterns, command by command over real sockets (issue 26). */
class AclCommandsTest {
    private static final RawClient.Err NOAUTH = new RawClient.Err("NOAUTH Authentication required.");
    private static final RawClient.Err NO_KEY = new RawClient.Err("NOPERM No permissions to access a key");
    private TestServer server;
    private RawClient admin;

    @BeforeEach
    void start() {
        server = new TestServer(new InMemoryKvBackend(), RespConfig.builder(), RespAuth.withPassword("admin-pw"));
        admin = server.client();
        assertThat(admin.call("AUTH", "admin-pw")).isEqualTo("OK");
    }

    @AfterEach
    void stop() {
        admin.close();
        server.close();
    }

    private static RawClient.Err noCommand(String user, String command) {
        return new RawClient.Err("NOPERM User " + user + " has no permissions to run the '" + command + "' command");
    }

    @Test
    void aUserLimitedToAppKeysAndReadCommandsGetsNopermForWritesAndOtherKeys() {
        assertThat(admin.call("ACL", "SETUSER", "reader", "on", ">rpw", "~app:*", "+@read")).isEqualTo("OK");
        assertThat(admin.call("MSET", "app:1", "one", "other:1", "two")).isEqualTo("OK");
        try (RawClient reader = server.client()) {
            assertThat(reader.call("AUTH", "reader", "rpw")).isEqualTo("OK");
            assertThat(reader.call("ACL", "WHOAMI")).isEqualTo("reader");
            assertThat(reader.call("GET", "app:1")).isEqualTo("one");
            assertThat(reader.call("MGET", "app:1", "app:2")).isEqualTo(java.util.Arrays.asList("one", null));
            assertThat(reader.call("HGET", "app:h", "f")).isNull();
            assertThat(reader.call("EXISTS", "app:1")).isEqualTo(1L);
            assertThat(reader.call("GET", "other:1")).isEqualTo(NO_KEY);
            assertThat(reader.call("MGET", "app:1", "other:1")).as("every key is checked").isEqualTo(NO_KEY);
            assertThat(reader.call("SET", "app:1", "x")).isEqualTo(noCommand("reader", "set"));
            assertThat(reader.call("DEL", "app:1")).isEqualTo(noCommand("reader", "del"));
            assertThat(reader.call("HSET", "app:h", "f", "v")).isEqualTo(noCommand("reader", "hset"));
            assertThat(reader.call("FLUSHALL")).isEqualTo(noCommand("reader", "flushall"));
            assertThat(reader.call("CONFIG", "GET", "*")).isEqualTo(noCommand("reader", "config"));
            assertThat(reader.call("ACL", "LIST")).isEqualTo(noCommand("reader", "acl"));
            assertThat(reader.call("PING")).as("ping is @connection @fast, not @read").isEqualTo(noCommand("reader", "ping"));
        }
        assertThat(admin.call("GET", "app:1")).isEqualTo("one");
        String stats = (String) admin.call("INFO", "stats");
        assertThat(stats).contains("acl_access_denied_cmd:7", "acl_access_denied_key:2", "acl_access_denied_auth:0");
        assertThat(server.server.auth().deniedCommands()).isEqualTo(7);
        assertThat(server.server.auth().deniedKeys()).isEqualTo(2);
    }

    @Test
    void keysAfterANumkeysArgumentAreCheckedAgainstTheKeyPatterns() {
        assertThat(admin.call("ACL", "SETUSER", "zr", "on", ">zpw", "~app:*", "+@read", "+@sortedset")).isEqualTo("OK");
        assertThat(admin.call("ZADD", "app:z", "1", "m")).isEqualTo(1L);
        try (RawClient reader = server.client()) {
            assertThat(reader.call("AUTH", "zr", "zpw")).isEqualTo("OK");
            assertThat(reader.call("ZUNION", "1", "app:z")).isEqualTo(List.of("m"));
            assertThat(reader.call("ZINTERCARD", "2", "app:z", "other:z")).isEqualTo(NO_KEY);
            assertThat(reader.call("ZUNIONSTORE", "app:d", "1", "other:z")).isEqualTo(NO_KEY);
            assertThat(reader.call("ZUNIONSTORE", "other:d", "1", "app:z")).isEqualTo(NO_KEY);
            assertThat(reader.call("SINTERCARD", "1", "other:s")).isEqualTo(NO_KEY);
        }
        assertThat(admin.call("EXISTS", "app:d", "other:d")).isEqualTo(0L);
    }

    @Test
    void commandRulesApplyInOrderAndSingleCommandsOverrideCategories() {
        assertThat(admin.call("ACL", "SETUSER", "w", "on", "nopass", "allkeys", "+@all", "-@dangerous", "-del", "+flushall")).isEqualTo("OK");
        try (RawClient w = server.client()) {
            assertThat(w.call("AUTH", "w", "anything")).isEqualTo("OK");
            assertThat(w.call("SET", "k", "v")).isEqualTo("OK");
            assertThat(w.call("DEL", "k")).isEqualTo(noCommand("w", "del"));
            assertThat(w.call("KEYS", "*")).isEqualTo(noCommand("w", "keys"));
            assertThat(w.call("FLUSHALL")).isEqualTo("OK");
            assertThat(admin.call("ACL", "SETUSER", "w", "-@all", "+get")).isEqualTo("OK");
            assertThat(w.call("SET", "k", "v")).as("a change applies to open connections").isEqualTo(noCommand("w", "set"));
            assertThat(w.call("GET", "k")).isNull();
        }
    }

    @Test
    void passwordsOnOffAndDeletionDecideWhoMayLogIn() {
        assertThat(admin.call("ACL", "SETUSER", "bob", ">one", ">two", "allkeys", "allcommands")).isEqualTo("OK");
        try (RawClient bob = server.client()) {
            assertThat(bob.call("AUTH", "bob", "one")).as("a new user is off").isEqualTo(new RawClient.Err(AuthCommands.WRONGPASS));
            assertThat(admin.call("ACL", "SETUSER", "bob", "on", "<one")).isEqualTo("OK");
            assertThat(bob.call("AUTH", "bob", "one")).isEqualTo(new RawClient.Err(AuthCommands.WRONGPASS));
            assertThat(bob.call("HELLO", "2", "AUTH", "bob", "two")).isInstanceOf(List.class);
            assertThat(bob.call("SET", "b", "1")).isEqualTo("OK");
            assertThat(admin.call("ACL", "SETUSER", "bob", "off")).isEqualTo("OK");
            assertThat(bob.call("GET", "b")).as("switched off: its connections lose their rights").isEqualTo(NOAUTH);
            assertThat(admin.call("ACL", "SETUSER", "bob", "on")).isEqualTo("OK");
            assertThat(bob.call("AUTH", "bob", "two")).isEqualTo("OK");
            assertThat(admin.call("ACL", "DELUSER", "bob", "nobody")).isEqualTo(1L);
            assertThat(bob.call("GET", "b")).isEqualTo(NOAUTH);
            assertThat(bob.call("AUTH", "bob", "two")).isEqualTo(new RawClient.Err(AuthCommands.WRONGPASS));
        }
        assertThat(admin.call("ACL", "DELUSER", "default")).isEqualTo(new RawClient.Err("ERR The 'default' user cannot be removed"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void getuserListAndCatAnswerInRedisShapes() {
        assertThat(admin.call("ACL", "SETUSER", "app", "on", ">pw", "~app:*", "~cache:*", "resetchannels", "-@all", "+@read", "+set"))
                .isEqualTo("OK");
        List<Object> user = (List<Object>) admin.call("ACL", "GETUSER", "app");
        assertThat(user).containsExactly("flags", List.of("on"),
                "passwords", List.of("30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4"),
                "commands", "-@all +@read +set", "keys", "~app:* ~cache:*", "channels", "", "selectors", List.of());
        assertThat(admin.call("ACL", "GETUSER", "nobody")).isNull();
        assertThat((List<Object>) admin.call("ACL", "LIST")).containsExactly(
                "user app on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~app:* ~cache:* resetchannels -@all +@read +set",
                "user default on #" + java.util.HexFormat.of().formatHex(AclUser.sha256("admin-pw".getBytes())) + " ~* resetchannels +@all");
        assertThat((List<Object>) admin.call("ACL", "USERS")).containsExactly("app", "default");
        assertThat((List<Object>) admin.call("ACL", "CAT")).contains("read", "write", "keyspace", "string", "hash", "admin", "dangerous",
                "fast", "slow", "connection");
        assertThat((List<Object>) admin.call("ACL", "CAT", "hash")).contains("hget", "hset", "hgetall").doesNotContain("get");
        assertThat((List<Object>) admin.call("ACL", "CAT", "write")).contains("set", "del", "hset", "flushall").doesNotContain("get");
        assertThat((List<Object>) admin.call("ACL", "CAT", "dangerous")).contains("flushall", "keys", "config", "acl");
        assertThat(admin.call("ACL", "CAT", "nope")).isEqualTo(new RawClient.Err("ERR Unknown category 'nope'"));
        assertThat(admin.call("ACL", "WHOAMI")).isEqualTo("default");
    }

    @Test
    void aBadRuleIsRefusedWithRedisTextAndChangesNothing() {
        assertThat(admin.call("ACL", "SETUSER", "c", "on", ">pw", "+get")).isEqualTo("OK");
        assertThat(admin.call("ACL", "SETUSER", "c", "+set", "+@nosuch")).isEqualTo(
                new RawClient.Err("ERR Error in ACL SETUSER modifier '+@nosuch': Unknown command or category name in ACL"));
        assertThat(admin.call("ACL", "SETUSER", "c", "+nosuchcmd")).isEqualTo(
                new RawClient.Err("ERR Error in ACL SETUSER modifier '+nosuchcmd': Unknown command or category name in ACL"));
        assertThat(admin.call("ACL", "SETUSER", "c", "bogus")).isEqualTo(new RawClient.Err("ERR Error in ACL SETUSER modifier 'bogus': Syntax error"));
        assertThat(admin.call("ACL", "SETUSER", "c", "#abc")).isEqualTo(new RawClient.Err("ERR Error in ACL SETUSER modifier '#abc': "
                + "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"));
        assertThat(admin.call("ACL", "SETUSER", "bad name")).isEqualTo(new RawClient.Err(
                "ERR Usernames can't contain spaces or null characters and must be 1 to 128 characters"));
        assertThat(admin.call("ACL", "SETUSER")).isEqualTo(new RawClient.Err("ERR wrong number of arguments for 'acl|setuser' command"));
        assertThat(admin.call("ACL", "NOPE")).asString().startsWith("Err[message=ERR unknown subcommand 'NOPE'");
        assertThat(admin.call("ACL", "LIST")).asList().contains("user c on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 resetchannels -@all +get");
    }

    @Test
    void jedisAndLettuceLogInAsANamedUserAndTheDefaultUserCanBeMadeNopass() {
        assertThat(admin.call("ACL", "SETUSER", "jed", "on", ">jpw", "~j:*", "+@all")).isEqualTo("OK");
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().user("jed").password("jpw").build())) {
            assertThat(jedis.set("j:1", "v")).isEqualTo("OK");
            assertThatThrownBy(() -> jedis.set("x", "v")).isInstanceOf(JedisDataException.class)
                    .hasMessage("NOPERM No permissions to access a key");
        }
        io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create(io.lettuce.core.RedisURI.builder()
                .withHost("127.0.0.1").withPort(server.port()).withAuthentication("jed", "jpw".toCharArray()).build());
        try (var connection = lettuce.connect()) {
            // HELLO 3 AUTH jed jpw answers NOPROTO; Lettuce falls back to AUTH jed jpw over RESP2
            assertThat(connection.sync().get("j:1")).isEqualTo("v");
            assertThatThrownBy(() -> connection.sync().get("x")).hasMessage("NOPERM No permissions to access a key");
        } finally {
            lettuce.shutdown(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        }
        // With the default user nopass, new connections need no AUTH (requirepass off through ACL).
        assertThat(admin.call("ACL", "SETUSER", "default", "nopass")).isEqualTo("OK");
        assertThat(server.server.auth().required()).isFalse();
        try (RawClient anonymous = server.client()) {
            assertThat(anonymous.call("GET", "j:1")).isEqualTo("v");
        }
    }
}
