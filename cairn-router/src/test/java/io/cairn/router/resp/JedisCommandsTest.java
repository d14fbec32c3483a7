package io.cairn.router.resp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Every supported command through Jedis, against the in-memory backend. */
class JedisCommandsTest {
    private TestServer server;
    private Jedis jedis;

    @BeforeEach
    void start() {
        server = new TestServer(new InMemoryKvBackend());
        jedis = new Jedis("127.0.0.1", server.port());
    }

    @AfterEach
    void stop() {
        jedis.close();
        server.close();
    }

    @Test
    void pingEchoAndSelectAnswerLikeRedis() {
        assertThat(jedis.ping()).isEqualTo("PONG");
        assertThat(jedis.ping("hello")).isEqualTo("hello");
        assertThat(jedis.echo("echoed")).isEqualTo("echoed");
        assertThat(jedis.select(0)).isEqualTo("OK");
        assertThatThrownBy(() -> jedis.select(1)).hasMessage("ERR DB index is out of range");
    }

    @Test
    void getReturnsWhatSetStoredAndNilForMissingKeys() {
        assertThat(jedis.set("k", "v")).isEqualTo("OK");
        assertThat(jedis.get("k")).isEqualTo("v");
        assertThat(jedis.get("missing")).isNull();
        assertThat(jedis.set("k", "")).isEqualTo("OK");
        assertThat(jedis.get("k")).isEmpty();
    }

    @Test
    void setexAndPsetexStoreWithATimeToLiveAndRefuseNonPositiveTimes() {
        long before = clock();
        assertThat(jedis.setex("s", 100, "v")).isEqualTo("OK");
        assertThat(jedis.psetex("p", 50_000, "v")).isEqualTo("OK");
        assertTtl(jedis.ttl("s"), 100_000, before);
        assertPttl(jedis.pttl("p"), 50_000, before);
        assertThatThrownBy(() -> jedis.setex("s", 0, "v")).hasMessage("ERR invalid expire time in 'setex' command");
        assertThat(jedis.get("s")).isEqualTo("v");
    }

    @Test
    void binaryKeysAndValuesRoundTrip() {
        byte[] key = {0, 1, (byte) 0xff, '\r', '\n'};
        byte[] value = {(byte) 0x80, 0, '\r', '\n', '$'};
        jedis.set(key, value);
        assertThat(jedis.get(key)).isEqualTo(value);
    }

    @Test
    void setNxAndXxWriteOnlyWhenTheConditionHolds() {
        assertThat(jedis.set("k", "1", SetParams.setParams().xx())).isNull();
        assertThat(jedis.set("k", "1", SetParams.setParams().nx())).isEqualTo("OK");
        assertThat(jedis.set("k", "2", SetParams.setParams().nx())).isNull();
        assertThat(jedis.set("k", "3", SetParams.setParams().xx())).isEqualTo("OK");
        assertThat(jedis.get("k")).isEqualTo("3");
    }

    @Test
    void setGetReturnsThePreviousValue() {
        assertThat(jedis.setGet("k", "1")).isNull();
        assertThat(jedis.setGet("k", "2")).isEqualTo("1");
        assertThat(jedis.get("k")).isEqualTo("2");
    }

    @Test
    void setWithExAndPxSetsTimeToLive() {
        long before = clock();
        jedis.set("ex", "v", SetParams.setParams().ex(100));
        jedis.set("px", "v", SetParams.setParams().px(90_000));
        assertTtl(jedis.ttl("ex"), 100_000, before);
        assertPttl(jedis.pttl("px"), 90_000, before);
        jedis.set("ex", "again");
        assertThat(jedis.ttl("ex")).isEqualTo(-1);
    }

    @Test
    void setWithExatAndPxatUsesAbsoluteTimes() {
        long now = clock();
        long exAtSeconds = now / 1000 + 100;
        jedis.set("exat", "v", SetParams.setParams().exAt(exAtSeconds));
        jedis.set("pxat", "v", SetParams.setParams().pxAt(now + 50_000));
        long pttlExat = jedis.pttl("exat");
        long ttlExat = jedis.ttl("exat");
        long pttlPxat = jedis.pttl("pxat");
        long after = clock();
        // An absolute expiry: what remains is that instant less the time of the read, somewhere in [now, after].
        assertThat(pttlExat).as("PTTL of EXAT").isBetween(exAtSeconds * 1000 - after, exAtSeconds * 1000 - now);
        assertThat(ttlExat).as("TTL of EXAT").isBetween(roundedToSeconds(exAtSeconds * 1000 - after), roundedToSeconds(exAtSeconds * 1000 - now));
        assertThat(pttlPxat).as("PTTL of PXAT").isBetween(now + 50_000 - after, 50_000L);
        jedis.set("past", "v", SetParams.setParams().pxAt(now - 1_000));
        assertThat(jedis.exists("past")).isFalse();
    }

