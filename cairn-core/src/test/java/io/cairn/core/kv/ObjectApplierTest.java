package io.cairn.core.kv;

import io.cairn.core.ErrorCode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** OBJECT's store side; the encodings themselves are compared with redis-server in the router's ObjectCommandsTest. */
class ObjectApplierTest extends ApplierHarness {

    private OpResult object(String key, long subcommand, long nowMs) {
        return applier.apply(new KvOp(KvOp.Type.OBJECT, BUCKET, b(key), null, subcommand, 0), view, nowMs);
    }

    @Test
    void anExpiredKeyHasNoEncodingAndAnUnknownSubcommandIsRefused() {
        applier.apply(new KvOp(KvOp.Type.SET, BUCKET, b("k"), b("v"), 50, KvOp.FLAG_EXPIRE_REL), view, NOW);
        assertThat(new String(object("k", KvOp.OBJECT_ENCODING, NOW).bytes())).isEqualTo("embstr");
        assertThat(object("k", KvOp.OBJECT_ENCODING, NOW + 100)).isEqualTo(OpResult.NIL);
        assertThat(object("k", 7, NOW).error()).isEqualTo(ErrorCode.PROTOCOL);
    }

    @Test
    void aSortedSetIsJudgedByItsMembersNotItsScoreIndex() {
        // The score index entries are 9 bytes longer than the members: only the members count against 64 bytes.
        run(KvOp.Type.ZADD, "z", "1", "m".repeat(60));
        assertThat(new String(object("z", KvOp.OBJECT_ENCODING, NOW).bytes())).isEqualTo("listpack");
        run(KvOp.Type.ZADD, "z", "2", "m".repeat(65));
        assertThat(new String(object("z", KvOp.OBJECT_ENCODING, NOW).bytes())).isEqualTo("skiplist");
    }

    @Test
    void canonicalIntegersOnlyAsRedisString2llReadsThem() {
        assertThat(ObjectApplier.integer(b("-9223372036854775808"))).isEqualTo(Long.MIN_VALUE);
        assertThat(ObjectApplier.integer(b("9223372036854775808"))).isNull();
        assertThat(ObjectApplier.integer(b("-0"))).isNull();
        assertThat(ObjectApplier.integer(b("012"))).isNull();
        assertThat(ObjectApplier.integer(b("+1"))).isNull();
        assertThat(ObjectApplier.integer(b("0"))).isZero();
    }
}
