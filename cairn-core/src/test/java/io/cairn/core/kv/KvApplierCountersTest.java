package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static io.cairn.core.kv.KvApplierTest.BUCKET;
import static io.cairn.core.kv.KvApplierTest.NOW;
import static io.cairn.core.kv.KvApplierTest.bytes;
import static io.cairn.core.kv.KvApplierTest.op;
import static io.cairn.core.kv.KvApplierTest.set;
import static io.cairn.core.kv.KvOp.FLAG_EXPIRE_REL;
import static io.cairn.core.kv.KvOp.Type.*;
import static org.assertj.core.api.Assertions.assertThat;

/** INCRBY with Redis integer parsing, APPEND, and the value size limit. */
class KvApplierCountersTest {
    private static final int MAX_VALUE_BYTES = 32;

    private final InMemoryKvView view = new InMemoryKvView();
    private final KvApplier applier = new KvApplier(MAX_VALUE_BYTES);

    private OpResult apply(KvOp op) {
        return applier.apply(op, view, NOW);
    }

    private OpResult incrBy(String key, long delta) {
        return apply(op(INCRBY, key, delta));
    }

    private OpResult append(String key, String value) {
        return apply(new KvOp(APPEND, BUCKET, bytes(key), bytes(value), 0, 0));
    }

    private OpResult get(String key) {
        return apply(op(GET, key, 0));
    }

    @Test
    void incrByOnMissingKeyStartsFromZero() {
        assertThat(incrBy("n", 5)).isEqualTo(OpResult.integer(5));
        assertThat(get("n")).isEqualTo(OpResult.bulk(bytes("5")));
        assertThat(incrBy("n", -12)).isEqualTo(OpResult.integer(-7));
        assertThat(get("n")).isEqualTo(OpResult.bulk(bytes("-7")));
    }

    @Test
    void incrByOnNonIntegerIsAnErrorAndChangesNothing() {
        apply(set("n", "abc", 0, 0));
        var before = view.snapshot();
        OpResult result = incrBy("n", 1);
        assertThat(result.isError()).isTrue();
        assertThat(result.error()).isEqualTo(ErrorCode.NOT_INTEGER);
        assertThat(view.snapshot()).isEqualTo(before);
    }

    @Test
    void incrByOverflowIsAnErrorAndChangesNothing() {
        String max = Long.toString(Long.MAX_VALUE);
        String min = Long.toString(Long.MIN_VALUE);
        assertThat(apply(set("max", max, 0, 0))).isEqualTo(OpResult.OK);
        assertThat(apply(set("min", min, 0, 0))).isEqualTo(OpResult.OK);
        assertThat(incrBy("max", 1).error()).isEqualTo(ErrorCode.NOT_INTEGER);
        assertThat(incrBy("min", -1).error()).isEqualTo(ErrorCode.NOT_INTEGER);
        assertThat(get("max")).isEqualTo(OpResult.bulk(bytes(max)));
        assertThat(get("min")).isEqualTo(OpResult.bulk(bytes(min)));
        assertThat(incrBy("max", Long.MIN_VALUE)).isEqualTo(OpResult.integer(-1));
    }

    @Test
    void incrByKeepsTheTtl() {
        apply(set("n", "10", FLAG_EXPIRE_REL, 5_000));
        incrBy("n", 1);
        assertThat(apply(op(PTTL, "n", 0))).isEqualTo(OpResult.integer(5_000));
    }

    @Test
    void incrByOnAnExpiredKeyStartsFromZeroWithoutTtl() {
        apply(set("n", "10", FLAG_EXPIRE_REL, 5));
        assertThat(applier.apply(op(INCRBY, "n", 3), view, NOW + 5)).isEqualTo(OpResult.integer(3));
        assertThat(applier.apply(op(PTTL, "n", 0), view, NOW + 5)).isEqualTo(OpResult.integer(-1));
    }

