package io.cairn.router.resp;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ZLEXCOUNT, ZRANDMEMBER, ZMPOP, BZPOPMIN, BZPOPMAX and BZMPOP (issue 24) against a real
 * redis-server 7.0: the same script to both, every reply the same, errors word for word. Random
 * choices are compared where Redis's answer is fixed (a count covering the set, an empty set) and
 * otherwise checked for what they must be (distinct members of the set, the asked length).
 */
class ZSetPopCommandsTest {
    private static final String[][] SCRIPT = {
            {"zadd", "{t}lex", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"},
            {"zlexcount", "{t}lex", "-", "+"}, {"zlexcount", "{t}lex", "[b", "(d"}, {"zlexcount", "{t}lex", "(a", "[z"},
            {"zlexcount", "{t}lex", "+", "-"}, {"zlexcount", "{t}lex", "[d", "[b"}, {"zlexcount", "{t}missing", "-", "+"},
            {"zlexcount", "{t}lex", "b", "[d"}, {"zlexcount", "{t}lex", "[a"}, {"set", "{t}str", "text"},
            {"zlexcount", "{t}str", "-", "+"}, {"zlexcount", "{t}str", "x", "+"},
            {"zadd", "{t}z", "1", "one", "2", "two", "3", "three", "-inf", "low", "0.1", "tenth"},
            {"zrandmember", "{t}missing"}, {"zrandmember", "{t}missing", "3"}, {"zrandmember", "{t}missing", "-3", "withscores"},
            {"zrandmember", "{t}z", "0"}, {"zrandmember", "{t}z", "5"}, {"zrandmember", "{t}z", "9", "withscores"},
            {"zrandmember", "{t}z", "x"}, {"zrandmember", "{t}z", "1", "withscore"}, {"zrandmember", "{t}z", "1", "withscores", "x"},
            {"zrandmember", "{t}z", "-9223372036854775808"}, {"zrandmember", "{t}z", "4611686018427387904", "withscores"},
            {"zrandmember", "{t}z", "-4611686018427387904", "withscores"}, {"zrandmember", "{t}str"}, {"zrandmember", "{t}str", "2"},
            {"zadd", "{t}one", "7", "only"}, {"zrandmember", "{t}one"}, {"zrandmember", "{t}one", "-3", "withscores"},
            {"zmpop", "1", "{t}z", "min"}, {"zmpop", "1", "{t}z", "max", "count", "2"}, {"zmpop", "2", "{t}missing", "{t}z", "MIN", "COUNT", "10"},
            {"exists", "{t}z"}, {"zmpop", "2", "{t}missing", "{t}z", "min"}, {"zmpop", "1", "{t}str", "min"},
            {"zmpop", "2", "{t}missing", "{t}str", "min"}, {"zmpop", "0", "{t}z", "min"}, {"zmpop", "-1", "{t}z", "min"},
            {"zmpop", "x", "{t}z", "min"}, {"zmpop", "3", "{t}z", "min"}, {"zmpop", "1", "{t}z", "middle"},
            {"zmpop", "1", "{t}z", "min", "count"}, {"zmpop", "1", "{t}z", "min", "count", "0"}, {"zmpop", "1", "{t}z", "min", "count", "x"},
            {"zmpop", "1", "{t}z", "min", "count", "1", "count", "2"}, {"zmpop", "1", "{t}z", "min", "limit", "1"},
            {"zadd", "{t}p", "5", "e", "1", "a", "3", "c"},
            {"bzpopmin", "{t}p", "0"}, {"bzpopmax", "{t}missing", "{t}p", "1"}, {"bzpopmin", "{t}p", "{t}missing", "0.5"},
            {"exists", "{t}p"}, {"bzpopmin", "{t}p", "0.05"}, {"bzpopmax", "{t}missing", "0.01"},
            {"bzpopmin", "{t}p", "x"}, {"bzpopmin", "{t}p", "-1"}, {"bzpopmin", "{t}str", "1"}, {"bzpopmin", "{t}missing", "{t}str", "1"},
            {"zadd", "{t}q", "1", "a", "2", "b", "3", "c"},
            {"bzmpop", "1", "1", "{t}q", "max"}, {"bzmpop", "0.5", "2", "{t}missing", "{t}q", "min", "count", "5"},
            {"bzmpop", "0.02", "1", "{t}q", "min"}, {"bzmpop", "x", "1", "{t}q", "min"}, {"bzmpop", "-1", "1", "{t}q", "min"},
            {"bzmpop", "1", "0", "{t}q", "min"}, {"bzmpop", "1", "1", "{t}q", "up"}, {"bzmpop", "1", "1", "{t}str", "min"},
            {"bzmpop", "1", "1", "{t}q", "max", "count", "-1"},
            {"zadd", "{t}scores", "0.1", "x", "1e20", "y", "inf", "z"}, {"zmpop", "1", "{t}scores", "max", "count", "3"},
    };

    @Test
    void everyReplyMatchesRedisServer() throws Exception {
        assertThat(RedisServerComparison.againstInMemoryCairn(SCRIPT)).isEmpty();
    }

    @Test
    void randomMembersAreDistinctMembersOfTheSetAndRepeatsOnlyForANegativeCount() {
        long seed = System.nanoTime();
        System.out.println("ZSetPopCommandsTest seed " + seed);
        Random random = new Random(seed);
        try (TestServer cairn = new TestServer(new InMemoryKvBackend()); RawClient c = new RawClient(cairn.port())) {
            Set<String> members = new HashSet<>();
            for (int i = 0; i < 50; i++) {
                String m = "m" + random.nextInt(1000);
                members.add(m);
                c.call("zadd", "z", Integer.toString(random.nextInt(10)), m);
            }
            assertThat(members).contains((String) c.call("zrandmember", "z"));
            List<?> some = (List<?>) c.call("zrandmember", "z", "10");
            assertThat(some).hasSize(10).doesNotHaveDuplicates();
            assertThat(members).containsAll(strings(some));
            List<?> repeats = (List<?>) c.call("zrandmember", "z", "-200", "withscores");
            assertThat(repeats).hasSize(400);
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < repeats.size(); i += 2) {
                String m = (String) repeats.get(i);
                assertThat(members).as("seed %d", seed).contains(m);
                assertThat(repeats.get(i + 1)).isEqualTo(c.call("zscore", "z", m));
                seen.add(m);
            }
            assertThat(seen.size()).as("200 draws from 50 members repeat some and vary (seed %d)", seed).isBetween(2, 50);
            assertThat(c.call("zrandmember", "z", "-1000001")).isEqualTo(new RawClient.Err("ERR ZRANDMEMBER count below -1000000 is beyond Cairn's limit"));
        }
    }

