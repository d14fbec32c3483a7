package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveCommand.*;
import io.cairn.core.move.MoveReply.Outcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.cairn.core.BucketState.*;
import static io.cairn.core.move.InMemoryReplicaset.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/** One test per rule of {@link BucketLedger}, applied to an in-memory source and destination. */
class BucketLedgerTest {
    private static final int B = 7;
    private InMemoryReplicaset src;
    private InMemoryReplicaset dst;

    @BeforeEach
    void setUp() {
        src = new InMemoryReplicaset("a").bootstrap(B, 3, 3);
        dst = new InMemoryReplicaset("b");
    }

    private static ChunkEntry entry(String k, String v) {
        return new ChunkEntry(bytes(k), bytes(v));
    }

    private static ReceiveChunk chunk(long generation, int seq, ChunkEntry... entries) {
        return new ReceiveChunk(B, "a", generation, seq, List.of(entries));
    }

    private static long crc(ChunkEntry... entries) {
        long sum = 0;
        for (ChunkEntry e : entries) sum += e.crc();
        return sum;
    }

    /** Streams the source's whole bucket to dst at {@code generation}, one key per chunk. */
    private void copyAll(long generation) {
        int seq = 0;
        for (var e : src.keys(B).entrySet()) {
            assertThat(dst.apply(new ReceiveChunk(B, "a", generation, seq++, List.of(new ChunkEntry(e.getKey(), e.getValue())))).outcome())
                    .isEqualTo(Outcome.OK);
        }
    }

    private MoveReply finish(long generation) {
        var d = src.digest(B);
        return dst.apply(new FinishReceive(B, generation, d.keyCount(), d.checksum(), false));
    }

    @Test
    void aVerdictWithActivateMakesACompleteCopyActiveAndAnIncompleteOneGarbage() {
        src.apply(new StartSend(B, "b"));
        copyAll(4);
        var d = src.digest(B);
        MoveReply verdict = dst.apply(new FinishReceive(B, 4, d.keyCount(), d.checksum(), true));
        assertThat(verdict.outcome()).isEqualTo(Outcome.COMPLETE);
        assertThat(verdict.record()).extracting(BucketRecord::state, BucketRecord::generation).containsExactly(ACTIVE, 4L);
        assertThat(dst.progress(B)).as("the receive progress ends with the copy").isNull();
        assertThat(dst.apply(new FinishReceive(B, 4, d.keyCount(), d.checksum(), true)).outcome()).as("idempotent").isEqualTo(Outcome.COMPLETE);
        assertThat(dst.apply(new FinishReceive(B, 4, 0, 0, true)).outcome()).as("an active copy is never fenced").isEqualTo(Outcome.COMPLETE);

        InMemoryReplicaset other = new InMemoryReplicaset("c");
        other.apply(chunk(4, 0, entry("k", "v")));
        MoveReply short_ = other.apply(new FinishReceive(B, 4, d.keyCount(), d.checksum(), true));
        assertThat(short_.outcome()).isEqualTo(Outcome.ABORTED);
        assertThat(short_.record().state()).isEqualTo(GARBAGE);
    }

    @Test
    void aCopiedSourceAsksAgainAfterItsCopyWasActivatedAndMovedOn() {
        src.apply(new StartSend(B, "b"));
        copyAll(4);
        var d = src.digest(B);
        dst.apply(new FinishReceive(B, 4, d.keyCount(), d.checksum(), true));
        assertThat(dst.apply(new StartSend(B, "c")).record().generation()).isEqualTo(5);
        assertThat(dst.apply(new FinishReceive(B, 4, d.keyCount(), d.checksum(), true)).outcome())
                .as("only an activated copy lifts the bucket above a copied source's generation").isEqualTo(Outcome.COMPLETE);
        assertThat(dst.apply(new FinishReceive(B, 4, d.keyCount(), d.checksum(), false)).outcome())
                .as("without activation at the verdict this cannot happen: never roll back over it").isEqualTo(Outcome.REFUSED);
    }

