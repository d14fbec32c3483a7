package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.MoveCommand.*;
import io.cairn.core.move.MoveQuery.*;
import io.cairn.core.wire.DiscoveryPage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static io.cairn.core.move.InMemoryReplicaset.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/** Every command, query and answer survives encode + decode, with nothing left over. */
class MoveCodecTest {
    private static final BucketRecord RECORD = new BucketRecord(42, BucketState.SENDING, 7, 1234, "rs-2", BucketRecord.FLAG_DATA_DROPPED);
    private static final List<ChunkEntry> ENTRIES = List.of(
            new ChunkEntry(bytes("k1"), bytes("value one")),
            new ChunkEntry(new byte[0], new byte[0]),
            new ChunkEntry(new byte[] {(byte) 0xff, 0, 1}, new byte[300]));

    private static MoveCommand roundTrip(MoveCommand c) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MoveCodec.encode(c, out);
        ByteBuffer in = ByteBuffer.wrap(out.toByteArray());
        MoveCommand back = MoveCodec.decodeCommand(in);
        assertThat(in.remaining()).as("bytes left after %s", c).isZero();
        return back;
    }

    @Test
    void everyCommandRoundTrips() {
        List<MoveCommand> commands = List.of(
                new StartSend(1, "rs-b"),
                new ReceiveChunk(2, "rs-a", 9, 3, ENTRIES),
                new ReceiveChunk(2, "", Long.MAX_VALUE, 0, List.of()),
                new FinishReceive(3, 9, 1_000_000, -5L, false),
                new FinishReceive(3, 9, 1_000_000, -5L, true),
                new ReceiveLastChunk(3, "rs-a", 9, 4, ENTRIES, 1_000_000, -5L, false),
                new ReceiveLastChunk(3, "rs-a", 9, 4, ENTRIES, 1_000_000, -5L, true),
                new ReceiveLastChunk(3, "rs-a", 9, 0, List.of(), 0, 0, false),
                new MarkSent(4, 9),
                new Activate(5, 9),
                new RollbackSend(6, 9),
                new AbortReceive(7, 9),
                new DropData(8, 9),
                new Pin(9, true),
                new Pin(10, false),
                new Contain(11, 4, "rs-2,rs-3"),
                new Quarantine(12, 4),
                new Reactivate(13, 6),
                new DropQuarantined(14, 4, 604_800_000L),
                new StartCopy(15, "rs-c"),
                new SendCopied(16, "rs-c", 7),
                new CancelCopy(17, 7),
                new CancelCopy(17, 7, false),
                new ReceiveChunk(18, "rs-a", 9, 5, List.of(ChunkEntry.deletion(bytes("gone")), ENTRIES.get(0))),
                new AdoptArchive(19, "rs-a", 9, new ArchivePointer("cairn/rs-b/buckets/19/8-ab", 8, 10, 200, 300, "ab")),
                new AdoptBackup(20, 4, new ArchivePointer("cairn/rs-b/buckets/20/8-ab", 8, 10, 200, 300, "ab")),
                new AdoptRestored(21, 8, new ArchivePointer("cairn/rs-b/buckets/21/8-ab", 8, 10, 200, 300, "ab")));
        for (MoveCommand c : commands) assertThat(roundTrip(c)).isEqualTo(c);
    }

    @Test
    void unicodeNamesRoundTrip() {
        assertThat(roundTrip(new StartSend(1, "réplica-ü-東"))).isEqualTo(new StartSend(1, "réplica-ü-東"));
    }

    @ParameterizedTest
    @EnumSource(MoveReply.Outcome.class)
    void everyReplyRoundTrips(MoveReply.Outcome outcome) {
        for (MoveReply r : List.of(new MoveReply(outcome, RECORD, 17, "why"), new MoveReply(outcome, null, 0, ""))) {
            ByteBuffer in = ByteBuffer.wrap(MoveCodec.encode(r));
            assertThat(MoveCodec.decodeReply(in)).isEqualTo(r);
            assertThat(in.remaining()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(MoveReply.Refusal.class)
    void everyRefusalRoundTripsAsItsType(MoveReply.Refusal refusal) {
        MoveReply r = MoveReply.refused(RECORD, refusal, "words nobody compares");
        MoveReply back = MoveCodec.decodeReply(ByteBuffer.wrap(MoveCodec.encode(r)));
        assertThat(back.refusal()).isEqualTo(refusal == MoveReply.Refusal.NONE ? MoveReply.Refusal.STATE : refusal);
        assertThat(back).isEqualTo(r);
    }

    @Test
    void anOlderNodesReplyIsReadWithItsRefusalTakenFromItsWords() {
        // as nodes before the refusal code wrote them: no changes flag when there were none, no refusal code ever
        ByteBuffer refsHeld = ByteBuffer.wrap(olderReply(MoveReply.Outcome.REFUSED, BucketLedger.REFS_HELD));
        assertThat(MoveCodec.decodeReply(refsHeld).refusal()).isEqualTo(MoveReply.Refusal.REFS_HELD);
        assertThat(MoveCodec.decodeReply(ByteBuffer.wrap(olderReply(MoveReply.Outcome.REFUSED, "bucket 42 is SENT"))).refusal())
                .isEqualTo(MoveReply.Refusal.STATE);
        assertThat(MoveCodec.decodeReply(ByteBuffer.wrap(olderReply(MoveReply.Outcome.OK, ""))).refusal()).isEqualTo(MoveReply.Refusal.NONE);
    }

    @Test
    void anOlderNodeReadsANewReplyUpToWhatItKnows() {
        MoveReply r = MoveReply.refused(RECORD, MoveReply.Refusal.REFS_HELD, BucketLedger.REFS_HELD);
        byte[] older = olderReply(MoveReply.Outcome.REFUSED, BucketLedger.REFS_HELD);
        byte[] newer = MoveCodec.encode(r);
        assertThat(Arrays.copyOf(newer, older.length)).as("the fields an older node reads").isEqualTo(older);
        assertThat(newer[older.length]).as("then a changes flag an older node reads as none").isZero();
    }

    /** A reply without changes as nodes wrote it before refusals had codes: outcome, record, expected seq, message. */
    private static byte[] olderReply(MoveReply.Outcome outcome, String message) {
        byte[] record = DiscoveryPage.encodeRecord(RECORD);
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + 1 + record.length + 4 + 4 + text.length)
                .put(outcome.code()).put((byte) 1).put(record).putInt(0).putInt(text.length).put(text).array();
    }

    @Test
    void everyQueryRoundTrips() {
        ReadChunk rc = new ReadChunk(3, 8, bytes("after"), 1000, 1 << 20);
        ByteBuffer in = ByteBuffer.wrap(MoveCodec.encode(rc));
        ReadChunk back = (ReadChunk) MoveCodec.decodeQuery(in);
        assertThat(in.remaining()).isZero();
        assertThat(back.bucket()).isEqualTo(3);
        assertThat(back.generation()).isEqualTo(8);
        assertThat(back.afterKey()).isEqualTo(bytes("after"));
        assertThat(back.maxKeys()).isEqualTo(1000);
        assertThat(back.maxBytes()).isEqualTo(1 << 20);
        assertThat(((ReadChunk) MoveCodec.decodeQuery(ByteBuffer.wrap(MoveCodec.encode(new ReadChunk(1, 0, new byte[0], 1, 1))))).afterKey())
                .isEmpty();
        for (MoveQuery q : List.of(new Digest(77), new Status(12), new Inspect(List.of(1, 2, 3000), true), new Inspect(List.of(), false),
                new Verify(List.of(9, 10)), new ArchiveOf(19))) {
            ByteBuffer buf = ByteBuffer.wrap(MoveCodec.encode(q));
            assertThat(MoveCodec.decodeQuery(buf)).isEqualTo(q);
            assertThat(buf.remaining()).isZero();
        }
    }

    @Test
    void changesQueriesAndPagesRoundTrip() {
        ReadChanges q = (ReadChanges) MoveCodec.decodeQuery(ByteBuffer.wrap(MoveCodec.encode(new ReadChanges(4, 6, bytes("k"), 10, 99))));
        assertThat(List.of(q.bucket(), q.generation(), q.maxKeys(), q.maxBytes())).containsExactly(4, 6L, 10, 99);
        assertThat(q.afterKey()).isEqualTo(bytes("k"));
        List<ChunkEntry> changes = List.of(ChunkEntry.deletion(bytes("gone")), ENTRIES.get(0));
        for (ChangesPage p : List.of(new ChangesPage(new ChunkPage(changes, true, ""), 12, -3L), new ChangesPage(new ChunkPage(List.of(), false, ""), -1, -1))) {
            ByteBuffer in = ByteBuffer.wrap(MoveCodec.encode(p));
            ChangesPage back = MoveCodec.decodeChangesPage(in);
            assertThat(back).isEqualTo(p);
            assertThat(in.remaining()).isZero();
            MoveReply withChanges = new MoveReply(MoveReply.Outcome.OK, RECORD, 0, "", p); // SendCopied's answer
            ByteBuffer reply = ByteBuffer.wrap(MoveCodec.encode(withChanges));
            assertThat(MoveCodec.decodeReply(reply)).isEqualTo(withChanges);
            assertThat(reply.remaining()).isZero();
        }
        assertThat(changes.get(0).isDeletion()).isTrue();
        assertThat(ENTRIES.get(0).isDeletion()).isFalse();
    }

    @Test
    void exportChunkQueriesRoundTrip() {
        ExportChunk q = (ExportChunk) MoveCodec.decodeQuery(ByteBuffer.wrap(MoveCodec.encode(new ExportChunk(4, bytes("k"), 10, 99))));
        assertThat(q.bucket()).isEqualTo(4);
        assertThat(q.afterKey()).isEqualTo(bytes("k"));
        assertThat(q.maxKeys()).isEqualTo(10);
        assertThat(q.maxBytes()).isEqualTo(99);
    }

    @Test
    void bucketReportsRoundTrip() {
        List<BucketReport> reports = List.of(new BucketReport(RECORD, 12, 1_700_000_000_000L), new BucketReport(RECORD, -1, -1));
        ByteBuffer in = ByteBuffer.wrap(MoveCodec.encodeReports(reports));
        assertThat(MoveCodec.decodeReports(in)).isEqualTo(reports);
        assertThat(in.remaining()).isZero();
    }

    @Test
    void archiveStatesRoundTripWithAndWithoutARecordOrPointer() {
        ArchivePointer p = new ArchivePointer("cairn/rs-a/buckets/42/7-cd", 7, 3, 30, 130, "cd");
        for (ArchiveState a : List.of(new ArchiveState(RECORD, p), new ArchiveState(RECORD, null), new ArchiveState(null, null))) {
            ByteBuffer buf = ByteBuffer.wrap(MoveCodec.encode(a));
            assertThat(MoveCodec.decodeArchiveState(buf)).isEqualTo(a);
            assertThat(buf.remaining()).isZero();
        }
    }

    @Test
    void chunkPagesRoundTrip() {
        for (ChunkPage p : List.of(new ChunkPage(ENTRIES, false, ""), new ChunkPage(List.of(), true, "not SENDING"))) {
            ByteBuffer in = ByteBuffer.wrap(MoveCodec.encode(p));
            assertThat(MoveCodec.decodeChunkPage(in)).isEqualTo(p);
            assertThat(in.remaining()).isZero();
        }
    }

    @Test
    void digestsRoundTrip() {
        for (BucketDigest d : List.of(new BucketDigest(RECORD, 12, 0xffffffffL * 12), new BucketDigest(null, 0, 0))) {
            ByteBuffer in = ByteBuffer.wrap(MoveCodec.encode(d));
            assertThat(MoveCodec.decodeDigest(in)).isEqualTo(d);
            assertThat(in.remaining()).isZero();
        }
    }

    @Test
    void statusesRoundTrip() {
        BucketRecord receiving = new BucketRecord(9, BucketState.RECEIVING, 3, 99, "rs-a", 0);
        for (MoveStatus s : List.of(new MoveStatus(10, 2, 1, 1, List.of(RECORD, receiving), List.of(1, 2, 3)),
                new MoveStatus(0, 0, 0, 0, List.of(), List.of()))) {
            ByteBuffer in = ByteBuffer.wrap(MoveCodec.encode(s));
            assertThat(MoveCodec.decodeStatus(in)).isEqualTo(s);
            assertThat(in.remaining()).isZero();
        }
    }

    @Test
    void receiveProgressRoundTrips() {
        ReceiveProgress p = new ReceiveProgress(5, 12, 1000, -1234567L, true);
        assertThat(ReceiveProgress.decode(p.encode())).isEqualTo(p);
    }
}
