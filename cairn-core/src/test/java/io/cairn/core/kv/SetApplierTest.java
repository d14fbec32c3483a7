package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** Set commands of {@link KvApplier} against Redis 7's replies, over an in-memory view. */
class SetApplierTest extends ApplierHarness {

    @Test
    void saddCountsNewMembersAndScardFollows() {
        assertThat(run(KvOp.Type.SADD, "s", "a", "b", "a").number()).isEqualTo(2);
        assertThat(run(KvOp.Type.SADD, "s", "b", "c").number()).isEqualTo(1);
        assertThat(run(KvOp.Type.SCARD, "s").number()).isEqualTo(3);
        assertThat(strings(run(KvOp.Type.SMEMBERS, "s"))).containsExactly("a", "b", "c");
        assertThat(run(KvOp.Type.SISMEMBER, "s", "b").number()).isEqualTo(1);
        assertThat(strings(run(KvOp.Type.SMISMEMBER, "s", "a", "x", "c"))).containsExactly("1", "0", "1");
        assertThat(strings(run(KvOp.Type.SMISMEMBER, "none", "a"))).containsExactly("0");
        assertThat(new String(run(KvOp.Type.TYPE, "s").bytes(), StandardCharsets.UTF_8)).isEqualTo("set");
    }

    @Test
    void removingTheLastMemberDeletesTheKey() {
        run(KvOp.Type.SADD, "s", "a", "b");
        assertThat(run(KvOp.Type.SREM, "s", "a", "zz", "a").number()).isEqualTo(1);
        assertThat(run(KvOp.Type.SREM, "s", "b").number()).isEqualTo(1);
        assertThat(run(KvOp.Type.EXISTS, "s").number()).isZero();
        assertThat(view.storedFields(BUCKET, b("s"))).isZero();
    }

    @Test
    void sinterSunionSdiffFollowRedisIncludingMissingKeys() {
        run(KvOp.Type.SADD, "k1", "a", "b", "c", "d");
        run(KvOp.Type.SADD, "k2", "c");
        run(KvOp.Type.SADD, "k3", "a", "c", "e");
        assertThat(strings(run(KvOp.Type.SINTER, "k1", "k2", "k3"))).containsExactly("c");
        assertThat(strings(run(KvOp.Type.SUNION, "k1", "k2", "k3"))).containsExactly("a", "b", "c", "d", "e");
        assertThat(strings(run(KvOp.Type.SDIFF, "k1", "k2", "k3"))).containsExactly("b", "d");
        assertThat(strings(run(KvOp.Type.SDIFF, "k1", "none"))).containsExactly("a", "b", "c", "d");
        assertThat(run(KvOp.Type.SINTER, "k1", "none").elements()).isEmpty();
        assertThat(runArg(KvOp.Type.SINTERCARD, "k1", 0, 0, "k3").number()).isEqualTo(2);
        assertThat(runArg(KvOp.Type.SINTERCARD, "k1", 1, 0, "k3").number()).isEqualTo(1);
    }

