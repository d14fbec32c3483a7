package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The sorted-set algebra of {@link KvApplier} over an in-memory view: what a STORE form leaves behind, bounds, bad operations. */
class ZSetAlgebraApplierTest extends ApplierHarness {

    private OpResult algebra(KvOp.Type type, String key, int numKeys, String... args) {
        return runArg(type, key, numKeys, 0, (Object[]) args);
    }

    @Test
    void aStoreReplacesADestinationOfAnyTypeAndLeavesNoOldEntry() {
        run(KvOp.Type.HSET, "d", "f1", "v1", "f2", "v2", "f3", "v3");
        run(KvOp.Type.ZADD, "a", "1", "x", "2", "y");
        run(KvOp.Type.SADD, "s", "y", "z");
        assertThat(algebra(KvOp.Type.ZUNIONSTORE, "d", 2, "a", "s", "aggregate", "max").number()).isEqualTo(3);
        assertThat(new String(run(KvOp.Type.TYPE, "d").bytes(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("zset");
        assertThat(view.storedFields(BUCKET, b("d"))).as("two entries per member, no hash field left").isEqualTo(6);
        assertThat(strings(runArg(KvOp.Type.ZRANGE, "d", 0, KvOp.FLAG_WITHVALUES, 0L, -1L))).containsExactly("x", "1", "z", "1", "y", "2");
    }

    @Test
    void aStoreOverItsOwnSourceReadsTheSourceBeforeItWrites() {
        run(KvOp.Type.ZADD, "a", "1", "x", "2", "y");
        run(KvOp.Type.ZADD, "b", "5", "y");
        assertThat(algebra(KvOp.Type.ZINTERSTORE, "a", 2, "a", "b").number()).isEqualTo(1);
        assertThat(strings(runArg(KvOp.Type.ZRANGE, "a", 0, KvOp.FLAG_WITHVALUES, 0L, -1L))).containsExactly("y", "7");
        assertThat(view.storedFields(BUCKET, b("a"))).isEqualTo(2);
    }

    @Test
    void anEmptyResultDeletesTheDestinationAndItsExpiry() {
        run(KvOp.Type.ZADD, "d", "1", "old");
        runArg(KvOp.Type.PEXPIRE, "d", 60_000, 0);
        run(KvOp.Type.ZADD, "a", "1", "x");
        assertThat(algebra(KvOp.Type.ZDIFFSTORE, "d", 2, "a", "a").number()).isZero();
        assertThat(run(KvOp.Type.EXISTS, "d").number()).isZero();
        assertThat(view.storedFields(BUCKET, b("d"))).isZero();
        assertThat(algebra(KvOp.Type.ZUNIONSTORE, "d", 1, "a").number()).isEqualTo(1);
        assertThat(run(KvOp.Type.PTTL, "d").number()).as("a stored result has no expiry").isEqualTo(-1);
    }

    @Test
    void anExpiredSourceIsEmptyAndAnExpiredDestinationLeavesNothingBehind() {
        run(KvOp.Type.ZADD, "gone", "1", "x", "2", "y");
        runArg(KvOp.Type.PEXPIRE, "gone", 1, 0);
        run(KvOp.Type.ZADD, "a", "3", "y");
        OpResult later = applier.apply(new KvOp(KvOp.Type.ZUNIONSTORE, BUCKET, b("gone"),
                Packed.encode(List.of(b("gone"), b("a"))), 2, 0), view, NOW + 10);
        assertThat(later.number()).isEqualTo(1);
        assertThat(view.storedFields(BUCKET, b("gone"))).as("the expired set's entries were cleared").isEqualTo(2);
    }

    @Test
    void aWrongTypeSourceIsRefusedBeforeABadOptionAndNothingIsWritten() {
        run(KvOp.Type.ZADD, "a", "1", "x");
        run(KvOp.Type.SET, "str", "v");
        int before = view.size();
        assertThat(algebra(KvOp.Type.ZUNIONSTORE, "d", 2, "a", "str", "weights", "x", "y").error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(algebra(KvOp.Type.ZUNIONSTORE, "d", 1, "a", "weights", "x").message()).isEqualTo("weight value is not a float");
        assertThat(view.size()).isEqualTo(before);
    }

    @Test
    void malformedOperationsAreRefusedAlikeOnEveryReplica() {
        run(KvOp.Type.ZADD, "a", "1", "x");
        assertThat(algebra(KvOp.Type.ZUNION, "a", 3, "a").error()).isEqualTo(ErrorCode.PROTOCOL);
        assertThat(algebra(KvOp.Type.ZUNION, "a", 0, "a").error()).isEqualTo(ErrorCode.PROTOCOL);
        assertThat(applier.apply(new KvOp(KvOp.Type.ZINTER, BUCKET, b("a"), null, 1, 0), view, NOW).error()).isEqualTo(ErrorCode.PROTOCOL);
        assertThat(run(KvOp.Type.ZRANGESTORE, "d", "a").error()).as("no bounds").isEqualTo(ErrorCode.PROTOCOL);
        assertThat(runArg(KvOp.Type.ZRANGESTORE, "d", 0, KvOp.FLAG_BYSCORE, "a", "0", "1").error()).isEqualTo(ErrorCode.PROTOCOL);
        assertThat(run(KvOp.Type.EXISTS, "d").number()).isZero();
    }

    @Test
    void aUnionOverMoreSourceElementsThanTheBoundIsRefusedWhileAnIntersectionWalksOnlyTheSmallest() {
        List<Object> pairs = new ArrayList<>();
        long half = ZSetAlgebraApplier.MAX_INPUT_ELEMENTS / 2 + 1;
        for (long i = 0; i < half; i++) {
            pairs.add("1");
            pairs.add("m" + i);
        }
        run(KvOp.Type.ZADD, "big1", pairs.toArray());
        run(KvOp.Type.ZADD, "big2", pairs.toArray());
        run(KvOp.Type.ZADD, "small", "1", "m7", "1", "nope");
        OpResult refused = algebra(KvOp.Type.ZUNIONSTORE, "d", 2, "big1", "big2");
        assertThat(refused.error()).isEqualTo(ErrorCode.PROTOCOL);
        assertThat(refused.message()).contains("not supported by Cairn");
        assertThat(run(KvOp.Type.EXISTS, "d").number()).isZero();
        assertThat(algebra(KvOp.Type.ZINTERCARD, "big1", 3, "big1", "big2", "small").number()).isEqualTo(1);
    }
}
