package io.cairn.router.resp;

import io.cairn.core.wire.KeyPage.Position;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** DBSIZE, SCAN, KEYS and FLUSHALL through Jedis against the in-memory backend, and the cursor encoding. */
class KeyspaceCommandsTest {
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
    void scanWithASmallCountVisitsEveryKeyOnceAndEndsAtCursorZero() {
        for (int i = 0; i < 200; i++) jedis.set("key:" + i, "v");
        Set<String> seen = new HashSet<>();
        String cursor = ScanParams.SCAN_POINTER_START;
        int calls = 0;
        do {
            ScanResult<String> page = jedis.scan(cursor, new ScanParams().count(7));
            for (String k : page.getResult()) assertThat(seen.add(k)).as("returned twice: " + k).isTrue();
            cursor = page.getCursor();
            assertThat(++calls).isLessThan(1_000);
        } while (!cursor.equals("0"));
        assertThat(seen).hasSize(200);
    }

    @Test
    void randomKeyIsNilOnAnEmptyKeyspaceAndSomeKeyOtherwise() {
        assertThat(jedis.randomKey()).isNull();
        jedis.set("only", "v");
        assertThat(jedis.randomKey()).isEqualTo("only");
        for (int i = 0; i < 50; i++) jedis.set("k" + i, "v");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) seen.add(jedis.randomKey());
        assertThat(seen).as("keys of several buckets come up").hasSizeGreaterThan(5).allMatch(k -> k.equals("only") || k.startsWith("k"));
    }

    @Test
    void scanMatchAndTypeFilterEachPage() {
        for (int i = 0; i < 50; i++) jedis.set((i % 2 == 0 ? "even:" : "odd:") + i, "v");
        Set<String> even = scanAll(new ScanParams().match("even:*").count(5));
        assertThat(even).hasSize(25).allMatch(k -> k.startsWith("even:"));
        assertThat(jedis.scan("0", new ScanParams().count(100), "hash").getResult()).isEmpty();
        assertThat(jedis.scan("0", new ScanParams().count(100), "string").getResult()).hasSize(50);
    }

    @Test
    void scanRefusesABadCursorAndBadOptions() {
        assertThatThrownBy(() -> jedis.scan("abc")).isInstanceOf(JedisDataException.class).hasMessageContaining("invalid cursor");
        assertThatThrownBy(() -> jedis.scan("0", new ScanParams().count(0))).isInstanceOf(JedisDataException.class);
        assertThatThrownBy(() -> jedis.sendCommand(redis.clients.jedis.Protocol.Command.SCAN, "0", "BOGUS", "1"))
                .isInstanceOf(JedisDataException.class).hasMessageContaining("syntax");
    }

    @Test
    void keysMatchesCaseSensitivelyLikeRedis() {
        jedis.set("user:1", "a");
        jedis.set("user:2", "b");
        jedis.set("User:3", "c");
        jedis.set("order:1", "d");
        assertThat(jedis.keys("user:*")).containsExactlyInAnyOrder("user:1", "user:2");
        assertThat(jedis.keys("*")).hasSize(4);
        assertThat(jedis.keys("?ser:[13]")).containsExactlyInAnyOrder("user:1", "User:3");
    }

    @Test
    void flushAllAndFlushDbDeleteEverything() {
        for (int i = 0; i < 20; i++) jedis.set("k" + i, "v");
        assertThat(jedis.dbSize()).isEqualTo(20);
        assertThat(jedis.flushAll()).isEqualTo("OK");
        assertThat(jedis.dbSize()).isZero();
        jedis.set("again", "v");
        assertThat(jedis.flushDB()).isEqualTo("OK");
        assertThat(jedis.keys("*")).isEmpty();
        assertThatThrownBy(() -> jedis.sendCommand(redis.clients.jedis.Protocol.Command.FLUSHALL, "NOW"))
                .isInstanceOf(JedisDataException.class);
    }

    @Test
    void aCursorCarriesTheBucketAndRemembersTheLastKeyOnlyWhereItIsKnown() {
        ScanCursors cursors = new ScanCursors();
        assertThat(cursors.encode(null)).isEqualTo("0");
        assertThat(cursors.decode("0", 64)).isEqualTo(Position.START);
        String bucketStart = cursors.encode(new Position(5, null));
        assertThat(Long.parseUnsignedLong(bucketStart)).isEqualTo(5L << 32);

        byte[] key = "last".getBytes(StandardCharsets.UTF_8);
        String midBucket = cursors.encode(new Position(5, key));
        Position decoded = cursors.decode(midBucket, 64);
        assertThat(decoded.bucket()).isEqualTo(5);
        assertThat(decoded.afterKey()).isEqualTo(key);
        // Another router does not know the token: the bucket starts over (duplicates, never gaps).
        assertThat(new ScanCursors().decode(midBucket, 64)).isEqualTo(new Position(5, null));
        assertThat(cursors.decode(Long.toUnsignedString(65L << 32), 64)).isNull();
        assertThat(cursors.decode("-1", 64)).isNull();
    }

    private Set<String> scanAll(ScanParams params) {
        Set<String> out = new HashSet<>();
        String cursor = "0";
        do {
            ScanResult<String> page = jedis.scan(cursor, params);
            out.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals("0"));
        return out;
    }
}
