package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Hashes through a real Redis client against an in-process cluster (issue 24): Redis 7 replies, WRONGTYPE, expiry, moves. */
class HashCommandsTest {
    private static final int BUCKETS = 300;
    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    @TempDir
    Path dir;

    @Test
    void hashCommandsAnswerAsRedis7Does() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                assertThat(jedis.hset("h", Map.of("a", "1", "b", "2"))).isEqualTo(2);
                assertThat(jedis.hset("h", "a", "10")).isZero();
                assertThat(jedis.hget("h", "a")).isEqualTo("10");
                assertThat(jedis.hget("h", "nope")).isNull();
                assertThat(jedis.hget("nokey", "a")).isNull();
                assertThat(jedis.hmget("h", "a", "x", "b")).containsExactly("10", null, "2");
                assertThat(jedis.hmset("h2", Map.of("f", "v"))).isEqualTo("OK");
                assertThat(jedis.hexists("h", "b")).isTrue();
                assertThat(jedis.hexists("h", "c")).isFalse();
                assertThat(jedis.hlen("h")).isEqualTo(2);
                assertThat(jedis.hlen("nokey")).isZero();
                assertThat(jedis.hgetAll("h")).isEqualTo(Map.of("a", "10", "b", "2"));
                assertThat(jedis.hgetAll("nokey")).isEmpty();
                assertThat(jedis.hkeys("h")).containsExactlyInAnyOrder("a", "b");
                assertThat(jedis.hvals("h")).containsExactlyInAnyOrder("10", "2");
                assertThat(jedis.hstrlen("h", "a")).isEqualTo(2);
                assertThat(jedis.hstrlen("h", "zz")).isZero();
                assertThat(jedis.hsetnx("h", "a", "x")).isZero();
                assertThat(jedis.hsetnx("h", "c", "3")).isEqualTo(1);
                assertThat(jedis.hincrBy("h", "c", 5)).isEqualTo(8);
                assertThat(jedis.hincrBy("h", "new", -2)).isEqualTo(-2);
                assertThat(raw(jedis, Protocol.Command.HINCRBYFLOAT, "h", "f", "10.50")).isEqualTo("10.5");
                assertThat(raw(jedis, Protocol.Command.HINCRBYFLOAT, "h", "f", "0.1")).isEqualTo("10.6");
                assertThat(raw(jedis, Protocol.Command.HINCRBYFLOAT, "h", "e", "5.0e3")).isEqualTo("5000");
                assertThat(jedis.hdel("h", "c", "new", "nope")).isEqualTo(2);
                assertThat(jedis.type("h")).isEqualTo("hash");
                assertThat(jedis.type("nokey")).isEqualTo("none");
                jedis.set("s", "plain");
                assertThat(jedis.type("s")).isEqualTo("string");

                assertError(() -> jedis.hincrBy("h", "f", 1), "ERR hash value is not an integer");
                jedis.hset("h", "max", Long.toString(Long.MAX_VALUE));
                assertError(() -> jedis.hincrBy("h", "max", 1), "ERR increment or decrement would overflow");
                assertError(() -> jedis.sendCommand(Protocol.Command.HINCRBY, "h", "a", "x"), "ERR value is not an integer or out of range");
                jedis.hset("h", "word", "abc");
                assertError(() -> jedis.sendCommand(Protocol.Command.HINCRBYFLOAT, "h", "word", "1"), "ERR hash value is not a float");
                assertError(() -> jedis.sendCommand(Protocol.Command.HINCRBYFLOAT, "h", "f", "x"), "ERR value is not a valid float");
                assertError(() -> jedis.sendCommand(Protocol.Command.HINCRBYFLOAT, "h", "f", "inf"), "ERR value is NaN or Infinity");
                assertError(() -> jedis.sendCommand(Protocol.Command.HSET, "h", "f"), "ERR wrong number of arguments for 'hset' command");
                assertError(() -> jedis.sendCommand(Protocol.Command.HSET, "h", "f", "v", "g"), "ERR wrong number of arguments for 'hset' command");
                assertError(() -> jedis.sendCommand(Protocol.Command.HGET, "h"), "ERR wrong number of arguments for 'hget' command");
                assertError(() -> jedis.sendCommand(Protocol.Command.HRANDFIELD, "h", "1", "withscores"), "ERR syntax error");
                assertError(() -> jedis.sendCommand(Protocol.Command.HSCAN, "h", "abc"), "ERR invalid cursor");
                assertError(() -> jedis.sendCommand(Protocol.Command.HSCAN, "h", "0", "COUNT", "0"), "ERR syntax error");