    @Test
    void theLastChunkCarriesTheVerdict() {
        src.apply(new StartSend(B, "b"));
        var keys = new java.util.ArrayList<>(src.keys(B).entrySet());
        ChunkEntry first = new ChunkEntry(keys.get(0).getKey(), keys.get(0).getValue());
        ChunkEntry rest1 = new ChunkEntry(keys.get(1).getKey(), keys.get(1).getValue());
        ChunkEntry rest2 = new ChunkEntry(keys.get(2).getKey(), keys.get(2).getValue());
        var d = src.digest(B);
        dst.apply(chunk(4, 0, first));
        ReceiveLastChunk last = new ReceiveLastChunk(B, "a", 4, 1, List.of(rest1, rest2), d.keyCount(), d.checksum(), false);

        assertThat(dst.apply(last).outcome()).isEqualTo(Outcome.COMPLETE);
        assertThat(dst.keys(B)).hasSize(3);
        assertThat(dst.apply(last).outcome()).as("sent again").isEqualTo(Outcome.COMPLETE);
        assertThat(dst.apply(new Activate(B, 4)).outcome()).isEqualTo(Outcome.OK);
    }

    @Test
    void aNewCopyReplacesTheLeftoversOfAnAbandonedOne() {
        dst.apply(chunk(4, 0, entry("old", "v")));               // a copy at generation 4, never finished
        assertThat(dst.apply(chunk(6, 0, entry("new", "v"))).outcome()).isEqualTo(Outcome.OK);
        assertThat(dst.keys(B).keySet()).extracting(String::new).containsExactly("new");
        assertThat(dst.record(B).generation()).isEqualTo(6);
    }

    @Test
    void aBucketComingBackWhereItsDataWasDroppedHoldsOnlyWhatArrives() {
        src.apply(new StartSend(B, "b"));
        copyAll(4);
        assertThat(finish(4).outcome()).isEqualTo(Outcome.COMPLETE);
        src.apply(new MarkSent(B, 4));
        dst.apply(new Activate(B, 4));
        src.apply(new DropData(B, 4));                             // src: SENT tombstone, data dropped
        assertThat(src.keys(B)).isEmpty();

        dst.apply(new StartSend(B, "a"));                          // and back, generation 5
        ChunkEntry only = entry("back", "v");
        assertThat(src.apply(new ReceiveLastChunk(B, "b", 5, 0, List.of(only), 1, crc(only), false)).outcome()).isEqualTo(Outcome.COMPLETE);
        assertThat(src.keys(B).keySet()).extracting(String::new).containsExactly("back");
    }

    @Test
    void aLastChunkAfterAMissingOneFencesTheCopy() {
        src.apply(new StartSend(B, "b"));
        var d = src.digest(B);
        dst.apply(chunk(4, 0, entry("k1", "v")));
        MoveReply verdict = dst.apply(new ReceiveLastChunk(B, "a", 4, 2, List.of(entry("k3", "v")), d.keyCount(), d.checksum(), false));
        assertThat(verdict.outcome()).as("chunk 1 never arrived").isEqualTo(Outcome.ABORTED);
        assertThat(dst.record(B).state()).isEqualTo(GARBAGE);
        assertThat(dst.keys(B)).isEmpty();
    }

    @Test
    void aLastChunkThatDoesNotAddUpFencesTheCopy() {
        src.apply(new StartSend(B, "b"));
        var d = src.digest(B);
        ReceiveLastChunk last = new ReceiveLastChunk(B, "a", 4, 0, List.of(entry("k", "v")), d.keyCount(), d.checksum(), false);
        MoveReply verdict = dst.apply(last);
        assertThat(verdict.outcome()).isEqualTo(Outcome.ABORTED);
        assertThat(dst.record(B).state()).isEqualTo(GARBAGE);
        assertThat(dst.keys(B)).isEmpty();
        assertThat(dst.apply(last).outcome()).as("sent again: still fenced, never a second verdict").isEqualTo(Outcome.ABORTED);
        assertThat(dst.apply(new Activate(B, 4)).outcome()).isEqualTo(Outcome.REFUSED);
    }