    @Test
    void aBlockedClientIsServedByAnotherClientsAddAndBlockingPopsAreRefusedInMulti() throws Exception {
        try (TestServer cairn = new TestServer(new InMemoryKvBackend()); RawClient waiter = new RawClient(cairn.port());
             RawClient adder = new RawClient(cairn.port())) {
            CompletableFuture<Object> popped = CompletableFuture.supplyAsync(() -> waiter.call("bzmpop", "0", "2", "{k}a", "{k}b", "max", "count", "2"));
            await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(5)).until(() -> !popped.isDone());
            assertThat(adder.call("zadd", "{k}b", "1", "x", "2", "y", "3", "z")).isEqualTo(3L);
            assertThat(popped.get(10, TimeUnit.SECONDS)).isEqualTo(List.of("{k}b", List.of(List.of("z", "3"), List.of("y", "2"))));
            assertThat(adder.call("zrange", "{k}b", "0", "-1")).isEqualTo(List.of("x"));

            CompletableFuture<Object> min = CompletableFuture.supplyAsync(() -> waiter.call("bzpopmin", "{k}c", "0"));
            await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(5)).until(() -> !min.isDone());
            adder.call("zadd", "{k}c", "4", "w");
            assertThat(min.get(10, TimeUnit.SECONDS)).isEqualTo(List.of("{k}c", "w", "4"));

            assertThat(waiter.call("bzpopmin", "{x}a", "{y}b", "1")).isEqualTo(new RawClient.Err("CROSSSLOT Keys in request don't hash to the same slot"));
            assertThat(waiter.call("zmpop", "2", "{x}a", "{y}b", "min")).isEqualTo(new RawClient.Err("CROSSSLOT Keys in request don't hash to the same slot"));
            waiter.call("multi");
            assertThat(waiter.call("bzpopmax", "{k}b", "1")).isEqualTo(new RawClient.Err("ERR BZPOPMAX inside MULTI is not supported by Cairn"));
            assertThat(waiter.call("zmpop", "1", "{k}b", "min")).isEqualTo("QUEUED");
            assertThat(waiter.call("exec")).isEqualTo(new RawClient.Err("EXECABORT Transaction discarded because of previous errors."));
            waiter.call("multi");
            assertThat(waiter.call("zmpop", "1", "{k}b", "min")).isEqualTo("QUEUED");
            assertThat(waiter.call("zmpop", "2", "{k}b", "{y}b", "min")).isEqualTo(new RawClient.Err("CROSSSLOT Keys in request don't hash to the same slot"));
            waiter.call("discard");
            waiter.call("multi");
            assertThat(waiter.call("zmpop", "1", "{k}b", "min")).isEqualTo("QUEUED");
            assertThat(waiter.call("exec")).isEqualTo(List.of(List.of("{k}b", List.of(List.of("x", "1")))));
        }
    }

    private static List<String> strings(List<?> values) {
        List<String> out = new ArrayList<>();
        for (Object v : values) out.add((String) v);
        return out;
    }
}