    @Test
    void aWrongTypeAnywhereIsWrongtypeEvenAfterAMissingKey() {
        applier.apply(KvOp.set(BUCKET, b("str"), b("v")), view, NOW);
        run(KvOp.Type.SADD, "k1", "a");
        assertThat(run(KvOp.Type.SINTER, "k1", "none", "str").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.SINTER, "k1", "str", "none").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.SUNION, "k1", "none", "str").error()).isEqualTo(ErrorCode.WRONG_TYPE);
    }

    @Test
    void storeFormsReplaceTheDestinationWhateverItHeld() {
        run(KvOp.Type.SADD, "k1", "a", "b");
        run(KvOp.Type.SADD, "k2", "b", "c");
        applier.apply(KvOp.set(BUCKET, b("dst"), b("a string")), view, NOW);
        assertThat(run(KvOp.Type.SUNIONSTORE, "dst", "k1", "k2").number()).isEqualTo(3);
        assertThat(strings(run(KvOp.Type.SMEMBERS, "dst"))).containsExactly("a", "b", "c");
        assertThat(run(KvOp.Type.SINTERSTORE, "dst", "k1", "k2").number()).isEqualTo(1);
        assertThat(strings(run(KvOp.Type.SMEMBERS, "dst"))).containsExactly("b");
        assertThat(view.storedFields(BUCKET, b("dst"))).isEqualTo(1);
        assertThat(run(KvOp.Type.SDIFFSTORE, "k1", "k1", "k1").number()).as("destination among the sources").isZero();
        assertThat(run(KvOp.Type.EXISTS, "k1").number()).isZero();
        assertThat(run(KvOp.Type.SINTERSTORE, "dst", "k2", "none").number()).isZero();
        assertThat(run(KvOp.Type.EXISTS, "dst").number()).isZero();
    }

    @Test
    void smoveMovesOneMemberAndChecksTypes() {
        run(KvOp.Type.SADD, "src", "a", "b");
        applier.apply(KvOp.set(BUCKET, b("str"), b("v")), view, NOW);
        assertThat(run(KvOp.Type.SMOVE, "src", "dst", "a").number()).isEqualTo(1);
        assertThat(run(KvOp.Type.SMOVE, "src", "dst", "zz").number()).isZero();
        assertThat(run(KvOp.Type.SMOVE, "src", "str", "b").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.SMOVE, "none", "str", "b").number()).as("a missing source answers 0 first").isZero();
        assertThat(run(KvOp.Type.SMOVE, "src", "src", "b").number()).isEqualTo(1);
        assertThat(strings(run(KvOp.Type.SMEMBERS, "src"))).containsExactly("b");
        assertThat(strings(run(KvOp.Type.SMEMBERS, "dst"))).containsExactly("a");
    }

    @Test
    void spopAndSrandmemberAreDeterministicInTheirSeed() {
        for (int i = 0; i < 20; i++) run(KvOp.Type.SADD, "s", "m" + i);
        long seed = 7;
        System.out.println("SetApplierTest seed " + seed);
        byte[] seedBytes = ByteBuffer.allocate(8).putLong(seed).array();
        KvOp distinct = new KvOp(KvOp.Type.SRANDMEMBER, BUCKET, b("s"), Packed.encode(List.of(seedBytes)), 5, KvOp.FLAG_COUNT);
        List<String> five = strings(applier.apply(distinct, view, NOW));
        assertThat(five).hasSize(5).doesNotHaveDuplicates().isEqualTo(strings(applier.apply(distinct, view, NOW)));
        KvOp repeats = new KvOp(KvOp.Type.SRANDMEMBER, BUCKET, b("s"), Packed.encode(List.of(seedBytes)), -50, KvOp.FLAG_COUNT);
        assertThat(strings(applier.apply(repeats, view, NOW))).hasSize(50);
        KvOp pop = new KvOp(KvOp.Type.SPOP, BUCKET, b("s"), Packed.encode(List.of(seedBytes)), 15, KvOp.FLAG_COUNT);
        List<String> popped = strings(applier.apply(pop, view, NOW));
        assertThat(popped).hasSize(15).doesNotHaveDuplicates();
        assertThat(run(KvOp.Type.SCARD, "s").number()).isEqualTo(5);
        for (String m : popped) assertThat(run(KvOp.Type.SISMEMBER, "s", m).number()).isZero();
        KvOp popAll = new KvOp(KvOp.Type.SPOP, BUCKET, b("s"), Packed.encode(List.of(seedBytes)), 100, KvOp.FLAG_COUNT);
        assertThat(strings(applier.apply(popAll, view, NOW))).hasSize(5);
        assertThat(run(KvOp.Type.EXISTS, "s").number()).isZero();
        KvOp popOne = new KvOp(KvOp.Type.SPOP, BUCKET, b("s"), Packed.encode(List.of(seedBytes)), 0, 0);
        assertThat(applier.apply(popOne, view, NOW)).isEqualTo(OpResult.NIL);
    }

    @Test
    void sscanVisitsEveryMemberOnceByCursor() {
        for (int i = 0; i < 300; i++) run(KvOp.Type.SADD, "s", "m" + i);
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        do {
            List<String> e = strings(runArg(KvOp.Type.SSCAN, "s", cursor, 0, 40L));
            cursor = Long.parseLong(e.get(0));
            for (String m : e.subList(1, e.size())) assertThat(seen.add(m)).as("member %s seen once", m).isTrue();
        } while (cursor != 0);
        assertThat(seen).hasSize(300);
    }

    @Test
    void wrongTypesAnswerWrongtypeAndChangeNothing() {
        run(KvOp.Type.RPUSH, "l", "a");
        var before = view.snapshot();
        assertThat(run(KvOp.Type.SADD, "l", "x").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.SMEMBERS, "l").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.LLEN, "s0").number()).isZero();
        run(KvOp.Type.SADD, "s0", "x");
        assertThat(run(KvOp.Type.LPUSH, "s0", "x").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(view.snapshot()).hasSize(before.size() + 1);
    }

    /** Random set commands against a java.util.TreeSet model; a failure prints the seed to replay. */
    @Test
    void randomCommandsAgreeWithASetModel() {
        long seed = Long.getLong("cairn.seed", new Random().nextLong());
        System.out.println("replay: -Dcairn.seed=" + seed + " -Dtest=SetApplierTest#randomCommandsAgreeWithASetModel seed " + seed);
        Random random = new Random(seed);
        TreeSet<String> a = new TreeSet<>();
        TreeSet<String> c = new TreeSet<>();
        for (int step = 0; step < 2_000; step++) {
            String m = "m" + random.nextInt(12);
            String key = random.nextBoolean() ? "a" : "c";
            TreeSet<String> model = key.equals("a") ? a : c;
            switch (random.nextInt(5)) {
                case 0 -> assertThat(run(KvOp.Type.SADD, key, m).number()).as("seed %d step %d", seed, step).isEqualTo(model.add(m) ? 1 : 0);
                case 1 -> assertThat(run(KvOp.Type.SREM, key, m).number()).as("seed %d step %d", seed, step).isEqualTo(model.remove(m) ? 1 : 0);
                case 2 -> {
                    TreeSet<String> inter = new TreeSet<>(a);
                    inter.retainAll(c);
                    assertThat(strings(run(KvOp.Type.SINTER, "a", "c"))).as("seed %d step %d", seed, step).containsExactlyElementsOf(inter);
                }
                case 3 -> {
                    TreeSet<String> diff = new TreeSet<>(a);
                    diff.removeAll(c);
                    assertThat(strings(run(KvOp.Type.SDIFF, "a", "c"))).as("seed %d step %d", seed, step).containsExactlyElementsOf(diff);
                }
                default -> {
                    long moved = run(KvOp.Type.SMOVE, "a", "c", m).number();
                    boolean had = a.remove(m);
                    if (had) c.add(m);
                    assertThat(moved).as("seed %d step %d", seed, step).isEqualTo(had ? 1 : 0);
                }
            }
            assertThat(strings(run(KvOp.Type.SMEMBERS, "a"))).as("seed %d step %d", seed, step).containsExactlyElementsOf(a);
            assertThat(run(KvOp.Type.SCARD, "c").number()).as("seed %d step %d", seed, step).isEqualTo(c.size());
            assertThat(view.storedFields(BUCKET, b("c"))).as("seed %d step %d", seed, step).isEqualTo(c.size());
        }
    }
}