    @Test
    void startSendBumpsGenerationAndRefusesPinned() {
        MoveReply r = src.apply(new StartSend(B, "b"));
        assertThat(r.outcome()).isEqualTo(Outcome.OK);
        assertThat(r.record().state()).isEqualTo(SENDING);
        assertThat(r.record().generation()).isEqualTo(4);
        assertThat(r.record().peer()).isEqualTo("b");
        assertThat(src.apply(new StartSend(B, "b")).record()).as("idempotent").isEqualTo(r.record());
        assertThat(src.apply(new StartSend(B, "c")).outcome()).as("another destination").isEqualTo(Outcome.REFUSED);
        assertThat(src.write(B, "k9", "x")).as("writes refused while SENDING").isFalse();

        InMemoryReplicaset pinned = new InMemoryReplicaset("p").bootstrap(B, 1, 1);
        assertThat(pinned.apply(new Pin(B, true)).record().state()).isEqualTo(PINNED);
        MoveReply refused = pinned.apply(new StartSend(B, "b"));
        assertThat(refused.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(pinned.record(B).state()).isEqualTo(PINNED);
        assertThat(pinned.record(B).generation()).isEqualTo(1);
        assertThat(new InMemoryReplicaset("e").apply(new StartSend(B, "b")).outcome()).as("unknown bucket").isEqualTo(Outcome.REFUSED);
    }

    @Test
    void chunksAreIdempotentAndGapsAreReported() {
        ChunkEntry e0 = entry("a", "1"), e1 = entry("b", "2");
        MoveReply gap0 = dst.apply(chunk(4, 1, e1));
        assertThat(gap0.outcome()).as("a copy starts at chunk 0").isEqualTo(Outcome.GAP);
        assertThat(dst.record(B)).isNull();

        MoveReply first = dst.apply(chunk(4, 0, e0));
        assertThat(first.outcome()).isEqualTo(Outcome.OK);
        assertThat(first.record().state()).isEqualTo(RECEIVING);
        assertThat(first.record().generation()).isEqualTo(4);
        assertThat(first.record().peer()).isEqualTo("a");
        assertThat(dst.apply(chunk(4, 0, e0)).outcome()).as("duplicate").isEqualTo(Outcome.OK);
        assertThat(dst.progress(B).nextSeq()).isEqualTo(1);
        assertThat(dst.progress(B).keyCount()).isEqualTo(1);

        MoveReply gap = dst.apply(chunk(4, 2, e1));
        assertThat(gap.outcome()).isEqualTo(Outcome.GAP);
        assertThat(gap.expectedSeq()).isEqualTo(1);
        assertThat(dst.apply(chunk(4, 1, e1)).outcome()).isEqualTo(Outcome.OK);
        assertThat(dst.progress(B)).isEqualTo(new ReceiveProgress(4, 2, 2, crc(e0, e1), false));
        assertThat(dst.keys(B)).hasSize(2);
        assertThat(dst.apply(chunk(3, 0, e0)).outcome()).as("stale generation").isEqualTo(Outcome.REFUSED);
    }

    @Test
    void finishWithMatchingDigestCompletesAndMismatchFences() {
        src.apply(new StartSend(B, "b"));
        copyAll(4);
        MoveReply complete = finish(4);
        assertThat(complete.outcome()).isEqualTo(Outcome.COMPLETE);
        assertThat(dst.progress(B).complete()).isTrue();
        assertThat(finish(4).outcome()).as("idempotent").isEqualTo(Outcome.COMPLETE);
        assertThat(dst.apply(new FinishReceive(B, 4, 99, 99, false)).outcome()).as("a complete copy stays complete").isEqualTo(Outcome.COMPLETE);

        InMemoryReplicaset other = new InMemoryReplicaset("c");
        other.apply(chunk(4, 0, entry("k0", "v0")));
        MoveReply aborted = other.apply(new FinishReceive(B, 4, 3, src.digest(B).checksum(), false));
        assertThat(aborted.outcome()).isEqualTo(Outcome.ABORTED);
        assertThat(aborted.record().state()).isEqualTo(GARBAGE);
        assertThat(aborted.record().generation()).isEqualTo(4);
        assertThat(aborted.record().flags() & BucketRecord.FLAG_DATA_DROPPED).isNotZero();
        assertThat(other.keys(B)).isEmpty();
        assertThat(other.progress(B)).isNull();
        assertThat(other.apply(new FinishReceive(B, 4, 3, 0, false)).outcome()).as("stays fenced").isEqualTo(Outcome.ABORTED);
    }

    @Test
    void finishWithNothingReceivedFencesAnUnknownBucket() {
        MoveReply r = dst.apply(new FinishReceive(B, 4, 3, 123, false));
        assertThat(r.outcome()).isEqualTo(Outcome.ABORTED);
        assertThat(dst.record(B).state()).isEqualTo(GARBAGE);
        assertThat(dst.record(B).generation()).isEqualTo(4);
    }

    @Test
    void fencedCopyRefusesLateChunksOfItsGeneration() {
        dst.apply(chunk(4, 0, entry("k0", "v0")));
        dst.apply(new AbortReceive(B, 4));
        assertThat(dst.record(B).state()).isEqualTo(GARBAGE);
        for (int seq = 0; seq < 3; seq++) {
            assertThat(dst.apply(chunk(4, seq, entry("k1", "v1"))).outcome()).as("seq %s", seq).isEqualTo(Outcome.REFUSED);
        }
        assertThat(dst.keys(B)).isEmpty();
        assertThat(dst.apply(new Activate(B, 4)).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(dst.record(B).state()).isEqualTo(GARBAGE);

        InMemoryReplicaset never = new InMemoryReplicaset("c");
        never.apply(new FinishReceive(B, 4, 1, 1, false));
        assertThat(never.apply(chunk(4, 0, entry("k0", "v0"))).outcome()).as("fence before any chunk").isEqualTo(Outcome.REFUSED);
        assertThat(never.record(B).state()).isEqualTo(GARBAGE);
    }

    @Test
    void activateRequiresCompleteCopy() {
        src.apply(new StartSend(B, "b"));
        dst.apply(chunk(4, 0, entry("k0", "v0")));
        assertThat(dst.apply(new Activate(B, 4)).outcome()).as("incomplete").isEqualTo(Outcome.REFUSED);
        assertThat(dst.record(B).state()).isEqualTo(RECEIVING);

        InMemoryReplicaset full = new InMemoryReplicaset("c");
        dst = full;
        copyAll(4);
        assertThat(full.apply(new Activate(B, 4)).outcome()).as("not verified yet").isEqualTo(Outcome.REFUSED);
        assertThat(finish(4).outcome()).isEqualTo(Outcome.COMPLETE);
        assertThat(full.apply(new Activate(B, 5)).outcome()).as("other generation").isEqualTo(Outcome.REFUSED);
        MoveReply ok = full.apply(new Activate(B, 4));
        assertThat(ok.outcome()).isEqualTo(Outcome.OK);
        assertThat(ok.record().state()).isEqualTo(ACTIVE);
        assertThat(full.progress(B)).isNull();
        assertThat(full.apply(new Activate(B, 4)).record()).as("idempotent").isEqualTo(ok.record());
        assertThat(full.keys(B)).hasSize(3);
    }

    @Test
    void markSentOnlyFromSendingAtSameGeneration() {
        assertThat(src.apply(new MarkSent(B, 3)).outcome()).as("ACTIVE").isEqualTo(Outcome.REFUSED);
        src.apply(new StartSend(B, "b"));
        assertThat(src.apply(new MarkSent(B, 3)).outcome()).as("older generation").isEqualTo(Outcome.REFUSED);
        assertThat(src.apply(new MarkSent(B, 5)).outcome()).as("newer generation").isEqualTo(Outcome.REFUSED);
        MoveReply sent = src.apply(new MarkSent(B, 4));
        assertThat(sent.outcome()).isEqualTo(Outcome.OK);
        assertThat(sent.record().state()).isEqualTo(SENT);
        assertThat(sent.record().generation()).isEqualTo(4);
        assertThat(sent.record().peer()).isEqualTo("b");
        assertThat(src.apply(new MarkSent(B, 4)).record()).as("idempotent").isEqualTo(sent.record());
        assertThat(src.apply(new RollbackSend(B, 4)).outcome()).as("no rollback after SENT").isEqualTo(Outcome.REFUSED);
        assertThat(src.keys(B)).as("data stays until DropData").hasSize(3);
    }

    @Test
    void rollbackOnlyFromSending() {
        assertThat(src.apply(new RollbackSend(B, 4)).outcome()).as("ACTIVE at another generation").isEqualTo(Outcome.REFUSED);
        src.apply(new StartSend(B, "b"));
        assertThat(src.apply(new RollbackSend(B, 3)).outcome()).isEqualTo(Outcome.REFUSED);
        MoveReply back = src.apply(new RollbackSend(B, 4));
        assertThat(back.outcome()).isEqualTo(Outcome.OK);
        assertThat(back.record().state()).isEqualTo(ACTIVE);
        assertThat(back.record().generation()).as("a generation is never taken back").isEqualTo(4);
        assertThat(back.record().peer()).isEmpty();
        assertThat(src.apply(new RollbackSend(B, 4)).record()).as("idempotent").isEqualTo(back.record());
        assertThat(src.write(B, "k9", "x")).isTrue();
    }

    @Test
    void dropDataKeepsTombstone() {
        src.apply(new StartSend(B, "b"));
        assertThat(src.apply(new DropData(B, 4)).outcome()).as("SENDING data is never dropped").isEqualTo(Outcome.REFUSED);
        src.apply(new MarkSent(B, 4));
        assertThat(src.apply(new DropData(B, 3)).outcome()).isEqualTo(Outcome.REFUSED);
        MoveReply dropped = src.apply(new DropData(B, 4));
        assertThat(dropped.outcome()).isEqualTo(Outcome.OK);
        assertThat(dropped.record().state()).isEqualTo(SENT);
        assertThat(dropped.record().flags() & BucketRecord.FLAG_DATA_DROPPED).isNotZero();
        assertThat(src.keys(B)).isEmpty();
        assertThat(src.record(B)).isEqualTo(dropped.record());
        assertThat(src.apply(new DropData(B, 4)).record()).as("idempotent").isEqualTo(dropped.record());
        assertThat(src.status(10).unfinished()).isEmpty();
    }

    @Test
    void aBucketCanComeBackAtAHigherGeneration() {
        // a -> b at generation 4
        src.apply(new StartSend(B, "b"));
        copyAll(4);
        finish(4);
        src.apply(new MarkSent(B, 4));
        dst.apply(new Activate(B, 4));
        src.apply(new DropData(B, 4));
        // b -> a at generation 5
        assertThat(dst.apply(new StartSend(B, "a")).record().generation()).isEqualTo(5);
        int seq = 0;
        for (var e : dst.keys(B).entrySet()) {
            assertThat(src.apply(new ReceiveChunk(B, "b", 5, seq++, List.of(new ChunkEntry(e.getKey(), e.getValue())))).outcome())
                    .isEqualTo(Outcome.OK);
        }
        var d = dst.digest(B);
        assertThat(src.apply(new FinishReceive(B, 5, d.keyCount(), d.checksum(), false)).outcome()).isEqualTo(Outcome.COMPLETE);
        dst.apply(new MarkSent(B, 5));
        MoveReply back = src.apply(new Activate(B, 5));
        assertThat(back.record().state()).isEqualTo(ACTIVE);
        assertThat(back.record().generation()).isEqualTo(5);
        assertThat(back.record().flags()).as("the dropped flag of the old tombstone is cleared").isZero();
        assertThat(src.keys(B)).hasSize(3);
        assertThat(src.apply(chunk(4, 0, entry("k0", "old"))).outcome()).as("stale chunk").isEqualTo(Outcome.REFUSED);
    }

    @Test
    void receivingOverAnOwnedCopyIsRefused() {
        InMemoryReplicaset owner = new InMemoryReplicaset("c").bootstrap(B, 2, 1);
        MoveReply r = owner.apply(chunk(4, 0, entry("k0", "x")));
        assertThat(r.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(owner.record(B).state()).isEqualTo(ACTIVE);
        assertThat(owner.apply(new FinishReceive(B, 4, 1, 1, false)).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(owner.record(B).state()).isEqualTo(ACTIVE);
        assertThat(owner.keys(B).get(bytes("k0"))).isEqualTo(bytes("v0"));
    }

    @Test
    void abortReceiveRefusesACompleteCopy() {
        src.apply(new StartSend(B, "b"));
        copyAll(4);
        finish(4);
        assertThat(dst.apply(new AbortReceive(B, 4)).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(dst.record(B).state()).isEqualTo(RECEIVING);
    }

    @Test
    void everyRecordChangeTakesANewBsn() {
        src.apply(new StartSend(B, "b"));
        copyAll(4);
        finish(4);
        src.apply(new MarkSent(B, 4));
        src.apply(new MarkSent(B, 4));
        dst.apply(new Activate(B, 4));
        src.apply(new DropData(B, 4));
        for (InMemoryReplicaset rs : List.of(src, dst)) {
            long last = 0;
            for (BucketRecord r : rs.puts) {
                assertThat(r.bsn()).as("%s: %s", rs.id, r).isGreaterThan(last);
                last = r.bsn();
            }
            assertThat(rs.record(B).bsn()).isEqualTo(rs.bsn);
        }
        // bootstrap, SENDING, SENT, dropped: the idempotent second MarkSent changed nothing
        assertThat(src.puts).extracting(BucketRecord::state).containsExactly(ACTIVE, SENDING, SENT, SENT);
        // RECEIVING on chunk 0, then ACTIVE
        assertThat(dst.puts).extracting(BucketRecord::state).containsExactly(RECEIVING, ACTIVE);
    }

    @Test
    void pinAndUnpin() {
        assertThat(src.apply(new Pin(B, true)).record().state()).isEqualTo(PINNED);
        assertThat(src.apply(new Pin(B, true)).record().state()).isEqualTo(PINNED);
        assertThat(src.write(B, "k9", "x")).isTrue();
        assertThat(src.apply(new Pin(B, false)).record().state()).isEqualTo(ACTIVE);
        src.apply(new StartSend(B, "b"));
        assertThat(src.apply(new Pin(B, true)).outcome()).isEqualTo(Outcome.REFUSED);
    }
}
