package io.cairn.storage.state;

import io.cairn.core.BucketState;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.MovePiece;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.kv.Packed;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.StorageRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static io.cairn.storage.state.ReplicaUnderTest.write;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lists, sets and sorted sets on RocksDB: one key record plus one entry per element in the fields column, so
 * they are counted, deleted (a range tombstone when big), swept and moved as one key, like hashes.
 */
class CollectionStorageTest {
    private static final int BUCKET = 3;

    @TempDir
    Path dir;

    @Test
    void bigCollectionsCountAsOneKeyEachAndTheirElementsGoWithTheirDelete() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            r.result(write(push(KvOp.Type.RPUSH, "list", 0, 300)), 2_000);
            r.result(write(sadd("set", 200)), 2_000);
            assertThat(r.state.keyCount()).isEqualTo(2);
            assertThat(r.storedFields()).isEqualTo(500);
            assertThat(r.result(write(KvOp.of(KvOp.Type.DEL, BUCKET, b("list"))), 3_000).number()).isEqualTo(1);
            // SET over a set replaces it whatever its type: its members go too.
            r.result(write(KvOp.set(BUCKET, b("set"), b("now a string"))), 3_000);
            assertThat(r.storedFields()).as("no element survives its key").isZero();
            assertThat(r.state.keyCount()).isEqualTo(1);
        }
    }

    /**
     * SPOP on a set bigger than a uniform walk picks by two seeks (first/last member, then a point between),
     * also inside one entry that already popped from it: every pop answers a member still there, no member
     * twice, and the picks spread over the set instead of taking its first members.
     */
    @Test
    void popsFromABigSetInOneEntryAnswerDistinctMembersSpreadOverTheSet() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            r.result(write(sadd("s", 1_000)), 2_000);
            List<KvOp> pops = new ArrayList<>();
            for (long i = 0; i < 300; i++) pops.add(op(KvOp.Type.SPOP, "s", 0, new byte[][] {ByteBuffer.allocate(8).putLong(i * 7919 + 1).array()}));
            pops.add(op(KvOp.Type.SADD, "s", 0, "zz-added-in-the-entry"));
            for (long i = 0; i < 100; i++) pops.add(op(KvOp.Type.SPOP, "s", 0, new byte[][] {ByteBuffer.allocate(8).putLong(-i - 1).array()}));
            List<OpResult> results = OpCodec.decodeResults(ByteBuffer.wrap(r.apply(StorageRequest.write(pops), 3_000)));
            List<String> popped = new ArrayList<>();
            for (int i = 0; i < results.size(); i++) if (i != 300) popped.add(new String(results.get(i).bytes(), StandardCharsets.UTF_8));
            assertThat(popped).as("each pop answers a member, none twice").doesNotHaveDuplicates().allMatch(m -> m.startsWith("m") || m.startsWith("zz"));
            assertThat(r.read(op(KvOp.Type.SCARD, "s", 0)).number()).isEqualTo(1_001 - 400);
            for (String m : popped) assertThat(r.read(op(KvOp.Type.SISMEMBER, "s", 0, m)).number()).as("%s was removed", m).isZero();
            // members m0..m999 in byte order: the first 300 of that order are m0, m1, m10, m100..m109, ...: picks must reach past them
            long late = popped.stream().filter(m -> m.startsWith("m") && m.compareTo("m5") >= 0).count();
            assertThat(late).as("picks spread over the names (%s)", popped.subList(0, 20)).isGreaterThan(100);
        }
    }

    @Test
    void listCommandsInOneEntrySeeEachOthersWrites() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            r.result(write(push(KvOp.Type.RPUSH, "l", 0, 100)), 2_000);
            byte[] reply = r.apply(StorageRequest.write(List.of(
                    op(KvOp.Type.LREM, "l", 0, "e5"),
                    op(KvOp.Type.LPUSH, "l", 0, "head"),
                    op(KvOp.Type.LTRIM, "l", 0, longs(0, 2)),
                    op(KvOp.Type.LINSERT, "l", 1, "head", "second"),
                    op(KvOp.Type.LRANGE, "l", 0, longs(0, -1)))), 3_000);
            List<OpResult> results = OpCodec.decodeResults(ByteBuffer.wrap(reply));
            assertThat(strings(results.get(4))).containsExactly("head", "second", "e0", "e1");
            assertThat(strings(r.read(op(KvOp.Type.LRANGE, "l", 0, longs(0, -1))))).containsExactly("head", "second", "e0", "e1");
            assertThat(r.storedFields()).isEqualTo(4);
        }
    }

    @Test
    void scoreIntervalsSeekInTheScoreIndexAndPageAcrossIt() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            // Scores -500 .. 499, added in a scrambled order; the reads below cross several 256-entry pages.
            String[] pairs = new String[2_000];
            for (int i = 0; i < 1_000; i++) {
                int score = (i * 7919) % 1_000 - 500;
                pairs[2 * i] = Integer.toString(score);
                pairs[2 * i + 1] = "m" + score;
            }
            r.result(write(op(KvOp.Type.ZADD, "z", 0, pairs)), 2_000);
            assertThat(r.read(op(KvOp.Type.ZCOUNT, "z", 0, "-100", "(200")).number()).isEqualTo(300);
            assertThat(r.read(op(KvOp.Type.ZCOUNT, "z", 0, "(-inf", "+inf")).number()).isEqualTo(1_000);
            List<String> all = strings(r.read(byScore("-inf", "+inf", 0, -1)));
            assertThat(all).hasSize(1_000);
            for (int i = 0; i < all.size(); i++) assertThat(all.get(i)).isEqualTo("m" + (i - 500));
            assertThat(strings(r.read(byScore("(250", "(260", 0, -1)))).containsExactly("m251", "m252", "m253", "m254", "m255", "m256", "m257", "m258", "m259");
            // From -1.5 the matches are -1, 0, 1, ...: LIMIT 300 3 skips 300 of them.
            assertThat(strings(r.read(byScore("-1.5", "+inf", 300, 3)))).containsExactly("m299", "m300", "m301");
            assertThat(r.read(byScore("-1.5", "+inf", 600, 3)).elements()).isEmpty();
            KvOp remove = new KvOp(KvOp.Type.ZREMRANGE, BUCKET, b("z"), Packed.encode(List.of(b("-inf"), b("(0"))), 0, KvOp.FLAG_BYSCORE);
            assertThat(r.result(write(remove), 3_000).number()).isEqualTo(500);
            assertThat(r.read(op(KvOp.Type.ZCARD, "z", 0)).number()).isEqualTo(500);
            assertThat(strings(r.read(byScore("-inf", "+inf", 0, 2)))).containsExactly("m0", "m1");
            assertThat(r.storedFields()).isEqualTo(1_000);
        }
    }

    /** A write entry's score walk merges RocksDB's entries with the entry's own adds and removes (BatchView.fieldsFrom). */
    @Test
    void aScoreWalkInsideOneEntrySeesThatEntrysWrites() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            String[] pairs = new String[1_200];
            for (int i = 0; i < 600; i++) {
                pairs[2 * i] = Integer.toString(i);
                pairs[2 * i + 1] = "m" + i;
            }
            r.result(write(op(KvOp.Type.ZADD, "z", 0, pairs)), 2_000);
            byte[] reply = r.apply(StorageRequest.write(List.of(
                    op(KvOp.Type.ZREM, "z", 0, "m10", "m11", "m12"),
                    op(KvOp.Type.ZADD, "z", 0, "10.5", "new", "700", "top"),
                    new KvOp(KvOp.Type.ZREMRANGE, BUCKET, b("z"), Packed.encode(List.of(b("(9"), b("300"))), 0, KvOp.FLAG_BYSCORE),
                    op(KvOp.Type.ZCARD, "z", 0))), 3_000);
            List<OpResult> results = OpCodec.decodeResults(ByteBuffer.wrap(reply));
            assertThat(results.get(2).number()).as("10 .. 300 less the three removed, plus new").isEqualTo(291 - 3 + 1);
            assertThat(results.get(3).number()).isEqualTo(600 - 3 + 2 - 289);
            assertThat(strings(r.read(byScore("8", "(302", 0, -1)))).containsExactly("m8", "m9", "m301");
            assertThat(strings(r.read(byScore("699", "+inf", 0, -1)))).containsExactly("top");
            assertThat(r.storedFields()).isEqualTo(2 * (600 - 3 + 2 - 289));
        }
    }

    /** The algebra on RocksDB: a STORE over a big destination (a range tombstone) that is also its source, read back in the same entry. */
    @Test
    void aZInterStoreReplacesABigDestinationThatIsAlsoItsSourceWithinOneEntry() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            String[] pairs = new String[600];
            for (int i = 0; i < 300; i++) {
                pairs[2 * i] = Integer.toString(i);
                pairs[2 * i + 1] = "m" + i;
            }
            r.result(write(op(KvOp.Type.ZADD, "d", 0, pairs)), 2_000);
            byte[] reply = r.apply(StorageRequest.write(List.of(
                    op(KvOp.Type.SADD, "s", 0, "m1", "m299", "extra"),
                    op(KvOp.Type.ZINTERSTORE, "d", 2, "d", "s", "weights", "2", "1"),
                    op(KvOp.Type.ZRANGE, "d", 0, longs(0, -1)),
                    op(KvOp.Type.ZUNION, "s", 2, "s", "d", "withscores"))), 3_000);
            List<OpResult> results = OpCodec.decodeResults(ByteBuffer.wrap(reply));
            assertThat(results.get(1).number()).isEqualTo(2);
            assertThat(strings(results.get(2))).containsExactly("m1", "m299");
            assertThat(strings(results.get(3))).containsExactly("extra", "1", "m1", "4", "m299", "600");
            List<byte[]> scores = r.read(op(KvOp.Type.ZMSCORE, "d", 0, "m1", "m2", "m299")).elements();
            assertThat(scores.get(0)).isEqualTo(b("3"));
            assertThat(scores.get(1)).as("m2 is not in the intersection").isNull();
            assertThat(scores.get(2)).isEqualTo(b("599"));
            assertThat(r.storedFields()).as("the set's 3 members and 2 entries for each of d's 2").isEqualTo(7);
            assertThat(r.state.keyCount()).isEqualTo(2);
        }
    }

    private static KvOp byScore(String min, String max, long offset, long count) {
        List<byte[]> packed = List.of(b(min), b(max), longs(offset)[0], longs(count)[0]);
        return new KvOp(KvOp.Type.ZRANGE, BUCKET, b("z"), Packed.encode(packed), 0, KvOp.FLAG_BYSCORE);
    }

    @Test
    void anExpiredListIsSweptWithItsElements() throws Exception {
        try (ReplicaUnderTest r = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10)) {
            r.result(write(push(KvOp.Type.LPUSH, "l", 0, 300)), 2_000);
            r.result(write(new KvOp(KvOp.Type.PEXPIRE, BUCKET, b("l"), null, 100, 0)), 2_000);
            assertThat(r.read(op(KvOp.Type.LLEN, "l", 0), 2_050).number()).isEqualTo(300);
            assertThat(r.read(op(KvOp.Type.LLEN, "l", 0), 2_100).number()).isZero();
            assertThat(r.result(write(KvOp.of(KvOp.Type.DEL_IF_EXPIRED, BUCKET, b("l"))), 2_200).number()).isEqualTo(1);
            assertThat(r.storedFields()).isZero();
            assertThat(r.state.keyCount()).isZero();
        }
    }

    @Test
    void aMovedBucketCarriesAListASetAndASortedSetWithEveryElementAndTheirExpiry() throws Exception {
        try (ReplicaUnderTest source = ReplicaUnderTest.bootstrapped(dir.resolve("src"), 10);
             ReplicaUnderTest dest = ReplicaUnderTest.bootstrapped(dir.resolve("dst"), 2)) {
            // Pushed on both ends: the head's sequence number is negative and must travel too.
            source.result(write(push(KvOp.Type.RPUSH, "l", 500, 500)), 2_000);
            source.result(write(push(KvOp.Type.LPUSH, "l", 0, 500)), 2_000);
            source.result(write(sadd("s", 700)), 2_000);
            source.result(write(zadd("z", 600)), 2_000);
            source.result(write(new KvOp(KvOp.Type.PEXPIRE, BUCKET, b("l"), null, 1_000_000, 0)), 2_000);
            source.result(write(new KvOp(KvOp.Type.PEXPIRE, BUCKET, b("z"), null, 3_000_000, 0)), 2_000);
            source.result(write(new KvOp(KvOp.Type.PEXPIRE, BUCKET, b("s"), null, 2_000_000, 0)), 2_000);
            moveBucket(source, dest, 3_000);
            assertThat(dest.state.keyCount()).isEqualTo(3);
            List<String> list = strings(dest.read(op(KvOp.Type.LRANGE, "l", 0, longs(0, -1))));
            assertThat(list).hasSize(1_000);
            for (int i = 0; i < 500; i++) assertThat(list.get(i)).isEqualTo("e" + (499 - i));
            for (int i = 500; i < 1_000; i++) assertThat(list.get(i)).isEqualTo("e" + i);
            assertThat(dest.read(op(KvOp.Type.LINDEX, "l", -1)).bytes()).isEqualTo(b("e999"));
            assertThat(dest.read(op(KvOp.Type.SCARD, "s", 0)).number()).isEqualTo(700);
            assertThat(dest.read(op(KvOp.Type.SISMEMBER, "s", 0, "m699")).number()).isEqualTo(1);
            assertThat(dest.read(KvOp.of(KvOp.Type.PTTL, BUCKET, b("l")), 5_000).number()).isEqualTo(1_002_000 - 5_000);
            assertThat(dest.read(KvOp.of(KvOp.Type.PTTL, BUCKET, b("s")), 5_000).number()).isEqualTo(2_002_000 - 5_000);
            assertThat(new String(dest.read(KvOp.of(KvOp.Type.TYPE, BUCKET, b("l"))).bytes(), StandardCharsets.UTF_8)).isEqualTo("list");
            assertThat(dest.read(op(KvOp.Type.ZCARD, "z", 0)).number()).isEqualTo(600);
            // Scores 599 - i: the member with the lowest score is the last one added, rank 0 after the move.
            assertThat(strings(dest.read(new KvOp(KvOp.Type.ZRANGE, BUCKET, b("z"), Packed.encode(List.of(longs(0, 1))), 0, KvOp.FLAG_WITHVALUES))))
                    .containsExactly("z599", "0", "z598", "1");
            assertThat(dest.read(op(KvOp.Type.ZSCORE, "z", 0, "z0")).bytes()).isEqualTo(b("599"));
            assertThat(dest.read(KvOp.of(KvOp.Type.PTTL, BUCKET, b("z")), 5_000).number()).isEqualTo(3_002_000 - 5_000);
            assertThat(new String(dest.read(KvOp.of(KvOp.Type.TYPE, BUCKET, b("z"))).bytes(), StandardCharsets.UTF_8)).isEqualTo("zset");
            assertThat(dest.storedFields()).as("1,000 list elements, 700 set members, 2 entries per sorted set member").isEqualTo(1_000 + 700 + 1_200);
            // The moved list keeps working at both ends.
            dest.result(write(push(KvOp.Type.LPUSH, "l", 2_000, 1)), 6_000);
            assertThat(dest.read(op(KvOp.Type.LINDEX, "l", 0)).bytes()).isEqualTo(b("e2000"));
        }
    }

    /**
     * A copy cut between the pieces of a big collection (the destination holds its FIRST piece, not
     * its LAST) never passes the verdict: the copy is fenced and every element it held is deleted,
     * so nothing half-copied is left to read anywhere.
     */
    @Test
    void aCopyCutBetweenTheElementPiecesOfACollectionIsFencedAndLeavesNoElementBehind() throws Exception {
        try (ReplicaUnderTest source = ReplicaUnderTest.bootstrapped(dir.resolve("src"), 10);
             ReplicaUnderTest dest = ReplicaUnderTest.bootstrapped(dir.resolve("dst"), 2)) {
            source.result(write(sadd("s", 2_000)), 2_000);
            source.result(write(KvOp.set(BUCKET, b("str"), b("v"))), 2_000);
            assertThat(source.move(new MoveCommand.StartSend(BUCKET, "rs2"), 3_000).isOk()).isTrue();
            long generation = source.state.record(BUCKET).generation();
            MoveQuery.ChunkPage first = MoveQueries.readChunk(new MoveQuery.ReadChunk(BUCKET, generation, new byte[0], 100, 4096), source.state);
            assertThat(first.entries()).hasSize(1);
            assertThat(first.entries().get(0).isPiece()).as("a set of 2,000 members does not fit 4 KiB").isTrue();
            assertThat(first.last()).isFalse();
            assertThat(dest.move(new MoveCommand.ReceiveChunk(BUCKET, "rs1", generation, 0, first.entries()), 4_000).isOk()).isTrue();
            assertThat(dest.storedFields()).as("the first piece's members are held").isPositive().isLessThan(2_000);

            MoveQuery.BucketDigest digest = MoveQueries.digest(BUCKET, source.state);
            MoveReply verdict = dest.move(new MoveCommand.FinishReceive(BUCKET, generation, digest.keyCount(), digest.checksum(), false), 5_000);
            assertThat(verdict.outcome()).isEqualTo(MoveReply.Outcome.ABORTED);
            assertThat(dest.state.record(BUCKET).state()).isEqualTo(BucketState.GARBAGE);
            assertThat(dest.storedFields()).as("no element of the half copy is left").isZero();
            assertThat(dest.state.keyCount()).isZero();
        }
    }

    /**
     * Moves {@code BUCKET} from source to dest in 4 KiB chunks, as the driver does: a collection that
     * does not fit travels in element pieces, the cursor pointing inside it; each chunk stays within
     * the bound (a single element may pass it alone).
     */
    private static void moveBucket(ReplicaUnderTest source, ReplicaUnderTest dest, long nowMs) throws Exception {
        assertThat(source.move(new MoveCommand.StartSend(BUCKET, "rs2"), nowMs).isOk()).isTrue();
        long generation = source.state.record(BUCKET).generation();
        List<ChunkEntry> all = new ArrayList<>();
        byte[] after = new byte[0];
        byte[] afterElement = new byte[0];
        int seq = 0;
        long summedByPage = 0; // as a driver sums chunk by chunk, a collection's pieces spanning chunks
        MovePiece.Check open = null;
        while (true) {
            MoveQuery.ChunkPage page = MoveQueries.readChunk(new MoveQuery.ReadChunk(BUCKET, generation, after, 100, 4096, afterElement), source.state);
            all.addAll(page.entries());
            ChunkEntry.Checksum sum = ChunkEntry.checksum(page.entries(), open);
            summedByPage += sum.sum();
            open = sum.open();
            assertThat(page.entries().stream().mapToInt(ChunkEntry::sizeBytes).sum()).as("chunk %d within the bound", seq).isLessThanOrEqualTo(4096 + 64);
            if (page.last()) {
                MoveQuery.BucketDigest digest = MoveQueries.digest(BUCKET, source.state);
                assertThat(dest.move(new MoveCommand.ReceiveLastChunk(BUCKET, "rs1", generation + 1, seq, page.entries(),
                        digest.keyCount(), digest.checksum(), true), nowMs + 1_000).outcome()).isEqualTo(MoveReply.Outcome.COMPLETE);
                break;
            }
            assertThat(dest.move(new MoveCommand.ReceiveChunk(BUCKET, "rs1", generation + 1, seq++, page.entries()), nowMs + 1_000).isOk()).isTrue();
            ChunkEntry last = page.entries().get(page.entries().size() - 1);
            after = last.key();
            afterElement = last.resumeElement();
        }
        assertThat(dest.move(new MoveCommand.Activate(BUCKET, generation + 1), nowMs + 1_000).isOk()).isTrue();
        assertThat(dest.state.record(BUCKET).state()).isEqualTo(BucketState.ACTIVE);
        assertThat(ChunkEntry.keyCount(all)).as("each key completed once").isEqualTo(dest.state.keyCount());
        assertThat(all.stream().filter(ChunkEntry::isPiece).count()).as("the collections travelled in pieces").isGreaterThan(3);
        assertThat(ChunkEntry.checksum(all)).as("the pieces add up to the source's digest").isEqualTo(MoveQueries.digest(BUCKET, source.state).checksum());
        assertThat(summedByPage).as("summed chunk by chunk").isEqualTo(ChunkEntry.checksum(all));
    }

    private static KvOp push(KvOp.Type type, String key, int first, int n) {
        String[] elements = new String[n];
        for (int i = 0; i < n; i++) elements[i] = "e" + (first + i);
        return op(type, key, 0, elements);
    }

    private static KvOp sadd(String key, int n) {
        String[] members = new String[n];
        for (int i = 0; i < n; i++) members[i] = "m" + i;
        return op(KvOp.Type.SADD, key, 0, members);
    }

    private static KvOp zadd(String key, int n) {
        String[] pairs = new String[2 * n];
        for (int i = 0; i < n; i++) {
            pairs[2 * i] = Integer.toString(n - 1 - i);
            pairs[2 * i + 1] = "z" + i;
        }
        return op(KvOp.Type.ZADD, key, 0, pairs);
    }

    private static KvOp op(KvOp.Type type, String key, long arg, byte[][] packed) {
        return new KvOp(type, BUCKET, b(key), Packed.encode(List.of(packed)), arg, 0);
    }

    private static byte[][] longs(long... values) {
        byte[][] out = new byte[values.length][];
        for (int i = 0; i < values.length; i++) out[i] = ByteBuffer.allocate(8).putLong(values[i]).array();
        return out;
    }

    private static List<String> strings(OpResult r) {
        return r.elements().stream().map(e -> new String(e, StandardCharsets.UTF_8)).toList();
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static KvOp op(KvOp.Type type, String key, long arg, String... args) {
        return ReplicaUnderTest.op(type, BUCKET, key, arg, args);
    }
}
