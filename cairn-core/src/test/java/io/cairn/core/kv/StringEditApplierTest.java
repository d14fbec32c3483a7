package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The string edits of {@link KvApplier} ({@link StringEditApplier}) where the router's comparison with
 * redis-server ({@code StringEditCommandsTest}) cannot reach: other types, size limits, expiry kept
 * or dropped, MSETNX all or none.
 */
class StringEditApplierTest {
    private static final int BUCKET = 3;
    private final KvApplier applier = new KvApplier(64);
    private final InMemoryKvView view = new InMemoryKvView();

    private OpResult run(KvOp.Type type, String key, byte[] value, long arg, int flags, long nowMs) {
        return applier.apply(new KvOp(type, BUCKET, b(key), value, arg, flags), view, nowMs);
    }

    @Test
    void everyEditOfAHashAnswersWrongType() {
        run(KvOp.Type.HSET, "h", Packed.encode(List.of(b("f"), b("v"))), 0, 0, 1_000);
        assertThat(run(KvOp.Type.GETEX, "h", null, 10, KvOp.FLAG_EXPIRE_REL, 1_000).error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.SETRANGE, "h", b("x"), 0, 0, 1_000).error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.INCRBYFLOAT, "h", b("1"), 0, 0, 1_000).error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.SETBIT, "h", new byte[] {1}, 0, 0, 1_000).error()).isEqualTo(ErrorCode.WRONG_TYPE);
        assertThat(run(KvOp.Type.MSETNX, "h", Packed.encode(List.of(b("h"), b("v"))), 0, 0, 1_000).number())
                .as("MSETNX counts a hash as an existing key").isZero();
        assertThat(run(KvOp.Type.HLEN, "h", null, 0, 0, 1_000).number()).isEqualTo(1);
    }

    @Test
    void editsPastTheValueLimitAreRefusedAndChangeNothing() {
        run(KvOp.Type.SET, "s", b("abc"), 0, 0, 1_000);
        assertThat(run(KvOp.Type.SETRANGE, "s", b("x"), 64, 0, 1_000).error()).isEqualTo(ErrorCode.VALUE_TOO_LARGE);
        assertThat(run(KvOp.Type.SETBIT, "s", new byte[] {1}, 64 * 8, 0, 1_000).error()).isEqualTo(ErrorCode.VALUE_TOO_LARGE);
        assertThat(run(KvOp.Type.SETBIT, "s", new byte[] {2}, 0, 0, 1_000).error()).isEqualTo(ErrorCode.PROTOCOL);
        assertThat(run(KvOp.Type.GET, "s", null, 0, 0, 1_000).bytes()).isEqualTo(b("abc"));
    }

    @Test
    void editsKeepTheExpiryAndGetexChangesIt() {
        run(KvOp.Type.SET, "s", b("1.5"), 10_000, KvOp.FLAG_EXPIRE_REL, 1_000);
        run(KvOp.Type.INCRBYFLOAT, "s", b("1"), 0, 0, 2_000);
        run(KvOp.Type.SETRANGE, "s", b("9"), 0, 0, 2_000);
        assertThat(run(KvOp.Type.PTTL, "s", null, 0, KvOp.FLAG_EXPIRE_ABS, 2_000).number()).isEqualTo(11_000);
        assertThat(run(KvOp.Type.GETEX, "s", null, 500, KvOp.FLAG_EXPIRE_REL, 3_000).bytes()).isEqualTo(b("9.5"));
        assertThat(run(KvOp.Type.PTTL, "s", null, 0, 0, 3_000).number()).isEqualTo(500);
        assertThat(run(KvOp.Type.GETEX, "s", null, 0, KvOp.FLAG_PERSIST, 3_100).bytes()).isEqualTo(b("9.5"));
        assertThat(run(KvOp.Type.PTTL, "s", null, 0, 0, 3_100).number()).isEqualTo(-1);
        assertThat(run(KvOp.Type.GETEX, "s", null, 3_000, KvOp.FLAG_EXPIRE_ABS, 3_200).bytes()).as("a past time: value, then gone").isEqualTo(b("9.5"));
        assertThat(run(KvOp.Type.EXISTS, "s", null, 0, 0, 3_200).number()).isZero();
    }

    @Test
    void msetnxSetsAllOrNoneAndTreatsAnExpiredKeyAsAbsent() {
        run(KvOp.Type.SET, "b", b("old"), 100, KvOp.FLAG_EXPIRE_REL, 1_000);
        assertThat(run(KvOp.Type.MSETNX, "a", pairs("a", "1", "b", "2"), 0, 0, 1_050).number()).isZero();
        assertThat(run(KvOp.Type.EXISTS, "a", null, 0, 0, 1_050).number()).as("none set").isZero();
        assertThat(run(KvOp.Type.MSETNX, "a", pairs("a", "1", "b", "2"), 0, 0, 2_000).number()).as("b expired").isEqualTo(1);
        assertThat(run(KvOp.Type.GET, "b", null, 0, 0, 2_000).bytes()).isEqualTo(b("2"));
        assertThat(run(KvOp.Type.PTTL, "b", null, 0, 0, 2_000).number()).isEqualTo(-1);
        assertThat(run(KvOp.Type.MSETNX, "a", Packed.encode(List.of(b("a"))), 0, 0, 2_000).error()).isEqualTo(ErrorCode.PROTOCOL);
    }

    private static byte[] pairs(String... kv) {
        List<byte[]> out = new ArrayList<>();
        for (String s : kv) out.add(b(s));
        return Packed.encode(out);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
