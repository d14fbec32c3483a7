package io.cairn.core.kv;

import io.cairn.core.testing.SeededRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.cairn.core.kv.KvOp.FLAG_EXPIRE_ABS;
import static io.cairn.core.kv.KvOp.FLAG_EXPIRE_REL;
import static io.cairn.core.kv.KvOp.FLAG_GET;
import static io.cairn.core.kv.KvOp.FLAG_KEEPTTL;
import static io.cairn.core.kv.KvOp.FLAG_NX;
import static io.cairn.core.kv.KvOp.FLAG_XX;
import static io.cairn.core.kv.KvOp.Type.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Redis string semantics of SET, GET, DEL, expiry and TTL commands; see {@link KvApplierCountersTest} for the rest. */
@ExtendWith(SeededRandom.class)
class KvApplierTest {
    static final int BUCKET = 7;
    static final long NOW = 1_700_000_000_000L;

    private final InMemoryKvView view = new InMemoryKvView();
    private final KvApplier applier = new KvApplier(1024);

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static KvOp set(String key, String value, int flags, long arg) {
        return new KvOp(SET, BUCKET, bytes(key), bytes(value), arg, flags);
    }

    static KvOp op(KvOp.Type type, String key, long arg) {
        return new KvOp(type, BUCKET, bytes(key), null, arg, 0);
    }

    private OpResult apply(KvOp op, long nowMs) {
        return applier.apply(op, view, nowMs);
    }

    private OpResult get(String key, long nowMs) {
        return apply(op(GET, key, 0), nowMs);
    }

    private long pttl(String key, long nowMs) {
        return apply(op(PTTL, key, 0), nowMs).number();
    }

    @Test
    void setThenGetReturnsTheValue() {
        assertThat(apply(set("k", "v", 0, 0), NOW)).isEqualTo(OpResult.OK);
        assertThat(get("k", NOW)).isEqualTo(OpResult.bulk(bytes("v")));
        assertThat(pttl("k", NOW)).isEqualTo(-1);
    }

    @Test
    void getOfMissingKeyIsNil() {
        assertThat(get("missing", NOW)).isEqualTo(OpResult.NIL);
        assertThat(apply(op(EXISTS, "missing", 0), NOW)).isEqualTo(OpResult.integer(0));
        assertThat(apply(op(STRLEN, "missing", 0), NOW)).isEqualTo(OpResult.integer(0));
    }

    @Test
    void sameKeyInDifferentBucketsIsIndependent() {
        apply(set("k", "one", 0, 0), NOW);
        KvOp otherBucket = new KvOp(GET, BUCKET + 1, bytes("k"), null, 0, 0);
        assertThat(apply(otherBucket, NOW)).isEqualTo(OpResult.NIL);
    }

    @Test
    void setNxStoresOnlyWhenAbsent() {
        assertThat(apply(set("k", "first", FLAG_NX, 0), NOW)).isEqualTo(OpResult.OK);
        assertThat(apply(set("k", "second", FLAG_NX, 0), NOW)).isEqualTo(OpResult.NIL);
        assertThat(get("k", NOW)).isEqualTo(OpResult.bulk(bytes("first")));
    }

    @Test
    void setXxStoresOnlyWhenPresent() {
        assertThat(apply(set("k", "v", FLAG_XX, 0), NOW)).isEqualTo(OpResult.NIL);
        assertThat(view.size()).isZero();
        apply(set("k", "old", 0, 0), NOW);
        assertThat(apply(set("k", "new", FLAG_XX, 0), NOW)).isEqualTo(OpResult.OK);
        assertThat(get("k", NOW)).isEqualTo(OpResult.bulk(bytes("new")));
    }

    @Test
    void setGetReturnsThePreviousValue() {
        assertThat(apply(set("k", "a", FLAG_GET, 0), NOW)).isEqualTo(OpResult.NIL);
        assertThat(apply(set("k", "b", FLAG_GET, 0), NOW)).isEqualTo(OpResult.bulk(bytes("a")));
        assertThat(get("k", NOW)).isEqualTo(OpResult.bulk(bytes("b")));
    }