    @Test
    void setKeepTtlPreservesTheExpiry() {
        long before = clock();
        jedis.set("k", "v", SetParams.setParams().ex(100));
        jedis.set("k", "w", SetParams.setParams().keepTtl());
        assertThat(jedis.get("k")).isEqualTo("w");
        assertTtl(jedis.ttl("k"), 100_000, before);
    }

    @Test
    void keysExpireOnTime() {
        jedis.set("short", "v", SetParams.setParams().px(50));
        jedis.set("long", "v", SetParams.setParams().ex(1000));
        await().atMost(Duration.ofSeconds(30)).until(() -> jedis.get("short") == null);
        assertThat(jedis.ttl("short")).isEqualTo(-2);
        assertThat(jedis.get("long")).isEqualTo("v");
    }

    @Test
    void setRejectsContradictoryOrInvalidOptionsWithRedisErrors() {
        assertError("ERR syntax error", "SET", "k", "v", "NX", "XX");
        assertError("ERR syntax error", "SET", "k", "v", "EX", "10", "PX", "10");
        assertError("ERR syntax error", "SET", "k", "v", "EX", "10", "KEEPTTL");
        assertError("ERR syntax error", "SET", "k", "v", "EX");
        assertError("ERR syntax error", "SET", "k", "v", "BOGUS");
        assertError("ERR invalid expire time in 'set' command", "SET", "k", "v", "EX", "0");
        assertError("ERR invalid expire time in 'set' command", "SET", "k", "v", "PX", "-5");
        assertError("ERR invalid expire time in 'set' command", "SET", "k", "v", "EX", "9223372036854775");
        assertError("ERR value is not an integer or out of range", "SET", "k", "v", "EX", "ten");
        assertThat(jedis.exists("k")).isFalse();
    }

    @Test
    void setNxGetSetAndGetDelBehaveLikeRedis() {
        assertThat(jedis.setnx("k", "1")).isEqualTo(1);
        assertThat(jedis.setnx("k", "2")).isEqualTo(0);
        assertThat(jedis.getSet("k", "3")).isEqualTo("1");
        assertThat(jedis.getDel("k")).isEqualTo("3");
        assertThat(jedis.getDel("k")).isNull();
        assertThat(jedis.exists("k")).isFalse();
    }

    @Test
    void delUnlinkAndExistsCountKeysIncludingDuplicates() {
        jedis.mset("a", "1", "b", "2", "c", "3");
        assertThat(jedis.exists("a", "a", "b", "missing")).isEqualTo(3);
        assertThat(jedis.del("a", "missing")).isEqualTo(1);
        assertThat(jedis.unlink("b", "c", "c")).isEqualTo(2);
        assertThat(jedis.exists("a", "b", "c")).isZero();
    }

