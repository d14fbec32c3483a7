package io.cairn.router.resp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** LCS (issue 24) against a real redis-server, as {@link StringEditCommandsTest} does: replies, ranges and errors the same. */
class LcsCommandsTest {
    private static final String[][] SCRIPT = {
            {"mset", "{l}a", "ohmytext", "{l}b", "mynewtext"},
            {"lcs", "{l}a", "{l}b"}, {"lcs", "{l}a", "{l}b", "len"}, {"lcs", "{l}a", "{l}b", "idx"},
            {"lcs", "{l}a", "{l}b", "idx", "minmatchlen", "4"}, {"lcs", "{l}a", "{l}b", "idx", "minmatchlen", "4", "withmatchlen"},
            {"lcs", "{l}a", "{l}b", "idx", "withmatchlen", "minmatchlen", "-3"}, {"lcs", "{l}a", "{l}b", "idx", "len"},
            {"lcs", "{l}a", "{l}b", "minmatchlen"}, {"lcs", "{l}a", "{l}b", "minmatchlen", "x"}, {"lcs", "{l}a", "{l}b", "foo"},
            {"lcs", "{l}a", "{l}missing"}, {"lcs", "{l}missing", "{l}a", "idx"}, {"lcs", "{l}a", "{l}a", "len"},
            {"hset", "{l}h", "f", "v"}, {"lcs", "{l}a", "{l}h"}, {"lcs", "{l}h", "{l}a", "foo"},
            {"set", "{l}c", "abcabcabc"}, {"set", "{l}d", "cbacbacba"}, {"lcs", "{l}c", "{l}d", "idx", "withmatchlen"},
            {"lcs", "{l}c", "{l}d", "len"}, {"lcs", "{l}c", "{l}d"},
    };

    private TestServer cairn;

    @AfterEach
    void stop() {
        if (cairn != null) cairn.close();
    }

    @Test
    void everyReplyMatchesRedisServer() throws Exception {
        assertThat(RedisServerComparison.againstInMemoryCairn(SCRIPT)).isEmpty();
    }

    /** Random strings over small alphabets (many ties in the table), so the walk back must break ties as Redis does. */
    @Test
    void randomStringsGiveRedisServersRanges() throws Exception {
        long seed = Long.getLong("cairn.test.seed", System.nanoTime());
        System.out.println("LcsCommandsTest seed " + seed + " (replay: -Dcairn.test.seed=" + seed + ")");
        Random random = new Random(seed);
        List<String[]> script = new ArrayList<>();
        for (int round = 0; round < 150; round++) {
            String alphabet = "abcdefgh".substring(0, 2 + random.nextInt(6));
            script.add(new String[] {"mset", "{l}x", randomText(random, alphabet), "{l}y", randomText(random, alphabet)});
            script.add(new String[] {"lcs", "{l}x", "{l}y"});
            script.add(new String[] {"lcs", "{l}x", "{l}y", "idx", "minmatchlen", Integer.toString(random.nextInt(3)), "withmatchlen"});
        }
        try (RedisServerComparison redis = new RedisServerComparison()) {
            cairn = new TestServer(new InMemoryKvBackend());
            assertThat(redis.differences(script.toArray(String[][]::new), cairn.port())).as("seed %d", seed).isEmpty();
        }
    }

    @Test
    void stringsBeyondTheTableBoundAreRefusedAndKeysOfTwoBucketsAreCrossSlot() {
        cairn = new TestServer(new InMemoryKvBackend());
        try (RawClient c = new RawClient(cairn.port())) {
            c.call("mset", "{l}big1", "x".repeat(3_000), "{l}big2", "y".repeat(2_000));
            Object refused = c.call("lcs", "{l}big1", "{l}big2");
            assertThat(refused).isInstanceOf(RawClient.Err.class);
            assertThat(((RawClient.Err) refused).message()).startsWith("ERR LCS of strings of 3000 and 2000 bytes exceeds Cairn's bound");
            c.call("set", "{l}small", "xyx");
            assertThat(c.call("lcs", "{l}big1", "{l}small", "len")).isEqualTo(2L);
            assertThat(c.call("lcs", "{l}a", "{m}b")).isEqualTo(new RawClient.Err("CROSSSLOT Keys in request don't hash to the same slot"));
        }
    }

    private static String randomText(Random random, String alphabet) {
        StringBuilder s = new StringBuilder();
        int n = random.nextInt(25);
        for (int i = 0; i < n; i++) s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        return s.toString();
    }
}
