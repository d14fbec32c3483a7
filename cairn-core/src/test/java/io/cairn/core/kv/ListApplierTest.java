package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** List commands of {@link KvApplier} against Redis 7's replies, over an in-memory view. */
class ListApplierTest extends ApplierHarness {

    private List<String> range(String key) {
        return strings(run(KvOp.Type.LRANGE, key, 0L, -1L));
    }

    @Test
    void pushesAtBothEndsKeepRedisOrder() {
        assertThat(run(KvOp.Type.RPUSH, "l", "a", "b").number()).isEqualTo(2);
        assertThat(run(KvOp.Type.LPUSH, "l", "x", "y").number()).isEqualTo(4);
        assertThat(range("l")).containsExactly("y", "x", "a", "b");
        assertThat(run(KvOp.Type.LLEN, "l").number()).isEqualTo(4);
        assertThat(runArg(KvOp.Type.LINDEX, "l", -1, 0).bytes()).isEqualTo(b("b"));
        assertThat(runArg(KvOp.Type.LINDEX, "l", 4, 0)).isEqualTo(OpResult.NIL);
        assertThat(strings(run(KvOp.Type.LRANGE, "l", 1L, 2L))).containsExactly("x", "a");
        assertThat(strings(run(KvOp.Type.LRANGE, "l", -100L, 100L))).hasSize(4);
        assertThat(run(KvOp.Type.LRANGE, "l", 3L, 1L).elements()).isEmpty();
        assertThat(new String(run(KvOp.Type.TYPE, "l").bytes(), StandardCharsets.UTF_8)).isEqualTo("list");
    }

    @Test
    void pushxWritesOnlyToAnExistingList() {
        assertThat(run(KvOp.Type.LPUSHX, "l", "a").number()).isZero();
        assertThat(run(KvOp.Type.RPUSHX, "l", "a").number()).isZero();
        assertThat(view.size()).isZero();
        run(KvOp.Type.RPUSH, "l", "a");
        assertThat(run(KvOp.Type.RPUSHX, "l", "b", "c").number()).isEqualTo(3);
    }

    @Test
    void popsWithAndWithoutCountFollowRedis7() {
        run(KvOp.Type.RPUSH, "l", "a", "b", "c");
        assertThat(run(KvOp.Type.LPOP, "l").bytes()).isEqualTo(b("a"));
        assertThat(strings(runArg(KvOp.Type.RPOP, "l", 5, KvOp.FLAG_COUNT))).containsExactly("c", "b");
        assertThat(run(KvOp.Type.EXISTS, "l").number()).as("the last pop deletes the key").isZero();
        assertThat(view.storedFields(BUCKET, b("l"))).isZero();
        assertThat(run(KvOp.Type.LPOP, "l")).isEqualTo(OpResult.NIL);
        assertThat(runArg(KvOp.Type.LPOP, "l", 2, KvOp.FLAG_COUNT)).as("nil array for a missing key").isEqualTo(OpResult.NIL);
        run(KvOp.Type.RPUSH, "l", "a");
        assertThat(runArg(KvOp.Type.LPOP, "l", 0, KvOp.FLAG_COUNT).elements()).isEmpty();
        assertThat(run(KvOp.Type.LLEN, "l").number()).isEqualTo(1);
    }

    @Test
    void lsetAnswersRedisErrors() {
        assertThat(runArg(KvOp.Type.LSET, "l", 0, 0, "x").error()).isEqualTo(ErrorCode.NO_SUCH_KEY);
        assertThat(runArg(KvOp.Type.LSET, "l", 0, 0, "x").message()).isEqualTo("no such key");
        run(KvOp.Type.RPUSH, "l", "a", "b");
        assertThat(runArg(KvOp.Type.LSET, "l", 2, 0, "x").message()).isEqualTo("index out of range");
        assertThat(runArg(KvOp.Type.LSET, "l", -2, 0, "x")).isEqualTo(OpResult.OK);
        assertThat(range("l")).containsExactly("x", "b");
    }

