package io.cairn.storage.state;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
            incrOnce(replica, 8, 2_000 + CallReplies.RETENTION_MS - 1);
            assertThat(recorded(replica, 7)).as("still within the retention").isTrue();
            incrOnce(replica, 9, 2_000 + CallReplies.RETENTION_MS + 1);
            assertThat(recorded(replica, 7)).as("collected by a later entry's stamp").isFalse();
            assertThat(recorded(replica, 9)).isTrue();
        }
    }

    @Test
    void collectionIsBoundedPerEntry() throws Exception {
        try (ReplicaUnderTest replica = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            int old = CallReplies.COLLECT_PER_ENTRY + 5;
            for (int call = 1; call <= old; call++) incrOnce(replica, call, 2_000);
            long later = 2_000 + CallReplies.RETENTION_MS + 1;
            incrOnce(replica, 1_000, later);
            long left = java.util.stream.LongStream.rangeClosed(1, old).filter(c -> recorded(replica, c)).count();
            assertThat(left).isEqualTo(old - CallReplies.COLLECT_PER_ENTRY);
            incrOnce(replica, 1_001, later);
            assertThat(recorded(replica, old)).isFalse();
        }
    }

    /**
     * What a replica remembers in memory to skip lookups (the highest call per client, the oldest
     * record's stamp) must never change what it applies: a replica that keeps one instance for a
     * whole seeded run (restarting now and then) answers every call and holds every record exactly as
     * one that starts afresh for each entry and so reads everything from RocksDB. Calls re-sent, out
     * of order, from several clients, stamps that jump past the retention and stand still.
     */
    @Test
    void whatIsKeptInMemoryNeverChangesWhatIsApplied() throws Exception {
        long seed = System.nanoTime();
        System.out.println("CallRepliesTest seed " + seed);
        Random random = new Random(seed);
        try (RocksStore kept = new RocksStore(dir.resolve("kept")); RocksStore fresh = new RocksStore(dir.resolve("fresh"))) {
            CallReplies keeping = new CallReplies(kept);
            List<UUID> clients = new ArrayList<>();
            long[] nextCall = new long[6];
            long stampMs = 1_000;
            for (int entry = 0; entry < 3_000; entry++) {
                if (clients.size() < nextCall.length && (clients.isEmpty() || random.nextInt(200) == 0)) clients.add(new UUID(random.nextLong(), random.nextLong()));
                int c = random.nextInt(clients.size());
                long callId = random.nextInt(5) == 0 && nextCall[c] > 0 ? 1 + random.nextLong(nextCall[c]) : ++nextCall[c]; // a re-send, or a new call
                if (random.nextInt(50) == 0) nextCall[c] += 1 + random.nextInt(20); // calls that never reached this replicaset
                stampMs += random.nextInt(10) == 0 ? 0 : random.nextInt(30) == 0 ? CallReplies.RETENTION_MS / 3 : random.nextInt(2_000);
                if (random.nextInt(300) == 0) keeping = new CallReplies(kept); // a restart
                String why = "entry " + entry + " (seed " + seed + ")";
                byte[] reply = ("reply " + entry).getBytes(StandardCharsets.UTF_8);
                assertThat(once(kept, keeping, clients.get(c), callId, stampMs, reply))
                        .as(why).isEqualTo(once(fresh, new CallReplies(fresh), clients.get(c), callId, stampMs, reply));
                if (entry % 500 == 499) assertThat(callRecords(kept)).as(why).isEqualTo(callRecords(fresh));
            }
            assertThat(callRecords(kept)).isEqualTo(callRecords(fresh)).isNotEmpty();
        }
    }

    /** Whether ROUTER's call is recorded, read afresh from RocksDB (another instance than the replica's, so one that knows nothing yet). */
    private static boolean recorded(ReplicaUnderTest replica, long callId) {
        return new CallReplies(replica.store).replyOf(ROUTER, callId) != null;
    }

    /** What {@link ReplicasetState}'s apply of a ONCE entry does with the call: look it up, record it if new, collect. */
    private static String once(RocksStore store, CallReplies replies, UUID client, long callId, long stampMs, byte[] reply) throws Exception {
        try (WriteBatch batch = new WriteBatch()) {
            byte[] first = replies.replyOf(client, callId);
            if (first == null) replies.record(batch, client, callId, stampMs, reply);
            int collected = replies.collect(batch, stampMs);
            store.write(batch);
            return (first == null ? "applied" : new String(first, StandardCharsets.UTF_8)) + ", collected " + collected;
        }
    }

    private static List<String> callRecords(RocksStore store) {
        List<String> keys = new ArrayList<>();
        try (StoreIterator it = store.newIterator(store.system)) {
            for (it.seekToFirst(); it.isValid(); it.next()) keys.add(java.util.HexFormat.of().formatHex(it.key()));
        }
        return keys;
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
