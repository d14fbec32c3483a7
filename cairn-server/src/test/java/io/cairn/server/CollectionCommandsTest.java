package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListDirection;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Lists, sets and sorted sets through a real Redis client against an in-process cluster (issue 24):
 * keys of every type moved between replicasets intact with their expiry, the keyspace commands on
 * every type, and CROSSSLOT for commands whose keys are in different buckets. Reply texts are
 * RedisRepliesTest's.
 */
class CollectionCommandsTest {
    private static final int BUCKETS = 300;

    @TempDir
    Path dir;

    @Test
    void aListASetAndASortedSetMoveToAnotherReplicasetIntact() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                List<String> list = new ArrayList<>();
                for (int batch = 0; batch < 10; batch++) {
                    String[] part = new String[1_000];
                    for (int i = 0; i < part.length; i++) part[i] = "e" + (batch * 1_000 + i);
                    // Left pushes on even batches, right pushes on odd ones: the head goes below zero and must travel.
                    if (batch % 2 == 0) {
                        jedis.lpush("{moving}list", part);
                        for (String e : part) list.add(0, e);
                    } else {
                        jedis.rpush("{moving}list", part);
                        list.addAll(List.of(part));
                    }
                }
                Set<String> members = new HashSet<>();
                Map<String, Double> scores = new HashMap<>();
                for (int i = 0; i < 5_000; i++) {
                    members.add("m" + i);
                    scores.put("z" + i, i * 0.5 - 1_000);
                }
                jedis.sadd("{moving}set", members.toArray(String[]::new));
                jedis.zadd("{moving}zset", scores);
                jedis.pexpire("{moving}list", 3_600_000);
                jedis.pexpire("{moving}zset", 7_200_000);

                int bucket = BucketHasher.bucketOf("moving".getBytes(StandardCharsets.UTF_8), BUCKETS);
                String from = cluster.router().router().ownerOf(bucket);
                String to = from.equals("rs1") ? "rs2" : "rs1";
                long movedBefore = moved(cluster);
                long start = System.nanoTime();
                assertThat(cluster.coordinator().mover().requestMove(bucket, to)).isTrue();
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                        .until(() -> to.equals(cluster.router().router().ownerOf(bucket)) && moved(cluster) > movedBefore);
                System.out.printf("a list of 10,000, a set of 5,000 and a sorted set of 5,000 moved %s -> %s in %d ms%n",
                        from, to, (System.nanoTime() - start) / 1_000_000);