    @Test
    void linsertAnswersMinusOneForAMissingPivotAndZeroForAMissingKey() {
        assertThat(runArg(KvOp.Type.LINSERT, "l", 0, 0, "p", "x").number()).isZero();
        run(KvOp.Type.RPUSH, "l", "a", "b", "c", "d");
        assertThat(runArg(KvOp.Type.LINSERT, "l", 0, 0, "zz", "x").number()).isEqualTo(-1);
        assertThat(runArg(KvOp.Type.LINSERT, "l", 0, 0, "b", "x").number()).isEqualTo(5);
        assertThat(runArg(KvOp.Type.LINSERT, "l", 1, 0, "c", "y").number()).isEqualTo(6);
        assertThat(range("l")).containsExactly("a", "x", "b", "c", "y", "d");
    }

    @Test
    void lremCountsFromEitherEnd() {
        run(KvOp.Type.RPUSH, "l", "a", "x", "b", "x", "c", "x");
        assertThat(runArg(KvOp.Type.LREM, "l", -2, 0, "x").number()).isEqualTo(2);
        assertThat(range("l")).containsExactly("a", "x", "b", "c");
        assertThat(runArg(KvOp.Type.LREM, "l", 0, 0, "x").number()).isEqualTo(1);
        assertThat(runArg(KvOp.Type.LREM, "l", 0, 0, "nope").number()).isZero();
        assertThat(range("l")).containsExactly("a", "b", "c");
        assertThat(view.storedFields(BUCKET, b("l"))).as("no orphaned elements").isEqualTo(3);
    }

    @Test
    void ltrimKeepsTheRangeOrDeletesTheKey() {
        run(KvOp.Type.RPUSH, "l", "a", "b", "c", "d", "e");
        assertThat(run(KvOp.Type.LTRIM, "l", 1L, -2L)).isEqualTo(OpResult.OK);
        assertThat(range("l")).containsExactly("b", "c", "d");
        assertThat(run(KvOp.Type.LTRIM, "l", 5L, 10L)).isEqualTo(OpResult.OK);
        assertThat(run(KvOp.Type.EXISTS, "l").number()).isZero();
        assertThat(view.storedFields(BUCKET, b("l"))).isZero();
    }

    @Test
    void lposFollowsTheRedisDocumentationExamples() {
        run(KvOp.Type.RPUSH, "l", "a", "b", "c", "d", "1", "2", "3", "4", "3", "3", "3");
        assertThat(lpos("3", 1, 0, 0, false).number()).isEqualTo(6);
        assertThat(strings(lpos("3", 1, 0, 0, true))).containsExactly("6", "8", "9", "10");
        assertThat(strings(lpos("3", 1, 2, 0, true))).containsExactly("6", "8");
        assertThat(strings(lpos("3", -1, 2, 0, true))).containsExactly("10", "9");
        assertThat(lpos("3", 2, 0, 0, false).number()).isEqualTo(8);
        assertThat(strings(lpos("3", 1, 0, 7, true))).containsExactly("6");
        assertThat(lpos("zz", 1, 0, 0, false)).isEqualTo(OpResult.NIL);
    }

    private OpResult lpos(String element, long rank, long count, long maxLen, boolean withCount) {
        return runArg(KvOp.Type.LPOS, "l", 0, withCount ? KvOp.FLAG_COUNT : 0, element, rank, count, maxLen);
    }

    @Test
    void lmoveMovesBetweenListsAndRotatesOne() {
        run(KvOp.Type.RPUSH, "src", "a", "b", "c");
        assertThat(runArg(KvOp.Type.LMOVE, "src", KvOp.LMOVE_FROM_RIGHT, 0, "dst").bytes()).isEqualTo(b("c"));
        assertThat(runArg(KvOp.Type.LMOVE, "src", KvOp.LMOVE_TO_RIGHT, 0, "dst").bytes()).isEqualTo(b("a"));
        assertThat(range("src")).containsExactly("b");
        assertThat(range("dst")).containsExactly("c", "a");
        assertThat(runArg(KvOp.Type.LMOVE, "dst", KvOp.LMOVE_FROM_RIGHT, 0, "dst").bytes()).isEqualTo(b("a"));
        assertThat(range("dst")).containsExactly("a", "c");
        assertThat(runArg(KvOp.Type.LMOVE, "none", 0, 0, "dst")).isEqualTo(OpResult.NIL);
        runArg(KvOp.Type.LMOVE, "src", 0, 0, "dst");
        assertThat(run(KvOp.Type.EXISTS, "src").number()).isZero();
    }