    @ParameterizedTest
    @ValueSource(strings = {" 1", "1 ", "+1", "01", "00", "-0", "-01", "", "-", "1.0", "1e3", "0x10", "1_000", "1 2",
            "9223372036854775808", "-9223372036854775809", "99999999999999999999", "\t1", "1\n"})
    void redisRejectsTheseIntegers(String text) {
        assertThat(KvApplier.parseLong(bytes(text))).as("'%s'", text).isNull();
        assertThat(apply(set("n", text, 0, 0))).isEqualTo(OpResult.OK);
        assertThat(incrBy("n", 1).error()).as("'%s'", text).isEqualTo(ErrorCode.NOT_INTEGER);
    }

    @ParameterizedTest
    @CsvSource({"0, 0", "7, 7", "-7, -7", "10, 10", "100, 100",
            "9223372036854775807, 9223372036854775807", "-9223372036854775808, -9223372036854775808"})
    void redisAcceptsTheseIntegers(String text, long value) {
        assertThat(KvApplier.parseLong(bytes(text))).isEqualTo(value);
    }

    @Test
    void nonAsciiDigitsAreNotIntegers() {
        assertThat(KvApplier.parseLong(bytes("١٢"))).isNull();
        assertThat(KvApplier.parseLong(new byte[] {'1', (byte) 0xFF})).isNull();
    }

    @Test
    void appendCreatesAMissingKey() {
        assertThat(append("s", "abc")).isEqualTo(OpResult.integer(3));
        assertThat(get("s")).isEqualTo(OpResult.bulk(bytes("abc")));
        assertThat(apply(op(PTTL, "s", 0))).isEqualTo(OpResult.integer(-1));
    }

    @Test
    void appendExtendsAndKeepsTheTtl() {
        apply(set("s", "ab", FLAG_EXPIRE_REL, 900));
        assertThat(append("s", "cd")).isEqualTo(OpResult.integer(4));
        assertThat(get("s")).isEqualTo(OpResult.bulk(bytes("abcd")));
        assertThat(apply(op(STRLEN, "s", 0))).isEqualTo(OpResult.integer(4));
        assertThat(apply(op(PTTL, "s", 0))).isEqualTo(OpResult.integer(900));
    }

    @Test
    void appendOfNothingReturnsTheCurrentLength() {
        apply(set("s", "xyz", 0, 0));
        assertThat(append("s", "")).isEqualTo(OpResult.integer(3));
    }

    @Test
    void setAtTheSizeLimitIsStored() {
        String max = "x".repeat(MAX_VALUE_BYTES);
        assertThat(apply(set("k", max, 0, 0))).isEqualTo(OpResult.OK);
        assertThat(get("k")).isEqualTo(OpResult.bulk(bytes(max)));
    }

    @Test
    void setOverTheSizeLimitIsRefusedAndStoresNothing() {
        OpResult result = apply(set("k", "x".repeat(MAX_VALUE_BYTES + 1), 0, 0));
        assertThat(result.error()).isEqualTo(ErrorCode.VALUE_TOO_LARGE);
        assertThat(view.size()).isZero();
    }

    @Test
    void setOverTheSizeLimitKeepsTheOldValue() {
        apply(set("k", "old", 0, 0));
        assertThat(apply(set("k", "x".repeat(MAX_VALUE_BYTES + 1), KvOp.FLAG_GET, 0)).error())
                .isEqualTo(ErrorCode.VALUE_TOO_LARGE);
        assertThat(get("k")).isEqualTo(OpResult.bulk(bytes("old")));
    }

    @Test
    void appendPastTheSizeLimitIsRefusedAndKeepsTheOldValue() {
        apply(set("s", "x".repeat(MAX_VALUE_BYTES - 2), 0, 0));
        assertThat(append("s", "yy")).isEqualTo(OpResult.integer(MAX_VALUE_BYTES));
        OpResult result = append("s", "z");
        assertThat(result.error()).isEqualTo(ErrorCode.VALUE_TOO_LARGE);
        assertThat(result.message()).contains(Integer.toString(MAX_VALUE_BYTES + 1));
        assertThat(get("s")).isEqualTo(OpResult.bulk(bytes("x".repeat(MAX_VALUE_BYTES - 2) + "yy")));
    }

    @Test
    void appendCreatingATooLargeValueStoresNothing() {
        assertThat(append("s", "x".repeat(MAX_VALUE_BYTES + 1)).error()).isEqualTo(ErrorCode.VALUE_TOO_LARGE);
        assertThat(view.size()).isZero();
    }
}
