package io.cairn.storage.state;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.StorageRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** ONCE entries: a write re-sent with the same (client, call) is answered, not applied again, until its reply expires. */
class CallRepliesTest {
    private static final UUID ROUTER = UUID.fromString("00000000-0000-4000-8000-0000000000aa");
    private static final byte[] KEY = "n".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    @Test
    void aWriteResentWithTheSameCallIsAnsweredWithTheFirstReplyAndAppliedOnce() throws Exception {
        try (ReplicaUnderTest replica = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            assertThat(incrOnce(replica, 7, 2_000)).isEqualTo(1);
            assertThat(incrOnce(replica, 7, 2_500)).as("the same call again, e.g. to a new leader").isEqualTo(1);
            assertThat(value(replica)).isEqualTo("1");
            assertThat(incrOnce(replica, 8, 3_000)).as("a new call").isEqualTo(2);
            assertThat(value(replica)).isEqualTo("2");
        }
    }

    @Test
    void theRepliesSurviveARestart() throws Exception {
        Path db = dir.resolve("db");
        try (ReplicaUnderTest replica = ReplicaUnderTest.bootstrapped(db, 10)) {
            incrOnce(replica, 7, 2_000);
            replica.open(db);
            assertThat(incrOnce(replica, 7, 2_500)).isEqualTo(1);
            assertThat(value(replica)).isEqualTo("1");
        }
    }

    @Test
    void aReplyIsCollectedOnceItIsOlderThanTheRetentionByLaterStamps() throws Exception {
        try (ReplicaUnderTest replica = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            incrOnce(replica, 7, 2_000);
            CallReplies replies = new CallReplies(replica.store);
            incrOnce(replica, 8, 2_000 + CallReplies.RETENTION_MS - 1);
            assertThat(replies.replyOf(ROUTER, 7)).as("still within the retention").isNotNull();
            incrOnce(replica, 9, 2_000 + CallReplies.RETENTION_MS + 1);
            assertThat(replies.replyOf(ROUTER, 7)).as("collected by a later entry's stamp").isNull();
            assertThat(replies.replyOf(ROUTER, 9)).isNotNull();
        }
    }

    @Test
    void collectionIsBoundedPerEntry() throws Exception {
        try (ReplicaUnderTest replica = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            int old = CallReplies.COLLECT_PER_ENTRY + 5;
            for (int call = 1; call <= old; call++) incrOnce(replica, call, 2_000);
            CallReplies replies = new CallReplies(replica.store);
            long later = 2_000 + CallReplies.RETENTION_MS + 1;
            incrOnce(replica, 1_000, later);
            long left = java.util.stream.LongStream.rangeClosed(1, old).filter(c -> replies.replyOf(ROUTER, c) != null).count();
            assertThat(left).isEqualTo(old - CallReplies.COLLECT_PER_ENTRY);
            incrOnce(replica, 1_001, later);
            assertThat(replies.replyOf(ROUTER, old)).isNull();
        }
    }

    /** INCR n by 1 as call {@code callId} of ROUTER, stamped {@code stampMs}; returns the reply's number. */
    private static long incrOnce(ReplicaUnderTest replica, long callId, long stampMs) {
        byte[] write = StorageRequest.write(List.of(new KvOp(KvOp.Type.INCRBY, 1, KEY, null, 1, 0)));
        byte[] reply = replica.apply(StorageRequest.once(ROUTER, callId, write), stampMs);
        OpResult result = OpCodec.decodeResults(ByteBuffer.wrap(reply)).get(0);
        assertThat(result.isError()).as(String.valueOf(result.message())).isFalse();
        return result.number();
    }

    private static String value(ReplicaUnderTest replica) {
        byte[] reply = replica.state.query(ByteBuffer.wrap(StorageRequest.read(List.of(KvOp.get(1, KEY)))), 5_000);
        return new String(OpCodec.decodeResults(ByteBuffer.wrap(reply)).get(0).bytes(), StandardCharsets.UTF_8);
    }
}