    @Test
    void wrongTypesAnswerWrongtypeAndChangeNothing() {
        applier.apply(KvOp.set(BUCKET, b("s"), b("v")), view, NOW);
        run(KvOp.Type.RPUSH, "l", "a");
        var before = view.snapshot();
        assertThat(run(KvOp.Type.LPUSH, "s", "x").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.LRANGE, "s", 0L, -1L).message()).isEqualTo("Operation against a key holding the wrong kind of value");
        assertThat(runArg(KvOp.Type.LMOVE, "l", 0, 0, "s").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.HGET, "l", "f").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(applier.apply(KvOp.get(BUCKET, b("l")), view, NOW).error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(view.snapshot()).isEqualTo(before);
        assertThat(range("l")).containsExactly("a");
    }

    @Test
    void anExpiredListIsGoneAndANewOneUnderItsNameStartsEmpty() {
        run(KvOp.Type.RPUSH, "l", "old1", "old2");
        applier.apply(new KvOp(KvOp.Type.PEXPIRE, BUCKET, b("l"), null, 100, 0), view, NOW);
        KvOp push = new KvOp(KvOp.Type.RPUSH, BUCKET, b("l"), Packed.encode(List.of(b("new"))), 0, 0);
        assertThat(applier.apply(push, view, NOW + 200).number()).isEqualTo(1);
        KvOp all = new KvOp(KvOp.Type.LRANGE, BUCKET, b("l"), Packed.encode(List.of(longBytes(0), longBytes(-1))), 0, 0);
        assertThat(strings(applier.apply(all, view, NOW + 200))).containsExactly("new");
        assertThat(view.storedFields(BUCKET, b("l"))).isEqualTo(1);
    }

    @Test
    void setOverAListAndDelRemoveEveryElement() {
        run(KvOp.Type.RPUSH, "l", "a", "b");
        applier.apply(KvOp.set(BUCKET, b("l"), b("v")), view, NOW);
        assertThat(view.storedFields(BUCKET, b("l"))).isZero();
        run(KvOp.Type.RPUSH, "l2", "a", "b");
        applier.apply(KvOp.of(KvOp.Type.DEL, BUCKET, b("l2")), view, NOW);
        assertThat(view.storedFields(BUCKET, b("l2"))).isZero();
    }

    @Test
    void theMoveFormCarriesTheHeadAndEveryElement() {
        run(KvOp.Type.RPUSH, "l", "a", "b");
        run(KvOp.Type.LPUSH, "l", "z");
        byte[] meta = view.get(BUCKET, b("l"));
        byte[] form = CollectionMeta.packForMove(meta, view.fields(BUCKET, b("l")));
        InMemoryKvView other = new InMemoryKvView();
        other.put(BUCKET, b("l"), CollectionMeta.metaOfMoveForm(form));
        for (KvView.Field f : CollectionMeta.fieldsOfMoveForm(form)) other.putField(BUCKET, b("l"), f.name(), f.value());
        KvOp all = new KvOp(KvOp.Type.LRANGE, BUCKET, b("l"), Packed.encode(List.of(longBytes(0), longBytes(-1))), 0, 0);
        assertThat(strings(applier.apply(all, other, NOW))).containsExactly("z", "a", "b");
    }