    @Test
    void msetAndMgetCoverManyKeysAcrossBuckets() {
        List<String> keyValues = new ArrayList<>();
        String[] keys = new String[500];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "key:" + i;
            keyValues.add(keys[i]);
            keyValues.add("value:" + i);
        }
        assertThat(jedis.mset(keyValues.toArray(String[]::new))).isEqualTo("OK");
        List<String> values = jedis.mget(keys);
        for (int i = 0; i < keys.length; i++) assertThat(values.get(i)).isEqualTo("value:" + i);
        assertThat(jedis.mget("key:1", "nope", "key:2")).containsExactly("value:1", null, "value:2");
        assertThat(jedis.dbSize()).isEqualTo(500);
    }

    @Test
    void msetWithAnOddNumberOfArgumentsIsAnArityError() {
        assertError("ERR wrong number of arguments for 'mset' command", "MSET", "a", "1", "b");
    }

    @Test
    void incrementsAndDecrementsWorkOnIntegerStrings() {
        assertThat(jedis.incr("n")).isEqualTo(1);
        assertThat(jedis.incrBy("n", 41)).isEqualTo(42);
        assertThat(jedis.decr("n")).isEqualTo(41);
        assertThat(jedis.decrBy("n", 50)).isEqualTo(-9);
        assertThat(jedis.get("n")).isEqualTo("-9");
    }

    @Test
    void incrementsRejectNonIntegersAndOverflow() {
        jedis.set("text", "abc");
        assertThatThrownBy(() -> jedis.incr("text")).hasMessage("ERR value is not an integer or out of range");
        assertError("ERR value is not an integer or out of range", "INCRBY", "n", "1.5");
        jedis.set("max", Long.toString(Long.MAX_VALUE));
        assertThatThrownBy(() -> jedis.incr("max")).hasMessage("ERR increment or decrement would overflow");
        assertError("ERR decrement would overflow", "DECRBY", "n", Long.toString(Long.MIN_VALUE));
        assertThat(jedis.get("text")).isEqualTo("abc");
    }

    @Test
    void appendAndStrlenMeasureTheValue() {
        assertThat(jedis.append("s", "hello")).isEqualTo(5);
        assertThat(jedis.append("s", " world")).isEqualTo(11);
        assertThat(jedis.strlen("s")).isEqualTo(11);
        assertThat(jedis.strlen("missing")).isZero();
        assertThat(jedis.get("s")).isEqualTo("hello world");
    }

    @Test
    void expireTtlPttlAndPersistFollowRedis() {
        assertThat(jedis.expire("missing", 10)).isZero();
        assertThat(jedis.ttl("missing")).isEqualTo(-2);
        jedis.set("k", "v");
        assertThat(jedis.ttl("k")).isEqualTo(-1);
        long before = clock();
        assertThat(jedis.expire("k", 100)).isEqualTo(1);
        assertTtl(jedis.ttl("k"), 100_000, before);
        before = clock();
        assertThat(jedis.pexpire("k", 50_700)).isEqualTo(1);
        assertPttl(jedis.pttl("k"), 50_700, before);
        assertTtl(jedis.ttl("k"), 50_700, before); // rounded: 51 while over 50.5 s remain
        assertThat(jedis.persist("k")).isEqualTo(1);
        assertThat(jedis.persist("k")).isZero();
        assertThat(jedis.pttl("k")).isEqualTo(-1);
    }

    @Test
    void expireWithANonPositiveTimeDeletesTheKey() {
        jedis.set("k", "v");
        assertThat(jedis.expire("k", -1)).isEqualTo(1);
        assertThat(jedis.exists("k")).isFalse();
    }

    @Test
    void expireRejectsNonIntegersAndOverflow() {
        jedis.set("k", "v");
        assertError("ERR value is not an integer or out of range", "EXPIRE", "k", "soon");
        assertError("ERR invalid expire time in 'expire' command", "EXPIRE", "k", "9223372036854775807");
        assertError("ERR Unsupported option SOON", "EXPIRE", "k", "10", "SOON");
        assertError("ERR NX and XX, GT or LT options at the same time are not compatible", "EXPIRE", "k", "10", "NX", "GT");
        assertError("ERR GT and LT options at the same time are not compatible", "EXPIRE", "k", "10", "gt", "lt");
        assertThat(jedis.ttl("k")).isEqualTo(-1);
    }

    @Test
    void expireOptionsSetTheTtlOnlyWhenTheirConditionHolds() {
        jedis.set("k", "v");
        assertThat(expire("k", 100, "XX")).as("XX without a ttl").isZero();
        assertThat(expire("k", 100, "GT")).as("GT: no ttl counts as forever").isZero();
        assertThat(expire("k", 100, "NX")).isEqualTo(1);
        assertThat(expire("k", 200, "NX")).as("NX with a ttl").isZero();
        assertThat(expire("k", 50, "GT")).isZero();
        assertThat(expire("k", 300, "GT")).isEqualTo(1);
        assertThat(expire("k", 400, "LT")).isZero();
        assertThat(expire("k", 150, "xx", "lt")).isEqualTo(1);
        assertThat(jedis.ttl("k")).isBetween(140L, 150L);
        assertThat(expire("missing", 100, "NX")).isZero();
        jedis.set("p", "v");
        assertThat(expire("p", 100, "LT")).as("LT: no ttl counts as forever").isEqualTo(1);
    }

    private long expire(String key, long seconds, String... options) {
        String[] args = new String[2 + options.length];
        args[0] = key;
        args[1] = Long.toString(seconds);
        System.arraycopy(options, 0, args, 2, options.length);
        return (Long) jedis.sendCommand(Protocol.Command.EXPIRE, args);
    }

    @Test
    void commandNamesAreCaseInsensitive() {
        assertThat(jedis.sendCommand(() -> "sEt".getBytes(), "k", "v")).isEqualTo("OK".getBytes());
        assertThat(new String((byte[]) jedis.sendCommand(() -> "get".getBytes(), "k"))).isEqualTo("v");
    }

    @Test
    void unknownCommandsAndWrongArityGetRedisErrors() {
        assertError("ERR unknown command 'FOO', with args beginning with: 'a' 'b' ", "FOO", "a", "b");
        assertError("ERR unknown command 'BAR', with args beginning with: ", "BAR");
        assertError("ERR wrong number of arguments for 'get' command", "GET");
        assertError("ERR wrong number of arguments for 'get' command", "GET", "a", "b");
        assertError("ERR wrong number of arguments for 'ping' command", "PING", "a", "b");
        assertThat(jedis.ping()).isEqualTo("PONG");
    }

    @Test
    void clientCommandsTrackNameAndId() {
        assertThat(jedis.clientGetname()).isNull();
        assertThat(jedis.clientSetname("worker-1")).isEqualTo("OK");
        assertThat(jedis.clientGetname()).isEqualTo("worker-1");
        long id = jedis.clientId();
        assertThat(id).isPositive();
        assertThat(jedis.clientInfo()).contains("id=" + id).contains("name=worker-1");
        assertThat(jedis.clientList()).contains("id=" + id);
        assertThatThrownBy(() -> jedis.clientSetname("has space"))
                .hasMessage("ERR Client names cannot contain spaces, newlines or special characters.");
        assertError("ERR unknown subcommand 'BOGUS'. Try CLIENT HELP.", "CLIENT", "BOGUS");
        assertError("ERR wrong number of arguments for 'client|setname' command", "CLIENT", "SETNAME");
    }

    @Test
    void helloAnswersForResp2AndRefusesResp3() {
        @SuppressWarnings("unchecked")
        List<Object> reply = (List<Object>) jedis.sendCommand(Protocol.Command.HELLO, "2");
        assertThat(new String((byte[]) reply.get(0))).isEqualTo("server");
        assertThat(reply).hasSize(14).contains(2L);
        assertError("NOPROTO unsupported protocol version", "HELLO", "3");
        assertError("ERR Protocol version is not an integer or out of range", "HELLO", "two");
        jedis.sendCommand(Protocol.Command.HELLO, "2", "SETNAME", "via-hello");
        assertThat(jedis.clientGetname()).isEqualTo("via-hello");
    }

    @Test
    void configGetAnswersPairsForPatterns() {
        assertThat(jedis.configGet("save")).isEqualTo(Map.of("save", ""));
        assertThat(jedis.configGet("appendonly")).isEqualTo(Map.of("appendonly", "no"));
        assertThat(jedis.configGet("*")).containsKeys("save", "appendonly", "databases", "port");
        assertThat(jedis.configGet("max*")).containsOnlyKeys("maxmemory", "maxmemory-policy", "maxclients", "maxmemory-clients");
        assertThat(jedis.configGet("client-output-buffer-limit"))
                .isEqualTo(Map.of("client-output-buffer-limit", "normal 67108864 16777216 60"));
        assertThat(jedis.configGet("nothing-like-this")).isEmpty();
    }

    @Test
    void commandIntrospectionListsTheTable() {
        assertThat(jedis.commandCount()).isGreaterThan(30);
        assertThat(jedis.commandDocs("get")).isEmpty();
        @SuppressWarnings("unchecked")
        List<Object> all = (List<Object>) jedis.sendCommand(Protocol.Command.COMMAND);
        assertThat(all).hasSize((int) jedis.commandCount());
        assertThat(jedis.commandInfo("get").get("get").getArity()).isEqualTo(2);
    }

    @Test
    void infoAndDbsizeDescribeTheServer() {
        jedis.set("a", "1");
        jedis.set("b", "2");
        assertThat(jedis.dbSize()).isEqualTo(2);
        String info = jedis.info();
        assertThat(info).contains("# Server").contains("redis_version:").contains("# Cairn")
                .contains("backend:in-memory").contains("db0:keys=2");
        assertThat(jedis.info("clients")).startsWith("# Clients").contains("connected_clients:")
                .doesNotContain("# Server");
    }

    /** The backend's clock (wall-clock milliseconds), read around commands to bound what a time to live can be. */
    private static long clock() {
        return System.currentTimeMillis();
    }

    /**
     * A PTTL read after a time to live of {@code setMs} was set at or after {@code setAtMs}: at most what was
     * set, and at least that less the time since, however slow the machine (the key cannot expire meanwhile:
     * every time to live set here outlives the test by far).
     */
    private static void assertPttl(long pttlMs, long setMs, long setAtMs) {
        long sinceMs = clock() - setAtMs;
        assertThat(pttlMs).as("PTTL %d ms after setting %d ms", sinceMs, setMs).isBetween(Math.max(1, setMs - sinceMs), setMs);
    }

    /** As {@link #assertPttl} for TTL, which answers the remaining time rounded to the nearest second. */
    private static void assertTtl(long ttlSeconds, long setMs, long setAtMs) {
        long sinceMs = clock() - setAtMs;
        assertThat(ttlSeconds).as("TTL %d ms after setting %d ms", sinceMs, setMs)
                .isBetween(roundedToSeconds(Math.max(1, setMs - sinceMs)), roundedToSeconds(setMs));
    }

    private static long roundedToSeconds(long ms) {
        return (ms + 500) / 1000;
    }

    private void assertError(String expected, String command, String... args) {
        assertThatThrownBy(() -> jedis.sendCommand(() -> command.getBytes(), args))
                .isInstanceOf(JedisDataException.class)
                .hasMessage(expected);
    }
}
