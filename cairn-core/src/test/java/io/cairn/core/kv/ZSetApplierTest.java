package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Sorted set commands of {@link KvApplier} over an in-memory view: the encoding, its order and Redis's rules. */
class ZSetApplierTest extends ApplierHarness {

    @Test
    void theScoreIndexOrdersNegativeZeroPositiveAndInfiniteScores() {
        double[] scores = {Double.NEGATIVE_INFINITY, -1e300, -2.5, -Double.MIN_VALUE, 0.0, Double.MIN_VALUE, 1, 1e300, Double.POSITIVE_INFINITY};
        for (int i = 1; i < scores.length; i++) {
            assertThat(Long.compareUnsigned(ZSetMeta.orderedScore(scores[i - 1]), ZSetMeta.orderedScore(scores[i])))
                    .as("%s < %s", scores[i - 1], scores[i]).isNegative();
            byte[] field = ZSetMeta.scoreField(scores[i], b("m"));
            assertThat(ZSetMeta.scoreOfScoreField(field)).isEqualTo(scores[i]);
        }
        assertThat(ZSetMeta.orderedScore(-0.0)).as("-0 is 0, as in Redis").isEqualTo(ZSetMeta.orderedScore(0.0));
    }

    @Test
    void scoresArePrintedAsRedis7PrintsThem() {
        assertThat(ZSetMeta.format(0.1)).isEqualTo("0.10000000000000001");
        assertThat(ZSetMeta.format(1e20)).isEqualTo("1e+20");
        assertThat(ZSetMeta.format(123456789012345678.0)).isEqualTo("1.2345678901234568e+17");
        assertThat(ZSetMeta.format(1e-5)).isEqualTo("1.0000000000000001e-05");
        assertThat(ZSetMeta.format(-2.5)).isEqualTo("-2.5");
        assertThat(ZSetMeta.format(3)).isEqualTo("3");
        assertThat(ZSetMeta.format(Double.NEGATIVE_INFINITY)).isEqualTo("-inf");
        assertThat(ZSetMeta.formatForScan(123456789012345678.0)).isEqualTo("123456789012345680");
        assertThat(ZSetMeta.parseScore(b("nan"))).isNull();
        assertThat(ZSetMeta.parseScore(b("1e400"))).as("beyond a double: strtod's ERANGE").isNull();
        assertThat(ZSetMeta.parseScore(b("+inf"))).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void changingAScoreMovesTheMemberInTheIndexAndLeavesNoOldEntry() {
        run(KvOp.Type.ZADD, "z", "1", "a", "2", "b", "3", "c");
        run(KvOp.Type.ZADD, "z", "10", "a");
        assertThat(strings(run(KvOp.Type.ZRANGE, "z", 0L, -1L))).containsExactly("b", "c", "a");
        assertThat(view.storedFields(BUCKET, b("z"))).as("two entries per member").isEqualTo(6);
        assertThat(run(KvOp.Type.ZRANK, "z", "a").number()).isEqualTo(2);
        assertThat(run(KvOp.Type.ZREM, "z", "a", "b", "c").number()).isEqualTo(3);
        assertThat(run(KvOp.Type.EXISTS, "z").number()).isZero();
        assertThat(view.storedFields(BUCKET, b("z"))).isZero();
    }

    @Test
    void wrongTypesAnswerWrongtypeAndChangeNothing() {
        run(KvOp.Type.SADD, "s", "m");
        var before = view.snapshot();
        assertThat(run(KvOp.Type.ZADD, "s", "1", "a").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.ZCARD, "s").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        run(KvOp.Type.ZADD, "z", "1", "a");
        assertThat(run(KvOp.Type.SMEMBERS, "z").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(new String(run(KvOp.Type.TYPE, "z").bytes(), StandardCharsets.UTF_8)).isEqualTo("zset");
        assertThat(view.snapshot()).hasSize(before.size() + 1);
    }

    @Test
    void anExpiredSortedSetLeavesNothingBehindForTheNextOne() {
        run(KvOp.Type.ZADD, "z", "1", "old", "2", "older");
        applier.apply(new KvOp(KvOp.Type.PEXPIRE, BUCKET, b("z"), null, 100, 0), view, NOW);
        KvOp add = new KvOp(KvOp.Type.ZADD, BUCKET, b("z"), Packed.encode(List.of(b("5"), b("new"))), 0, 0);
        assertThat(applier.apply(add, view, NOW + 200).number()).isEqualTo(1);
        assertThat(view.storedFields(BUCKET, b("z"))).isEqualTo(2);
        KvOp all = new KvOp(KvOp.Type.ZRANGE, BUCKET, b("z"), Packed.encode(List.of(longBytes(0), longBytes(-1))), 0, 0);
        assertThat(strings(applier.apply(all, view, NOW + 200))).containsExactly("new");
    }

    /** Random ZADD/ZINCRBY/ZREM/ZPOPMIN/ZREMRANGEBYSCORE against a map model; a failure prints the seed to replay. */
    @Test
    void randomCommandsAgreeWithAMapModel() {
        long seed = Long.getLong("cairn.seed", new Random().nextLong());
        System.out.println("replay: -Dcairn.seed=" + seed + " -Dtest=ZSetApplierTest#randomCommandsAgreeWithAMapModel");
        Random random = new Random(seed);
        Map<String, Double> model = new HashMap<>();
        for (int step = 0; step < 2_000; step++) {
            String m = "m" + random.nextInt(15);
            double s = (random.nextInt(11) - 5) / 2.0;
            String text = ZSetMeta.format(s);
            switch (random.nextInt(6)) {
                case 0, 1 -> {
                    long added = run(KvOp.Type.ZADD, "z", text, m).number();
                    assertThat(added).as("seed %d step %d", seed, step).isEqualTo(model.put(m, s) == null ? 1 : 0);
                }
                case 2 -> {
                    double next = model.getOrDefault(m, 0.0) + s;
                    model.put(m, next);
                    assertThat(new String(run(KvOp.Type.ZINCRBY, "z", text, m).bytes(), StandardCharsets.UTF_8))
                            .as("seed %d step %d", seed, step).isEqualTo(ZSetMeta.format(next));
                }
                case 3 -> assertThat(run(KvOp.Type.ZREM, "z", m).number()).as("seed %d step %d", seed, step).isEqualTo(model.remove(m) == null ? 0 : 1);
                case 4 -> {
                    List<String> popped = strings(runArg(KvOp.Type.ZPOPMIN, "z", 1, KvOp.FLAG_COUNT));
                    List<Map.Entry<String, Double>> order = sorted(model);
                    if (order.isEmpty()) assertThat(popped).isEmpty();
                    else assertThat(popped).as("seed %d step %d", seed, step).containsExactly(order.get(0).getKey(), ZSetMeta.format(order.get(0).getValue()));
                    if (!order.isEmpty()) model.remove(order.get(0).getKey());
                }
                default -> {
                    long removed = runArg(KvOp.Type.ZREMRANGE, "z", 0, KvOp.FLAG_BYSCORE, "(" + text, "+inf").number();
                    long expected = model.values().stream().filter(v -> v > s).count();
                    model.values().removeIf(v -> v > s);
                    assertThat(removed).as("seed %d step %d", seed, step).isEqualTo(expected);
                }
            }
            List<String> withScores = strings(runArg(KvOp.Type.ZRANGE, "z", 0, KvOp.FLAG_WITHVALUES, 0L, -1L));
            List<String> expected = new ArrayList<>();
            for (Map.Entry<String, Double> e : sorted(model)) {
                expected.add(e.getKey());
                expected.add(ZSetMeta.format(e.getValue()));
            }
            assertThat(withScores).as("seed %d step %d", seed, step).isEqualTo(expected);
            assertThat(view.storedFields(BUCKET, b("z"))).as("seed %d step %d", seed, step).isEqualTo(2 * model.size());
        }
    }

    private static List<Map.Entry<String, Double>> sorted(Map<String, Double> model) {
        List<Map.Entry<String, Double>> order = new ArrayList<>(model.entrySet());
        order.sort(Comparator.<Map.Entry<String, Double>>comparingDouble(Map.Entry::getValue).thenComparing(Map.Entry::getKey));
        return order;
    }

    private static byte[] longBytes(long n) {
        return ByteBuffer.allocate(8).putLong(n).array();
    }
}
