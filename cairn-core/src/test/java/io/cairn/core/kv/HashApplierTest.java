package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Hash commands of {@link KvApplier} against Redis 7's replies, over an in-memory view. */
class HashApplierTest {
    private static final int BUCKET = 7;
    private final KvApplier applier = new KvApplier(1 << 20);
    private final InMemoryKvView view = new InMemoryKvView();

    private OpResult run(KvOp.Type type, String key, long arg, int flags, String... args) {
        List<byte[]> packed = new ArrayList<>();
        for (String a : args) packed.add(b(a));
        return applier.apply(new KvOp(type, BUCKET, b(key), Packed.encode(packed), arg, flags), view, 1_000);
    }

    private OpResult run(KvOp.Type type, String key, String... args) {
        return run(type, key, 0, 0, args);
    }

    private OpResult runAt(KvOp op, long nowMs) {
        return applier.apply(op, view, nowMs);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> strings(OpResult r) {
        return r.elements().stream().map(e -> e == null ? null : new String(e, StandardCharsets.UTF_8)).toList();
    }

    @Test
    void hsetCountsNewFieldsOnceAndHlenFollows() {
        assertThat(run(KvOp.Type.HSET, "h", "a", "1", "b", "2", "a", "3").number()).isEqualTo(2);
        assertThat(run(KvOp.Type.HSET, "h", "a", "4", "c", "5").number()).isEqualTo(1);
        assertThat(run(KvOp.Type.HLEN, "h").number()).isEqualTo(3);
        assertThat(strings(run(KvOp.Type.HGETALL, "h"))).containsExactly("a", "4", "b", "2", "c", "5");
        assertThat(strings(run(KvOp.Type.HMGET, "h", "c", "nope", "a"))).containsExactly("5", null, "4");
        assertThat(run(KvOp.Type.HSTRLEN, "h", "a").number()).isEqualTo(1);
        assertThat(run(KvOp.Type.HEXISTS, "h", "zz").number()).isZero();
    }

    @Test
    void removingTheLastFieldDeletesTheKey() {
        run(KvOp.Type.HSET, "h", "a", "1", "b", "2");
        assertThat(run(KvOp.Type.HDEL, "h", "a", "a", "x").number()).isEqualTo(1);
        assertThat(run(KvOp.Type.HDEL, "h", "b").number()).isEqualTo(1);
        assertThat(run(KvOp.Type.EXISTS, "h").number()).isZero();
        assertThat(view.size()).isZero();
        assertThat(view.storedFields(BUCKET, b("h"))).isZero();
    }

    @Test
    void stringAndHashCommandsRefuseEachOthersKeysWithRedisText() {
        applier.apply(KvOp.set(BUCKET, b("s"), b("v")), view, 1_000);
        run(KvOp.Type.HSET, "h", "f", "v");
        OpResult onString = run(KvOp.Type.HGET, "s", "f");
        assertThat(onString.error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(ErrorCode.WRONG_TYPE.redisPrefix + " " + onString.message())
                .isEqualTo("WRONGTYPE Operation against a key holding the wrong kind of value");
        assertThat(applier.apply(KvOp.get(BUCKET, b("h")), view, 1_000).error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(applier.apply(new KvOp(KvOp.Type.INCRBY, BUCKET, b("h"), null, 1, 0), view, 1_000).error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(new String(run(KvOp.Type.TYPE, "h").bytes(), StandardCharsets.UTF_8)).isEqualTo("hash");
        assertThat(new String(run(KvOp.Type.TYPE, "s").bytes(), StandardCharsets.UTF_8)).isEqualTo("string");
        assertThat(new String(run(KvOp.Type.TYPE, "none").bytes(), StandardCharsets.UTF_8)).isEqualTo("none");
    }

    @Test
    void setOverAHashReplacesItAndLeavesNoFieldBehind() {
        run(KvOp.Type.HSET, "h", "f", "v", "g", "w");
        applier.apply(KvOp.set(BUCKET, b("h"), b("plain")), view, 1_000);
        assertThat(view.storedFields(BUCKET, b("h"))).isZero();
        assertThat(applier.apply(KvOp.get(BUCKET, b("h")), view, 1_000).bytes()).isEqualTo(b("plain"));
    }

    @Test
    void anExpiredHashReadsAsAbsentAndIsRecreatedEmpty() {
        run(KvOp.Type.HSET, "h", "old", "1");
        runAt(new KvOp(KvOp.Type.PEXPIRE, BUCKET, b("h"), null, 500, 0), 1_000);
        assertThat(runAt(KvOp.of(KvOp.Type.PTTL, BUCKET, b("h")), 1_200).number()).isEqualTo(300);
        assertThat(runAt(new KvOp(KvOp.Type.HLEN, BUCKET, b("h"), Packed.encode(List.of()), 0, 0), 1_500).number()).isZero();
        runAt(new KvOp(KvOp.Type.HSET, BUCKET, b("h"), Packed.encode(List.of(b("new"), b("2"))), 0, 0), 1_600);
        OpResult all = runAt(new KvOp(KvOp.Type.HGETALL, BUCKET, b("h"), Packed.encode(List.of()), 0, 0), 1_600);
        assertThat(strings(all)).containsExactly("new", "2");
        assertThat(runAt(KvOp.of(KvOp.Type.PTTL, BUCKET, b("h")), 1_600).number()).as("a new key has no TTL").isEqualTo(-1);
    }

    @Test
    void theSweepersDeleteRemovesTheFieldsOfAnExpiredHash() {
        run(KvOp.Type.HSET, "h", "a", "1", "b", "2");
        runAt(new KvOp(KvOp.Type.PEXPIRE, BUCKET, b("h"), null, 10, 0), 1_000);
        assertThat(runAt(KvOp.of(KvOp.Type.DEL_IF_EXPIRED, BUCKET, b("h")), 2_000).number()).isEqualTo(1);
        assertThat(view.storedFields(BUCKET, b("h"))).isZero();
        assertThat(view.size()).isZero();
    }

    @Test
    void hincrbyFollowsRedisErrors() {
        run(KvOp.Type.HSET, "h", "n", "10", "s", "abc", "max", Long.toString(Long.MAX_VALUE));
        assertThat(run(KvOp.Type.HINCRBY, "h", -15, 0, "n").number()).isEqualTo(-5);
        assertThat(run(KvOp.Type.HINCRBY, "h", 3, 0, "fresh").number()).isEqualTo(3);
        assertThat(run(KvOp.Type.HINCRBY, "h", 1, 0, "s").message()).isEqualTo("hash value is not an integer");
        assertThat(run(KvOp.Type.HINCRBY, "h", 1, 0, "max").message()).isEqualTo("increment or decrement would overflow");
        assertThat(run(KvOp.Type.HLEN, "h").number()).isEqualTo(4);
    }

    @Test
    void hincrbyfloatPrintsAsRedisDoes() {
        run(KvOp.Type.HSET, "h", "f", "10.50", "e", "5.0e3", "bad", "x");
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "f", "0.1").bytes()).isEqualTo(b("10.6"));
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "f", "-5").bytes()).isEqualTo(b("5.6"));
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "e", "2.0e2").bytes()).isEqualTo(b("5200"));
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "z", "3").bytes()).isEqualTo(b("3"));
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "bad", "1").message()).isEqualTo("hash value is not a float");
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "f", "abc").message()).isEqualTo("value is not a valid float");
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "f", "nan").message()).isEqualTo("value is not a valid float");
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "f", "inf").message()).isEqualTo("value is NaN or Infinity");
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "f", "1.2e4932").message()).as("beyond LDBL_MAX").isEqualTo("value is not a valid float");
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "f", "1e-20").bytes()).as("17 decimals at most").isEqualTo(b("5.6"));
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "p", "1.23456789012345678901").bytes()).isEqualTo(b("1.23456789012345679"));
        run(KvOp.Type.HSET, "h", "huge", "1e4932", "infinite", "inf");
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "huge", "1e4932").message()).isEqualTo("increment would produce NaN or Infinity");
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "infinite", "1").message()).isEqualTo("increment would produce NaN or Infinity");
        assertThat(run(KvOp.Type.HGET, "h", "f").bytes()).as("a refused increment changes nothing").isEqualTo(b("5.6"));
    }

    @Test
    void hsetnxWritesOnlyANewField() {
        assertThat(run(KvOp.Type.HSETNX, "h", "f", "1").number()).isEqualTo(1);
        assertThat(run(KvOp.Type.HSETNX, "h", "f", "2").number()).isZero();
        assertThat(run(KvOp.Type.HGET, "h", "f").bytes()).isEqualTo(b("1"));
    }

    @Test
    void hrandfieldHonoursCountSignAndWithValues() {
        long seed = 42;
        System.out.println("HashApplierTest seed " + seed);
        for (int i = 0; i < 10; i++) run(KvOp.Type.HSET, "h", "f" + i, "v" + i);
        byte[] seedBytes = ByteBuffer.allocate(8).putLong(seed).array();
        KvOp one = new KvOp(KvOp.Type.HRANDFIELD, BUCKET, b("h"), seedBytes, 0, 0);
        assertThat(new String(runAt(one, 1_000).bytes(), StandardCharsets.UTF_8)).startsWith("f");
        KvOp distinct = new KvOp(KvOp.Type.HRANDFIELD, BUCKET, b("h"), seedBytes, 5, KvOp.FLAG_COUNT);
        List<String> five = strings(runAt(distinct, 1_000));
        assertThat(five).hasSize(5).doesNotHaveDuplicates();
        KvOp all = new KvOp(KvOp.Type.HRANDFIELD, BUCKET, b("h"), seedBytes, 50, KvOp.FLAG_COUNT);
        assertThat(strings(runAt(all, 1_000))).hasSize(10).doesNotHaveDuplicates();
        KvOp repeats = new KvOp(KvOp.Type.HRANDFIELD, BUCKET, b("h"), seedBytes, -30, KvOp.FLAG_COUNT | KvOp.FLAG_WITHVALUES);
        List<String> pairs = strings(runAt(repeats, 1_000));
        assertThat(pairs).hasSize(60);
        for (int i = 0; i < 60; i += 2) assertThat(pairs.get(i + 1)).isEqualTo("v" + pairs.get(i).substring(1));
        KvOp missing = new KvOp(KvOp.Type.HRANDFIELD, BUCKET, b("nokey"), seedBytes, 3, KvOp.FLAG_COUNT);
        assertThat(runAt(missing, 1_000).elements()).isEmpty();
        assertThat(runAt(new KvOp(KvOp.Type.HRANDFIELD, BUCKET, b("nokey"), seedBytes, 0, 0), 1_000)).isEqualTo(OpResult.NIL);
    }

    @Test
    void hscanOfABigHashVisitsEveryFieldOnceByCursor() {
        for (int i = 0; i < 600; i++) run(KvOp.Type.HSET, "h", "f" + i, "v" + i);
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        int calls = 0;
        do {
            byte[] count = ByteBuffer.allocate(8).putLong(25).array();
            OpResult page = runAt(new KvOp(KvOp.Type.HSCAN, BUCKET, b("h"), Packed.encode(List.of(count)), cursor, 0), 1_000);
            List<String> e = strings(page);
            cursor = Long.parseLong(e.get(0));
            for (int i = 1; i < e.size(); i += 2) assertThat(seen.add(e.get(i))).as("field %s seen once", e.get(i)).isTrue();
            calls++;
        } while (cursor != 0);
        assertThat(seen).hasSize(600);
        assertThat(calls).isEqualTo(24);
    }

    @Test
    void hscanOfASmallHashReturnsItWholeAsRedisListpacksDo() {
        for (int i = 0; i < 512; i++) run(KvOp.Type.HSET, "h", "f" + i, "v");
        byte[] count = ByteBuffer.allocate(8).putLong(2).array();
        List<String> e = strings(runAt(new KvOp(KvOp.Type.HSCAN, BUCKET, b("h"), Packed.encode(List.of(count)), 0, 0), 1_000));
        assertThat(e.get(0)).isEqualTo("0");
        assertThat(e).hasSize(1 + 2 * 512);
    }

    @Test
    void aMalformedOperationIsRefusedBeforeItWritesAnything() {
        run(KvOp.Type.HSET, "h", "a", "1");
        var before = view.snapshot();
        assertThat(run(KvOp.Type.HINCRBYFLOAT, "h", "a").error()).isEqualTo(ErrorCode.PROTOCOL);
        assertThat(runAt(new KvOp(KvOp.Type.HSET, BUCKET, b("h"), new byte[] {0, 0, 0, 9}, 0, 0), 1_000).error()).isEqualTo(ErrorCode.PROTOCOL);
        assertThat(view.snapshot()).isEqualTo(before);
    }

    @Test
    void theMoveFormCarriesMetadataAndEveryField() {
        run(KvOp.Type.HSET, "h", "a", "1", "b", "2");
        byte[] meta = view.get(BUCKET, b("h"));
        byte[] form = HashMeta.packForMove(meta, view.fields(BUCKET, b("h")));
        assertThat(HashMeta.metaOfMoveForm(form)).isEqualTo(meta);
        assertThat(HashMeta.fieldsOfMoveForm(form)).extracting(f -> new String(f.name(), StandardCharsets.UTF_8) + "=" + new String(f.value(), StandardCharsets.UTF_8))
                .containsExactly("a=1", "b=2");
        assertThat(Arrays.copyOf(form, 1)[0]).isEqualTo(StoredValue.TYPE_HASH);
    }
}