    @Test
    void setNxGetOnExistingKeyReturnsOldValueAndChangesNothing() {
        apply(set("k", "a", 0, 0), NOW);
        assertThat(apply(set("k", "b", FLAG_NX | FLAG_GET, 0), NOW)).isEqualTo(OpResult.bulk(bytes("a")));
        assertThat(get("k", NOW)).isEqualTo(OpResult.bulk(bytes("a")));
    }

    @Test
    void setWithoutTtlOptionClearsTheOldTtl() {
        apply(set("k", "a", FLAG_EXPIRE_REL, 5_000), NOW);
        apply(set("k", "b", 0, 0), NOW);
        assertThat(pttl("k", NOW)).isEqualTo(-1);
    }

    @Test
    void setKeepTtlKeepsTheOldTtl() {
        apply(set("k", "a", FLAG_EXPIRE_REL, 5_000), NOW);
        apply(set("k", "b", FLAG_KEEPTTL, 0), NOW + 1_000);
        assertThat(pttl("k", NOW + 1_000)).isEqualTo(4_000);
        assertThat(get("k", NOW + 1_000)).isEqualTo(OpResult.bulk(bytes("b")));
    }

    @Test
    void setKeepTtlOnKeyWithoutTtlStoresWithoutTtl() {
        apply(set("k", "b", FLAG_KEEPTTL, 0), NOW);
        assertThat(pttl("k", NOW)).isEqualTo(-1);
    }

    @Test
    void setWithRelativeExpiryExpiresAfterTheTtl() {
        apply(set("k", "v", FLAG_EXPIRE_REL, 100), NOW);
        assertThat(pttl("k", NOW)).isEqualTo(100);
        assertThat(get("k", NOW + 99)).isEqualTo(OpResult.bulk(bytes("v")));
        assertThat(get("k", NOW + 100)).isEqualTo(OpResult.NIL);
    }

    @Test
    void setWithAbsoluteExpiryInTheFutureStoresUntilThatTime() {
        apply(set("k", "v", FLAG_EXPIRE_ABS, NOW + 2_000), NOW);
        assertThat(pttl("k", NOW + 500)).isEqualTo(1_500);
        assertThat(get("k", NOW + 2_000)).isEqualTo(OpResult.NIL);
    }

    @Test
    void setWithAbsoluteExpiryInThePastDeletesTheKey() {
        apply(set("k", "old", 0, 0), NOW);
        assertThat(apply(set("k", "new", FLAG_EXPIRE_ABS, NOW - 1), NOW)).isEqualTo(OpResult.OK);
        assertThat(view.size()).isZero();
        assertThat(get("k", NOW)).isEqualTo(OpResult.NIL);
    }

    @Test
    void setGetWithAbsoluteExpiryInThePastReturnsOldValueAndDeletes() {
        apply(set("k", "old", 0, 0), NOW);
        assertThat(apply(set("k", "new", FLAG_GET | FLAG_EXPIRE_ABS, NOW), NOW)).isEqualTo(OpResult.bulk(bytes("old")));
        assertThat(view.size()).isZero();
    }

    @Test
    void expiredKeyReadsAsAbsent() {
        apply(set("k", "v", FLAG_EXPIRE_REL, 10), NOW);
        long later = NOW + 10;
        assertThat(get("k", later)).isEqualTo(OpResult.NIL);
        assertThat(apply(op(EXISTS, "k", 0), later)).isEqualTo(OpResult.integer(0));
        assertThat(apply(op(STRLEN, "k", 0), later)).isEqualTo(OpResult.integer(0));
        assertThat(pttl("k", later)).isEqualTo(-2);
    }

    @Test
    void setNxSucceedsOnAnExpiredKey() {
        apply(set("k", "old", FLAG_EXPIRE_REL, 10), NOW);
        assertThat(apply(set("k", "new", FLAG_NX | FLAG_GET, 0), NOW + 10)).isEqualTo(OpResult.NIL);
        assertThat(get("k", NOW + 10)).isEqualTo(OpResult.bulk(bytes("new")));
        assertThat(pttl("k", NOW + 10)).isEqualTo(-1);
    }

