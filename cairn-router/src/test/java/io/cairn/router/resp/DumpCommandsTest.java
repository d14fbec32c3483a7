package io.cairn.router.resp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.RestoreParams;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * DUMP and RESTORE (issue 24): every type goes through Cairn's payload and comes back whole (Jedis,
 * binary-safe); the option checks and their order are compared with redis-server, on payloads both
 * refuse; a payload redis-server made is refused by Cairn with Redis's own text.
 */
class DumpCommandsTest {
    private static final String[][] SCRIPT = {
            {"set", "k", "v"},
            {"restore", "k", "0", "garbage"}, {"restore", "k", "x", "garbage"}, {"restore", "new", "x", "garbage"},
            {"restore", "new", "-1", "garbage"}, {"restore", "new", "0", "garbage"}, {"restore", "new", "0", "garbage", "foo"},
            {"restore", "new", "0", "garbage", "idletime", "-1"}, {"restore", "new", "0", "garbage", "freq", "256"},
            {"restore", "new", "0", "garbage", "idletime", "1", "freq", "1"}, {"restore", "new", "0", "garbage", "idletime"},
            {"restore", "k", "0", "garbage", "replace", "absttl", "idletime", "10"},
            {"dump", "nokey"}, {"exists", "new"},
    };

    private TestServer cairn;

    @AfterEach
    void stop() {
        if (cairn != null) cairn.close();
    }

    @Test
    void errorsComeInRedisServersOrderWithItsTexts() throws Exception {
        assertThat(RedisServerComparison.againstInMemoryCairn(SCRIPT)).isEmpty();
    }

    @Test
    void everyTypeComesBackWholeWithTheTtlRestoreGives() {
        cairn = new TestServer(new InMemoryKvBackend());
        try (Jedis jedis = new Jedis("127.0.0.1", cairn.port())) {
            jedis.set("s", "text");
            jedis.pexpire("s", 100_000);
            jedis.hset("h", Map.of("f1", "v1", "f2", "v2"));
            jedis.rpush("l", "a", "b", "c");
            jedis.sadd("set", "x", "y");
            jedis.zadd("z", Map.of("m1", 1.5, "m2", -2.0));
            for (String key : List.of("s", "h", "l", "set", "z")) {
                byte[] payload = jedis.dump(key);
                jedis.restore(("copy-" + key).getBytes(StandardCharsets.UTF_8), 0, payload);
            }
            assertThat(jedis.get("copy-s")).isEqualTo("text");
            assertThat(jedis.pttl("copy-s")).as("DUMP carries no TTL, as in Redis").isEqualTo(-1);
            assertThat(jedis.hgetAll("copy-h")).isEqualTo(Map.of("f1", "v1", "f2", "v2"));
            assertThat(jedis.lrange("copy-l", 0, -1)).containsExactly("a", "b", "c");
            assertThat(jedis.smembers("copy-set")).containsExactlyInAnyOrder("x", "y");
            assertThat(jedis.zrangeWithScores("copy-z", 0, -1)).extracting(t -> t.getElement() + "=" + t.getScore())
                    .containsExactly("m2=-2.0", "m1=1.5");
            byte[] list = jedis.dump("l".getBytes(StandardCharsets.UTF_8));
            assertThatThrownBy(() -> jedis.restore("copy-h".getBytes(StandardCharsets.UTF_8), 0, list))
                    .isInstanceOf(JedisDataException.class).hasMessage("BUSYKEY Target key name already exists.");
            jedis.restore("copy-h".getBytes(StandardCharsets.UTF_8), 50_000, list, RestoreParams.restoreParams().replace());
            assertThat(jedis.type("copy-h")).isEqualTo("list");
            assertThat(jedis.lrange("copy-h", 0, -1)).containsExactly("a", "b", "c");
            assertThat(jedis.pttl("copy-h")).isBetween(1L, 50_000L);
            long at = System.currentTimeMillis() + 3_600_000;
            jedis.restore("abs".getBytes(StandardCharsets.UTF_8), at, list, RestoreParams.restoreParams().absTtl());
            assertThat(jedis.pexpireTime("abs")).isEqualTo(at);
            jedis.restore("abs".getBytes(StandardCharsets.UTF_8), 1_000, list, RestoreParams.restoreParams().absTtl().replace());
            assertThat(jedis.exists("abs")).as("a TTL in the past deletes the old key and creates nothing").isFalse();
        }
    }

    @Test
    void aPayloadThatIsNotCairnsOrWasAlteredIsRefused() throws Exception {
        cairn = new TestServer(new InMemoryKvBackend());
        try (RedisServerComparison redis = new RedisServerComparison();
             Jedis real = new Jedis("127.0.0.1", redis.port());
             Jedis jedis = new Jedis("127.0.0.1", cairn.port())) {
            real.set("k", "v");
            byte[] redisPayload = real.dump("k".getBytes(StandardCharsets.UTF_8));
            assertThatThrownBy(() -> jedis.restore("k".getBytes(StandardCharsets.UTF_8), 0, redisPayload))
                    .hasMessage("ERR DUMP payload version or checksum are wrong");
            jedis.set("mine", "value");
            byte[] payload = jedis.dump("mine".getBytes(StandardCharsets.UTF_8));
            payload[payload.length - 6] ^= 1;
            assertThatThrownBy(() -> jedis.restore("k".getBytes(StandardCharsets.UTF_8), 0, payload))
                    .hasMessage("ERR DUMP payload version or checksum are wrong");
            assertThat(jedis.exists("k")).isFalse();
        }
    }
}
