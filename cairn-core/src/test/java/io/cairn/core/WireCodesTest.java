package io.cairn.core;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.KeyQuery;
import io.cairn.core.wire.MemberChange;
import io.cairn.core.wire.StorageRequest;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The codes stored in RocksDB and the Raft log and sent on the wire are pinned here: a renumbered
 * or reused code would make old records and entries mean something else.
 */
class WireCodesTest {
    @Test
    void bucketStatesKeepTheirCodes() {
        assertThat(codes(BucketState.values(), BucketState::code)).containsExactlyEntriesOf(ordered(
                "ACTIVE", 0, "PINNED", 1, "SENDING", 2, "RECEIVING", 3, "SENT", 4, "GARBAGE", 5, "READONLY", 6));
    }

    @Test
    void storageRequestKindsKeepTheirCodes() {
        assertThat(codes(StorageRequest.Kind.values(), StorageRequest.Kind::code)).containsExactlyEntriesOf(ordered(
                "WRITE", 0, "BOOTSTRAP", 1, "READ", 2, "DISCOVER", 3, "STATS", 4, "MOVE", 5, "MOVE_QUERY", 6, "REF", 7,
                "UNREF", 8, "FLUSH", 9, "KEY_QUERY", 10, "COLLECT", 11, "MOVE_BATCH", 12, "ONCE", 13, "DISK", 14, "DISK_QUERY", 15));
    }

    @Test
    void moveOutcomesAndMembershipOpsKeepTheirCodes() {
        assertThat(codes(MoveReply.Outcome.values(), MoveReply.Outcome::code)).containsExactlyEntriesOf(ordered(
                "OK", 0, "REFUSED", 1, "GAP", 2, "COMPLETE", 3, "ABORTED", 4, "UNAVAILABLE", 5));
        assertThat(codes(MemberChange.Op.values(), MemberChange.Op::code)).containsExactlyEntriesOf(ordered(
                "GET", 0, "ADD_LEARNER", 1, "PROMOTE", 2, "REMOVE", 3, "LEAD", 4, "SNAPSHOT", 5));
        assertThat(codes(KeyQuery.Scope.values(), KeyQuery.Scope::code)).containsExactlyEntriesOf(ordered(
                "COUNT_OWNED", 0, "LIST_OWNED", 1, "LIST_RANGE", 2));
    }

    @Test
    void operationTypesAndResultKindsKeepTheirCodes() {
        String[] types = {"GET", "EXISTS", "STRLEN", "PTTL", "SET", "DEL", "INCRBY", "APPEND", "GETDEL", "PEXPIRE", "PERSIST",
                "DEL_IF_EXPIRED", "TYPE", "HGET", "HMGET", "HEXISTS", "HLEN", "HGETALL", "HKEYS", "HVALS", "HSTRLEN", "HRANDFIELD",
                "HSCAN", "HSET", "HSETNX", "HDEL", "HINCRBY", "HINCRBYFLOAT",
                "LLEN", "LRANGE", "LINDEX", "LPOS", "LPUSH", "RPUSH", "LPUSHX", "RPUSHX", "LPOP", "RPOP", "LSET", "LINSERT",
                "LREM", "LTRIM", "LMOVE",
                "SCARD", "SISMEMBER", "SMISMEMBER", "SMEMBERS", "SRANDMEMBER", "SSCAN", "SINTER", "SUNION", "SDIFF", "SINTERCARD",
                "SADD", "SREM", "SPOP", "SMOVE", "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE",
                "ZCARD", "ZSCORE", "ZMSCORE", "ZRANK", "ZREVRANK", "ZCOUNT", "ZRANGE", "ZSCAN",
                "ZADD", "ZINCRBY", "ZREM", "ZREMRANGE", "ZPOPMIN", "ZPOPMAX", "LMPOP"};
        Map<String, Integer> expected = new LinkedHashMap<>();
        for (int i = 0; i < types.length; i++) expected.put(types[i], i);
        String[] stringEdits = {"GETEX", "SETRANGE", "INCRBYFLOAT", "SETBIT", "MSETNX", "BUCKET_VERSION", "TX_GUARD", "RENAME", "RENAMENX", "COPY"};
        for (int i = 0; i < stringEdits.length; i++) expected.put(stringEdits[i], 75 + i);
        String[] zsetAlgebra = {"ZUNION", "ZINTER", "ZDIFF", "ZINTERCARD", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZRANGESTORE", "OBJECT", "DUMP", "RESTORE",
                "ZLEXCOUNT", "ZRANDMEMBER", "ZMPOP"};
        for (int i = 0; i < zsetAlgebra.length; i++) expected.put(zsetAlgebra[i], 85 + i);
        assertThat(codes(KvOp.Type.values(), KvOp.Type::code)).containsExactlyEntriesOf(expected);
        assertThat(codes(OpResult.Kind.values(), OpResult.Kind::code)).containsExactlyEntriesOf(ordered(
                "BULK", 0, "INTEGER", 1, "OK", 2, "ERROR", 3, "ARRAY", 4, "STATUS", 5));
    }

    @Test
    void anUnknownCodeIsRefusedWithWhatItWasFor() {
        assertThatThrownBy(() -> BucketState.ofCode((byte) 7)).hasMessage("unknown bucket state 7");
        assertThatThrownBy(() -> BucketState.ofCode((byte) -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StorageRequest.kindAt((byte) 99)).hasMessage("unknown storage request kind 99");
        assertThatThrownBy(() -> MoveReply.Outcome.ofCode((byte) 6)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void duplicateCodesAreRefusedWhenTheTableIsBuilt() {
        assertThatThrownBy(() -> WireCodes.index(BucketState.values(), s -> (byte) (s == BucketState.PINNED ? 0 : s.code())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("duplicate code 0");
    }

    private static <E extends Enum<E>> Map<String, Integer> codes(E[] values, Function<E, Byte> code) {
        Map<String, Integer> m = new LinkedHashMap<>();
        Arrays.stream(values).forEach(v -> m.put(v.name(), (int) code.apply(v)));
        return m;
    }

    private static Map<String, Integer> ordered(Object... pairs) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) m.put((String) pairs[i], (Integer) pairs[i + 1]);
        return m;
    }
}