    @Test
    void delReturnsTheNumberOfKeysRemoved() {
        apply(set("k", "v", 0, 0), NOW);
        assertThat(apply(op(DEL, "k", 0), NOW)).isEqualTo(OpResult.integer(1));
        assertThat(apply(op(DEL, "k", 0), NOW)).isEqualTo(OpResult.integer(0));
        assertThat(view.size()).isZero();
    }

    @Test
    void delOfAnExpiredKeyReturnsZeroAndPurgesIt() {
        apply(set("k", "v", FLAG_EXPIRE_REL, 10), NOW);
        assertThat(apply(op(DEL, "k", 0), NOW + 10)).isEqualTo(OpResult.integer(0));
        assertThat(view.size()).isZero();
    }

    @Test
    void getDelReturnsTheValueAndDeletes() {
        apply(set("k", "v", 0, 0), NOW);
        assertThat(apply(op(GETDEL, "k", 0), NOW)).isEqualTo(OpResult.bulk(bytes("v")));
        assertThat(view.size()).isZero();
        assertThat(apply(op(GETDEL, "k", 0), NOW)).isEqualTo(OpResult.NIL);
    }

    @Test
    void pexpireSetsTheTtlOfAnExistingKey() {
        assertThat(apply(op(PEXPIRE, "k", 1_000), NOW)).isEqualTo(OpResult.integer(0));
        assertThat(view.size()).isZero();
        apply(set("k", "v", 0, 0), NOW);
        assertThat(apply(op(PEXPIRE, "k", 1_000), NOW)).isEqualTo(OpResult.integer(1));
        assertThat(pttl("k", NOW + 400)).isEqualTo(600);
        assertThat(get("k", NOW + 1_000)).isEqualTo(OpResult.NIL);
    }

    @Test
    void pexpireWithAConditionDeletesTheKeyOnlyWhenItHolds() {
        apply(set("k", "v", FLAG_EXPIRE_REL, 5_000), NOW);
        assertThat(apply(new KvOp(PEXPIRE, BUCKET, bytes("k"), null, -1, KvOp.FLAG_GT), NOW)).as("a past time is not later").isEqualTo(OpResult.integer(0));
        assertThat(pttl("k", NOW)).isEqualTo(5_000);
        assertThat(apply(new KvOp(PEXPIRE, BUCKET, bytes("k"), null, -1, KvOp.FLAG_LT), NOW)).isEqualTo(OpResult.integer(1));
        assertThat(view.size()).isZero();
    }

    @Test
    void pexpireOfZeroOrLessDeletesTheKey() {
        for (long ttl : new long[] {0, -1, Long.MIN_VALUE}) {
            apply(set("k", "v", 0, 0), NOW);
            assertThat(apply(op(PEXPIRE, "k", ttl), NOW)).as("ttl %d", ttl).isEqualTo(OpResult.integer(1));
            assertThat(view.size()).as("ttl %d", ttl).isZero();
        }
    }

    @Test
    void persistRemovesTheTtl() {
        assertThat(apply(op(PERSIST, "k", 0), NOW)).isEqualTo(OpResult.integer(0));
        apply(set("k", "v", 0, 0), NOW);
        assertThat(apply(op(PERSIST, "k", 0), NOW)).isEqualTo(OpResult.integer(0));
        apply(op(PEXPIRE, "k", 50), NOW);
        assertThat(apply(op(PERSIST, "k", 0), NOW)).isEqualTo(OpResult.integer(1));
        assertThat(pttl("k", NOW + 1_000_000)).isEqualTo(-1);
        assertThat(get("k", NOW + 1_000_000)).isEqualTo(OpResult.bulk(bytes("v")));
    }

    @Test
    void pttlIsMinusTwoForMissingMinusOneWithoutTtlElseRemaining() {
        assertThat(pttl("k", NOW)).isEqualTo(-2);
        apply(set("k", "v", 0, 0), NOW);
        assertThat(pttl("k", NOW)).isEqualTo(-1);
        apply(set("k", "v", FLAG_EXPIRE_REL, 3_000), NOW);
        assertThat(pttl("k", NOW + 1)).isEqualTo(2_999);
    }