                assertThat(jedis.lrange("{moving}list", 0, -1)).isEqualTo(list);
                assertThat(jedis.lindex("{moving}list", 0)).isEqualTo(list.get(0));
                assertThat(jedis.smembers("{moving}set")).isEqualTo(members);
                List<Tuple> ranked = jedis.zrangeWithScores("{moving}zset", 0, -1);
                assertThat(ranked).hasSize(5_000);
                for (int i = 0; i < ranked.size(); i++) {
                    assertThat(ranked.get(i).getElement()).isEqualTo("z" + i);
                    assertThat(ranked.get(i).getScore()).isEqualTo(i * 0.5 - 1_000);
                }
                assertThat(jedis.pttl("{moving}list")).as("the list's expiry moved with it").isBetween(3_000_000L, 3_600_000L);
                assertThat(jedis.pttl("{moving}zset")).as("the sorted set's expiry moved with it").isBetween(6_600_000L, 7_200_000L);
                assertThat(jedis.ttl("{moving}set")).isEqualTo(-1);
                assertThat(jedis.dbSize()).as("elements are not keys").isEqualTo(3);
                // Written at the new owner, at both ends and in the middle of the order.
                assertThat(jedis.lpush("{moving}list", "first")).isEqualTo(10_001);
                assertThat(jedis.rpop("{moving}list")).isEqualTo(list.get(list.size() - 1));
                assertThat(jedis.sadd("{moving}set", "after")).isEqualTo(1);
                assertThat(jedis.zadd("{moving}zset", 0.25, "between")).isEqualTo(1);
                assertThat(jedis.zrank("{moving}zset", "between")).isEqualTo(2001);
            }
        }
    }

    @Test
    void keyspaceCommandsTakeEveryTypeAndKeysOfTwoBucketsAreRefused() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                jedis.rpush("l", "a", "b");
                jedis.sadd("s", "a", "b");
                jedis.zadd("z", 1, "a");
                jedis.hset("h", "f", "v");
                jedis.set("str", "v");
                assertThat(List.of(jedis.type("l"), jedis.type("s"), jedis.type("z"))).containsExactly("list", "set", "zset");
                assertThat(jedis.dbSize()).isEqualTo(5);
                assertThat(scanAll(jedis, "list")).containsExactly("l");
                assertThat(scanAll(jedis, "set")).containsExactly("s");
                assertThat(scanAll(jedis, "zset")).containsExactly("z");
                assertThat(jedis.exists("l", "s", "z", "nokey")).isEqualTo(3);
                assertThat(jedis.expire("s", 100)).isEqualTo(1);
                assertThat(jedis.ttl("s")).isBetween(90L, 100L);
                assertThat(jedis.persist("s")).isEqualTo(1);
                assertThat(jedis.pexpire("z", 200)).isEqualTo(1);
                await().atMost(Duration.ofSeconds(20)).until(() -> !jedis.exists("z"));
                assertThat(jedis.zcard("z")).isZero();
                assertThat(jedis.zadd("z", 5, "fresh")).as("a new sorted set under the expired name starts empty").isEqualTo(1);
                assertThat(jedis.zrange("z", 0, -1)).containsExactly("fresh");
                assertThat(jedis.del("l", "s", "z")).isEqualTo(3);
                assertThat(jedis.dbSize()).isEqualTo(2);

                // Keys in two buckets: refused, as Redis Cluster refuses keys of two slots; a hash tag puts them in one.
                String other = keyInAnotherBucket("a");
                jedis.rpush("a", "x");
                jedis.sadd(other, "x");
                String crossSlot = "CROSSSLOT Keys in request don't hash to the same slot";
                assertError(() -> jedis.lmove("a", other, ListDirection.LEFT, ListDirection.RIGHT), crossSlot);
                assertError(() -> jedis.rpoplpush("a", other), crossSlot);
                assertError(() -> jedis.sinter("a", other), crossSlot);
                assertError(() -> jedis.sunionstore("a", other), crossSlot);
                assertError(() -> jedis.smove(other, "a", "x"), crossSlot);
                assertThat(jedis.lrange("a", 0, -1)).as("a refused command changed nothing").containsExactly("x");
                jedis.sadd("{a}1", "p", "q");
                jedis.sadd("{a}2", "q");
                assertThat(jedis.sinter("{a}1", "{a}2")).containsExactly("q");
                assertThat(jedis.smove("{a}1", "{a}2", "p")).isEqualTo(1);
                assertThat(jedis.smembers("{a}2")).containsExactlyInAnyOrder("p", "q");
            }
        }
    }

    private static String keyInAnotherBucket(String key) {
        int bucket = BucketHasher.bucketOf(key.getBytes(StandardCharsets.UTF_8), BUCKETS);
        for (int i = 0; ; i++) {
            String candidate = "other" + i;
            if (BucketHasher.bucketOf(candidate.getBytes(StandardCharsets.UTF_8), BUCKETS) != bucket) return candidate;
        }
    }

    private static List<String> scanAll(Jedis jedis, String type) {
        List<String> keys = new ArrayList<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = jedis.scan(cursor, new ScanParams().count(100), type);
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals("0"));
        return keys;
    }

    /** The sorted-set algebra, LCS, OBJECT and DUMP/RESTORE through the router to real replicasets (reads on the query path, writes logged). */
    @Test
    void theLaterCommandFamiliesWorkThroughTheRouter() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                jedis.zadd("{t}a", Map.of("x", 1.0, "y", 2.0));
                jedis.zadd("{t}b", Map.of("y", 10.0, "z", 20.0));
                assertThat(jedis.zunionstore("{t}d", "{t}a", "{t}b")).isEqualTo(3);
                assertThat(jedis.zrangeWithScores("{t}d", 0, -1)).extracting(t -> t.getElement() + "=" + t.getScore())
                        .containsExactly("x=1.0", "y=12.0", "z=20.0");
                assertThat(jedis.zintercard("{t}a", "{t}b")).isEqualTo(1);
                assertThat(jedis.zdiff("{t}a", "{t}b")).containsExactly("x");
                assertThat(jedis.zinter(new redis.clients.jedis.params.ZParams(), "{t}a", "{t}b")).containsExactly("y");
                assertError(() -> jedis.zunionstore("{u}d", "{t}a"), "CROSSSLOT Keys in request don't hash to the same slot");
                jedis.mset("{t}s1", "ohmytext", "{t}s2", "mynewtext");
                assertThat(jedis.lcs("{t}s1", "{t}s2", redis.clients.jedis.params.LCSParams.LCSParams()).getMatchString()).isEqualTo("mytext");
                assertThat(jedis.objectEncoding("{t}d")).isEqualTo("listpack");
                byte[] payload = jedis.dump("{t}d".getBytes(StandardCharsets.UTF_8));
                jedis.restore("{t}copy".getBytes(StandardCharsets.UTF_8), 0, payload);
                assertThat(jedis.zrange("{t}copy", 0, -1)).containsExactly("x", "y", "z");
            }
        }
    }

    /**
     * INFO keyspace over real replicasets: keys from the leaders' counters, expires and avg_ttl from their expiry sweepers;
     * INFO stats' keyspace_hits, keyspace_misses and expired_keys move as Redis's do.
     */
    @Test
    void infoKeyspaceCountsKeysWithATtlOverEveryReplicaset() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, Map.of("rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                for (int i = 0; i < 20; i++) jedis.set("plain" + i, "v");
                for (int i = 0; i < 10; i++) jedis.setex("ttl" + i, 1_000, "v");
                jedis.hset("hash", "f", "v");
                jedis.expire("hash", 1_000);
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> jedis.info("keyspace").contains("db0:keys=31,expires=11,"));
                String line = jedis.info("keyspace").lines().filter(l -> l.startsWith("db0:")).findFirst().orElseThrow();
                long avgTtl = Long.parseLong(line.substring(line.indexOf("avg_ttl=") + 8));
                assertThat(avgTtl).isBetween(900_000L, 1_000_000L);
                String replication = jedis.info("replication");
                assertThat(replication).contains("role:master", "replicasets:2", "replicaset_rs1:members=1,leader=", "replicaset_rs2:members=1,leader=");

                // INFO stats: a read of a live key is a hit (a missing hash field too: the key was found), of a missing key a miss;
                // writes and a blocked pop's polling count neither, as in Redis.
                long hits = stat(jedis, "keyspace_hits");
                long misses = stat(jedis, "keyspace_misses");
                assertThat(jedis.get("plain0")).isEqualTo("v");
                assertThat(jedis.hget("hash", "nofield")).isNull();
                assertThat(jedis.mget("plain1", "absent1", "absent2")).containsExactly("v", null, null);
                assertThat(jedis.llen("absent-list")).isZero();
                jedis.set("written", "v");
                assertThat(jedis.blpop(0.2, "absent-queue")).isNull();
                assertThat(stat(jedis, "keyspace_hits") - hits).isEqualTo(3);
                assertThat(stat(jedis, "keyspace_misses") - misses).isEqualTo(3);

                // expired_keys: the expiry sweeper's deletes, summed over leaders
                long expired = stat(jedis, "expired_keys");
                jedis.psetex("short1", 20, "v");
                jedis.psetex("short2", 20, "v");
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> stat(jedis, "expired_keys") - expired == 2);
                assertThat(jedis.exists("short1", "short2")).isZero();
            }
        }
    }

    private static long stat(Jedis jedis, String name) {
        return jedis.info("stats").lines().filter(l -> l.startsWith(name + ":"))
                .mapToLong(l -> Long.parseLong(l.substring(name.length() + 1).trim())).findFirst().orElseThrow();
    }

    private static long moved(LocalCluster cluster) {
        return cluster.coordinator().mover().progress().get("moved") instanceof Number n ? n.longValue() : -1;
    }

    private static void assertError(ThrowableAssert.ThrowingCallable call, String text) {
        assertThatThrownBy(call).isInstanceOf(JedisDataException.class).hasMessage(text);
    }
}