                // WRONGTYPE both ways; commands on any key take both types.
                assertError(() -> jedis.hget("s", "a"), WRONGTYPE);
                assertError(() -> jedis.hset("s", "a", "b"), WRONGTYPE);
                assertError(() -> jedis.hgetAll("s"), WRONGTYPE);
                assertError(() -> jedis.get("h"), WRONGTYPE);
                assertError(() -> jedis.incr("h"), WRONGTYPE);
                assertError(() -> jedis.append("h", "x"), WRONGTYPE);
                assertError(() -> jedis.strlen("h"), WRONGTYPE);
                assertError(() -> jedis.getDel("h"), WRONGTYPE);
                assertError(() -> jedis.getSet("h", "x"), WRONGTYPE);
                assertThat(jedis.setnx("h", "x")).as("the hash exists").isZero();
                assertThat(jedis.type("h")).as("refused string writes left the hash").isEqualTo("hash");
                assertThat(jedis.mget("s", "h")).containsExactly("plain", null);
                assertThat(jedis.exists("h", "s", "nokey")).isEqualTo(2);
                assertThat(jedis.dbSize()).as("h, h2, s: a hash is one key").isEqualTo(3);
                assertThat(jedis.keys("*")).containsExactlyInAnyOrder("h", "h2", "s");
                assertThat(scanAll(jedis, "hash")).containsExactlyInAnyOrder("h", "h2");
                assertThat(scanAll(jedis, "string")).containsExactly("s");
                assertThat(jedis.del("h2")).isEqualTo(1);
                assertThat(jedis.exists("h2")).isFalse();
                assertThat(jedis.hgetAll("h2")).isEmpty();
                assertThat(jedis.set("h", "now a string")).isEqualTo("OK");
                assertThat(jedis.type("h")).isEqualTo("string");
                assertError(() -> jedis.hlen("s"), WRONGTYPE);
            }
        }
    }

    @Test
    void randomFieldsScanAndExpiryOfAHash() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 1, BUCKETS, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                Map<String, String> fields = new LinkedHashMap<>();
                // Over 512 fields: Redis would no longer keep it as a listpack, so HSCAN pages by cursor.
                for (int i = 0; i < 700; i++) fields.put("field:" + i, "value:" + i);
                jedis.hset("big", fields);
                assertThat(fields).containsKey(jedis.hrandfield("big"));
                List<String> distinct = jedis.hrandfield("big", 20);
                assertThat(distinct).hasSize(20).doesNotHaveDuplicates().allSatisfy(f -> assertThat(fields).containsKey(f));
                assertThat(jedis.hrandfield("big", -900)).hasSize(900);
                assertThat(jedis.hrandfieldWithValues("big", 5)).hasSize(5)
                        .allSatisfy(e -> assertThat(e.getValue()).isEqualTo(fields.get(e.getKey())));
                assertThat(jedis.hrandfield("nokey")).isNull();
                assertThat(jedis.hrandfield("nokey", 3)).isEmpty();

                Map<String, String> scanned = new HashMap<>();
                int pages = 0;
                String cursor = ScanParams.SCAN_POINTER_START;
                do {
                    ScanResult<Map.Entry<String, String>> page = jedis.hscan("big", cursor, new ScanParams().count(50));
                    for (Map.Entry<String, String> e : page.getResult()) assertThat(scanned.put(e.getKey(), e.getValue())).isNull();
                    cursor = page.getCursor();
                    pages++;
                } while (!cursor.equals("0"));
                assertThat(pages).as("700 fields by 50").isEqualTo(14);
                assertThat(scanned).isEqualTo(fields);
                ScanResult<Map.Entry<String, String>> matched = jedis.hscan("big", "0", new ScanParams().match("field:1?").count(1_000));
                assertThat(matched.getResult()).extracting(Map.Entry::getKey).hasSize(10).allSatisfy(k -> assertThat(k).matches("field:1\\d"));

                assertThat(jedis.ttl("big")).isEqualTo(-1);
                assertThat(jedis.pexpire("big", 300)).isEqualTo(1);
                assertThat(jedis.pttl("big")).isBetween(1L, 300L);
                assertThat(jedis.persist("big")).isEqualTo(1);
                assertThat(jedis.ttl("big")).isEqualTo(-1);
                assertThat(jedis.expire("big", 1)).isEqualTo(1);
                assertThat(jedis.type("big")).as("expiry keeps the type").isEqualTo("hash");
                await().atMost(Duration.ofSeconds(20)).until(() -> !jedis.exists("big"));
                assertThat(jedis.hlen("big")).isZero();
                assertThat(jedis.hget("big", "field:1")).isNull();
                assertThat(jedis.ttl("big")).isEqualTo(-2);
                // A hash recreated under the expired key starts empty: none of the 700 old fields comes back.
                assertThat(jedis.hset("big", "fresh", "1")).isEqualTo(1);
                assertThat(jedis.hgetAll("big")).isEqualTo(Map.of("fresh", "1"));
            }
        }
    }

    @Test
    void aHashOfTenThousandFieldsMovesToAnotherReplicasetIntact() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                Map<String, String> expected = new HashMap<>();
                for (int batch = 0; batch < 10; batch++) {
                    Map<String, String> part = new HashMap<>();
                    for (int i = batch * 1_000; i < (batch + 1) * 1_000; i++) part.put("f" + i, "v" + i + "-" + "x".repeat(i % 7));
                    jedis.hset("{moving}hash", part);
                    expected.putAll(part);
                }
                jedis.set("{moving}plain", "p");
                jedis.pexpire("{moving}hash", 3_600_000);
                int bucket = BucketHasher.bucketOf("moving".getBytes(StandardCharsets.UTF_8), BUCKETS);
                String from = cluster.router().router().ownerOf(bucket);
                String to = from.equals("rs1") ? "rs2" : "rs1";
                long movedBefore = moved(cluster);

                long start = System.nanoTime();
                assertThat(cluster.coordinator().mover().requestMove(bucket, to)).isTrue();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                        .until(() -> to.equals(cluster.router().router().ownerOf(bucket)) && moved(cluster) > movedBefore);
                System.out.printf("a hash of 10,000 fields moved %s -> %s in %d ms%n", from, to, (System.nanoTime() - start) / 1_000_000);

                assertThat(jedis.hlen("{moving}hash")).isEqualTo(10_000);
                assertThat(jedis.hgetAll("{moving}hash")).isEqualTo(expected);
                assertThat(jedis.pttl("{moving}hash")).as("the expiry moved with the hash").isBetween(3_000_000L, 3_600_000L);
                assertThat(jedis.get("{moving}plain")).isEqualTo("p");
                assertThat(jedis.dbSize()).as("fields are not keys").isEqualTo(2);
                assertThat(jedis.hset("{moving}hash", "after", "1")).as("written at the new owner").isEqualTo(1);
                assertThat(jedis.hlen("{moving}hash")).isEqualTo(10_001);
                Set<String> keysAtDestination = new HashSet<>(jedis.keys("{moving}*"));
                assertThat(keysAtDestination).containsExactlyInAnyOrder("{moving}hash", "{moving}plain");
            }
        }
    }

    /** Every key SCAN returns with TYPE {@code type}, following the cursor to its end. */
    private static List<String> scanAll(Jedis jedis, String type) {
        List<String> keys = new java.util.ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = jedis.scan(cursor, new ScanParams().count(100), type);
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals("0"));
        return keys;
    }

    private static long moved(LocalCluster cluster) {
        return cluster.coordinator().mover().progress().get("moved") instanceof Number n ? n.longValue() : -1;
    }

    private static String raw(Jedis jedis, Protocol.Command command, String... args) {
        return new String((byte[]) jedis.sendCommand(command, args), StandardCharsets.UTF_8);
    }

    private static void assertError(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String text) {
        assertThatThrownBy(call).isInstanceOf(JedisDataException.class).hasMessage(text);
    }
}