    /** Random list commands against a java.util.List model; a failure prints the seed to replay. */
    @Test
    void randomCommandsAgreeWithAListModel() {
        long seed = Long.getLong("cairn.seed", new Random().nextLong());
        System.out.println("replay: -Dcairn.seed=" + seed + " -Dtest=ListApplierTest#randomCommandsAgreeWithAListModel seed " + seed);
        Random random = new Random(seed);
        List<String> model = new ArrayList<>();
        for (int step = 0; step < 3_000; step++) {
            String e = "e" + random.nextInt(6);
            long i = random.nextInt(14) - 7;
            long j = random.nextInt(14) - 7;
            switch (random.nextInt(9)) {
                case 0 -> { run(KvOp.Type.LPUSH, "l", e); model.add(0, e); }
                case 1 -> { run(KvOp.Type.RPUSH, "l", e); model.add(e); }
                case 2 -> assertThat(str(run(KvOp.Type.LPOP, "l"))).as("seed %d step %d", seed, step).isEqualTo(model.isEmpty() ? null : model.remove(0));
                case 3 -> assertThat(str(run(KvOp.Type.RPOP, "l"))).as("seed %d step %d", seed, step)
                        .isEqualTo(model.isEmpty() ? null : model.remove(model.size() - 1));
                case 4 -> {
                    long at = i < 0 ? model.size() + i : i;
                    boolean ok = at >= 0 && at < model.size();
                    OpResult r = runArg(KvOp.Type.LSET, "l", i, 0, e);
                    assertThat(r.isError()).as("seed %d step %d", seed, step).isEqualTo(!ok);
                    if (ok) model.set((int) at, e);
                }
                case 5 -> {
                    boolean after = random.nextBoolean();
                    int p = model.indexOf(e);
                    OpResult r = runArg(KvOp.Type.LINSERT, "l", after ? 1 : 0, 0, e, "n" + step);
                    if (p >= 0) model.add(after ? p + 1 : p, "n" + step);
                    assertThat(r.number()).as("seed %d step %d", seed, step).isEqualTo(model.isEmpty() ? 0 : p < 0 ? -1 : model.size());
                }
                case 6 -> {
                    long removed = runArg(KvOp.Type.LREM, "l", i, 0, e).number();
                    assertThat(removed).as("seed %d step %d", seed, step).isEqualTo(lrem(model, e, i));
                }
                case 7 -> {
                    if (random.nextInt(10) == 0) {
                        run(KvOp.Type.LTRIM, "l", i, j);
                        List<String> kept = slice(model, i, j);
                        model.clear();
                        model.addAll(kept);
                    }
                }
                default -> assertThat(strings(run(KvOp.Type.LRANGE, "l", i, j))).as("seed %d step %d", seed, step).isEqualTo(slice(model, i, j));
            }
            assertThat(range("l")).as("seed %d step %d", seed, step).isEqualTo(model);
            assertThat(view.storedFields(BUCKET, b("l"))).as("seed %d step %d", seed, step).isEqualTo(model.size());
        }
    }

    private static String str(OpResult r) {
        return r.bytes() == null ? null : new String(r.bytes(), StandardCharsets.UTF_8);
    }

    private static long lrem(List<String> model, String e, long count) {
        long removed = 0;
        long limit = count == 0 ? Long.MAX_VALUE : Math.abs(count);
        if (count >= 0) {
            for (int k = 0; k < model.size() && removed < limit; ) {
                if (model.get(k).equals(e)) { model.remove(k); removed++; } else k++;
            }
        } else {
            for (int k = model.size() - 1; k >= 0 && removed < limit; k--) {
                if (model.get(k).equals(e)) { model.remove(k); removed++; }
            }
        }
        return removed;
    }

    private static List<String> slice(List<String> model, long start, long stop) {
        int n = model.size();
        if (start < 0) start = Math.max(0, n + start);
        if (stop < 0) stop = n + stop;
        if (start > stop || start >= n) return List.of();
        return new ArrayList<>(model.subList((int) start, (int) Math.min(stop, n - 1) + 1));
    }

    private static byte[] longBytes(long n) {
        return ByteBuffer.allocate(8).putLong(n).array();
    }
}