    @Test
    void readOnlyOpsDoNotChangeTheStore() {
        apply(set("k", "v", FLAG_EXPIRE_REL, 10), NOW);
        var before = view.snapshot();
        for (KvOp.Type type : KvOp.Type.values()) {
            if (type.readOnly) apply(op(type, "k", 0), NOW + 100);
        }
        assertThat(view.snapshot()).isEqualTo(before);
    }

    @Test
    void sameOpsAtTheSameTimesGiveIdenticalStores(Random random) {
        List<KvOp> ops = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        long now = NOW;
        for (int i = 0; i < 2_000; i++) {
            ops.add(randomOp(random));
            now += random.nextInt(50);
            times.add(now);
        }
        InMemoryKvView a = new InMemoryKvView();
        InMemoryKvView b = new InMemoryKvView();
        for (int i = 0; i < ops.size(); i++) {
            OpResult ra = applier.apply(ops.get(i), a, times.get(i));
            OpResult rb = new KvApplier(1024).apply(ops.get(i), b, times.get(i));
            assertThat(rb).as("op %d %s", i, ops.get(i)).isEqualTo(ra);
        }
        assertThat(b.snapshot()).isEqualTo(a.snapshot());
    }

    private static KvOp randomOp(Random random) {
        // Collection commands carry packed arguments; HashApplierTest, ListApplierTest, SetApplierTest and ZSetApplierTest cover them.
        KvOp.Type[] types = java.util.Arrays.stream(KvOp.Type.values())
                .filter(t -> !KvOp.HASH_TYPES.contains(t) && !KvOp.LIST_TYPES.contains(t) && !KvOp.SET_TYPES.contains(t) && !KvOp.ZSET_TYPES.contains(t)).toArray(KvOp.Type[]::new);
        KvOp.Type type = types[random.nextInt(types.length)];
        String key = "k" + random.nextInt(8);
        String value = random.nextBoolean() ? Integer.toString(random.nextInt(100) - 50) : "s" + random.nextInt(10);
        int flags = random.nextInt(64);
        if ((flags & FLAG_EXPIRE_ABS) != 0) flags &= ~(FLAG_EXPIRE_REL | FLAG_KEEPTTL);
        long arg = switch (type) {
            case SET -> (flags & FLAG_EXPIRE_ABS) != 0 ? NOW + random.nextInt(100_000) : random.nextInt(500);
            case PEXPIRE -> random.nextInt(600) - 100;
            case INCRBY -> random.nextInt(21) - 10;
            default -> 0;
        };
        boolean withValue = type == SET || type == APPEND;
        return new KvOp(type, 1 + random.nextInt(2), bytes(key), withValue ? bytes(value) : null, arg, type == SET ? flags : 0);
    }

    @Test
    void delIfExpiredRemovesOnlyKeysThatAreExpiredWhenApplied() {
        apply(set("old", "a", FLAG_EXPIRE_REL, 1_000), NOW);
        apply(set("rewritten", "a", FLAG_EXPIRE_REL, 1_000), NOW);
        apply(set("rewritten", "b", 0, 0), NOW + 500); // written again after the sweeper saw it expire
        apply(set("plain", "c", 0, 0), NOW);

        assertThat(apply(op(KvOp.Type.DEL_IF_EXPIRED, "old", 0), NOW + 2_000)).isEqualTo(OpResult.integer(1));
        assertThat(apply(op(KvOp.Type.DEL_IF_EXPIRED, "rewritten", 0), NOW + 2_000)).isEqualTo(OpResult.integer(0));
        assertThat(apply(op(KvOp.Type.DEL_IF_EXPIRED, "plain", 0), NOW + 2_000)).isEqualTo(OpResult.integer(0));
        assertThat(apply(op(KvOp.Type.DEL_IF_EXPIRED, "missing", 0), NOW + 2_000)).isEqualTo(OpResult.integer(0));
        assertThat(view.size()).isEqualTo(2);
        assertThat(get("rewritten", NOW + 2_000)).isEqualTo(OpResult.bulk(bytes("b")));
    }
}
