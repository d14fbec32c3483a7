package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RENAME, RENAMENX and COPY of every type ({@link KeyCopyApplier}): a collection moves or copies
 * with all its elements and its order, a destination of another type is replaced whole, and the
 * source of a rename leaves nothing behind. Strings' replies are compared with redis-server in the
 * router's {@code StringEditCommandsTest}.
 */
class KeyCopyApplierTest extends ApplierHarness {
    private OpResult copy(KvOp.Type type, String from, String to, int flags) {
        return applier.apply(new KvOp(type, BUCKET, b(from), b(to), 0, flags), view, NOW);
    }

    @Test
    void aRenamedHashKeepsEveryFieldAndTheOldNameIsGone() {
        run(KvOp.Type.HSET, "h", "f1", "v1", "f2", "v2");
        assertThat(copy(KvOp.Type.RENAME, "h", "h2", 0)).isEqualTo(OpResult.OK);
        assertThat(strings(run(KvOp.Type.HGETALL, "h2"))).containsExactly("f1", "v1", "f2", "v2");
        assertThat(run(KvOp.Type.EXISTS, "h").number()).isZero();
        assertThat(view.fields(BUCKET, b("h"))).as("no field left under the old name").isEmpty();
    }

    @Test
    void aCopiedListKeepsItsOrderAndTheSourceStays() {
        run(KvOp.Type.RPUSH, "l", "a", "b", "c");
        run(KvOp.Type.LPUSH, "l", "z");
        assertThat(copy(KvOp.Type.COPY, "l", "l2", 0).number()).isEqualTo(1);
        assertThat(strings(run(KvOp.Type.LRANGE, "l2", 0L, -1L))).containsExactly("z", "a", "b", "c");
        assertThat(strings(run(KvOp.Type.LRANGE, "l", 0L, -1L))).containsExactly("z", "a", "b", "c");
        run(KvOp.Type.RPUSH, "l2", "d");
        assertThat(run(KvOp.Type.LLEN, "l").number()).as("copies are independent").isEqualTo(4);
    }

    @Test
    void copyReplaceOverAnotherTypeLeavesOnlyTheCopy() {
        run(KvOp.Type.ZADD, "z", "1", "a", "2", "b");
        run(KvOp.Type.HSET, "target", "old", "field");
        assertThat(copy(KvOp.Type.COPY, "z", "target", 0).number()).as("no REPLACE: the target stays").isZero();
        assertThat(copy(KvOp.Type.COPY, "z", "target", KvOp.FLAG_XX).number()).isEqualTo(1);
        assertThat(run(KvOp.Type.TYPE, "target").bytes()).isEqualTo(b("zset"));
        assertThat(strings(run(KvOp.Type.ZRANGE, "target", 0L, -1L))).containsExactly("a", "b");
        assertThat(view.fields(BUCKET, b("target")).stream().map(f -> new String(f.name())).toList()).doesNotContain("old");
    }

    @Test
    void renamenxOverAnExistingKeyAndRenameOfAMissingOneChangeNothing() {
        run(KvOp.Type.SADD, "s", "m");
        run(KvOp.Type.SADD, "t", "n");
        assertThat(copy(KvOp.Type.RENAMENX, "s", "t", 0).number()).isZero();
        assertThat(copy(KvOp.Type.RENAME, "missing", "t", 0).error()).isEqualTo(ErrorCode.NO_SUCH_KEY);
        assertThat(strings(run(KvOp.Type.SMEMBERS, "t"))).containsExactly("n");
        assertThat(strings(run(KvOp.Type.SMEMBERS, "s"))).containsExactly("m");
    }
}
