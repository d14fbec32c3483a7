package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveCommand.*;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

import static io.cairn.core.BucketState.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Moves that copy a bucket while it still serves writes ({@link SendMove.Limits#copyAhead}):
 * {@link SendMove} and {@link BucketLedger} against two in-memory replicasets, with client writes
 * and deletes landing between the driver's steps.
 */
class CopyAheadTest {
    private static final int B = 11;
    private static final int KEYS = 7;
    private static final SendMove.Limits COPY_AHEAD = new SendMove.Limits(3, 1 << 20, 10, true);

    private final InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(B, 1, KEYS);
    private final InMemoryReplicaset b = new InMemoryReplicaset("b");
    private final FakeMovePort port = new FakeMovePort(a, b);
    private final List<SendMove> done = new ArrayList<>();

    private SendMove start() {
        SendMove m = SendMove.start(B, "a", "b", port, COPY_AHEAD, done::add);
        port.runTimers(100);
        return m;
    }

    private static TreeMap<String, String> contents(InMemoryReplicaset rs) {
        TreeMap<String, String> out = new TreeMap<>();
        rs.keys(B).forEach((k, v) -> out.put(new String(k), new String(v)));
        return out;
    }

    @Test
    void writesDuringTheCopyAreServedAndTheDestinationEndsWithTheSourcesLastState() {
        List<Boolean> servedWhileCopying = new ArrayList<>();
        TreeMap<String, String> atHandOver = new TreeMap<>();
        int[] n = {0};
        port.beforeCall = call -> {
            if (call.equals("ReceiveChunk@b") && a.record(B).marksChanges()) {
                n[0]++;
                servedWhileCopying.add(a.write(B, "k0", "overwritten-" + n[0]));  // a key already copied
                servedWhileCopying.add(a.delete(B, "k" + (KEYS - n[0])));         // k6 not copied yet, k5 copied
                servedWhileCopying.add(a.write(B, "a-new-" + n[0], "fresh"));     // before the next chunk's start
            }
            if (call.equals("ReadChanges@a")) {
                atHandOver.putAll(contents(a));
                assertThat(a.write(B, "k1", "too late")).as("SENDING refuses writes").isFalse();
                assertThat(a.record(B).servesReads()).as("and reads: its destination activates before it is SENT").isFalse();
            }
        };
        SendMove m = start();

        assertThat(m.result()).isEqualTo(SendMove.Result.MOVED);
        assertThat(servedWhileCopying).hasSize(9).containsOnly(true);
        assertThat(port.calls).containsExactly(
                "StartCopy@a",
                // k0-k2 with k3-k5 read ahead while it is sent, then k3-k5, then the page after k5, read ahead
                // before k6 was deleted and found empty since (writes go on between the reads and the chunks)
                "ReadChunk@a", "ReadChunk@a", "ReceiveChunk@b", "ReadChunk@a", "ReceiveChunk@b", "ReceiveChunk@b",
                // 7 changed keys, 3 a page: the first in SendCopied's answer, each next one read while the one before is sent
                "SendCopied@a", "ReadChanges@a", "ReceiveChunk@b", "ReadChanges@a", "ReceiveChunk@b", "ReceiveLastChunk@b",
                "MarkSent@a", "DropData@a"); // the verdict activated the copy
        assertThat(contents(b)).isEqualTo(atHandOver).containsEntry("k0", "overwritten-3").containsKeys("a-new-1", "a-new-2", "a-new-3", "k3")
                .doesNotContainKeys("k6", "k5", "k4");
        assertThat(b.record(B)).extracting(BucketRecord::state, BucketRecord::generation).containsExactly(ACTIVE, 2L);
        assertThat(m.keysSent()).isEqualTo(atHandOver.size());
        assertThat(a.record(B).state()).isEqualTo(SENT);
        assertThat(a.record(B).isCopying()).as("DropData ends the copy").isFalse();
        assertThat(a.keys(B)).isEmpty();
        assertThat(a.changed).as("the marks are gone with the data").isEmpty();
    }

    @Test
    void writesAreHeldOnlyForTheChangedKeysAndTheHandOver() {
        SendMove copied = start();
        int started = port.calls.indexOf("SendCopied@a"); // submitted: its apply (the source's digest) is inside
        int activated = port.calls.indexOf("ReceiveLastChunk@b") + 1;
        assertThat(copied.writesHeldMs()).isEqualTo(activated - started).isEqualTo(2);  // SendCopied and the last chunk, which activates

        InMemoryReplicaset quiet = new InMemoryReplicaset("a").bootstrap(B, 1, KEYS);
        quiet.changesInReply = 0;
        FakeMovePort queried = new FakeMovePort(quiet, new InMemoryReplicaset("b"));
        SendMove asked = SendMove.start(B, "a", "b", queried, COPY_AHEAD, x -> { });
        queried.runTimers(100);
        assertThat(asked.result()).isEqualTo(SendMove.Result.MOVED);
        assertThat(asked.writesHeldMs()).as("a source that answers SendCopied without changes is asked for them").isEqualTo(3);

        InMemoryReplicaset src = new InMemoryReplicaset("a").bootstrap(B, 1, KEYS);
        FakeMovePort p = new FakeMovePort(src, new InMemoryReplicaset("b"));
        SendMove whole = SendMove.start(B, "a", "b", p, new SendMove.Limits(3, 1 << 20, 10, false), x -> { });
        p.runTimers(100);
        assertThat(whole.result()).isEqualTo(SendMove.Result.MOVED);
        assertThat(whole.writesHeldMs()).as("without a copy ahead every chunk is inside the window").isEqualTo(9);
    }

    @Test
    void aChangeTheSourceDidNotMarkFencesTheCopyAndTheBucketStaysWhereItWas() {
        port.beforeCall = call -> {
            if (call.equals("SendCopied@a")) {
                assertThat(a.write(B, "k2", "unmarked")).isTrue();
                a.clearChanges(B); // as if the mark were lost: the digest must catch it
            }
        };
        SendMove m = start();

        assertThat(m.result()).isEqualTo(SendMove.Result.ROLLED_BACK);
        assertThat(a.record(B)).extracting(BucketRecord::state, BucketRecord::generation).containsExactly(ACTIVE, 2L);
        assertThat(a.record(B).isCopying()).isFalse();
        assertThat(contents(a)).hasSize(KEYS).containsEntry("k2", "unmarked");
        assertThat(b.record(B).state()).as("fenced").isEqualTo(GARBAGE);
        assertThat(b.keys(B)).isEmpty();
    }

    @Test
    void aCopyTheDestinationRefusesIsCancelledWithoutEverHoldingWrites() {
        b.bootstrap(B, 1, 2); // the destination holds its own routable copy (a doubled bucket)
        List<Boolean> served = new ArrayList<>();
        port.beforeCall = call -> served.add(a.write(B, "during", call));
        SendMove m = start();

        assertThat(m.result()).isEqualTo(SendMove.Result.ROLLED_BACK);
        assertThat(m.detail()).contains("refusing a second copy");
        assertThat(port.calls).doesNotContain("SendCopied@a").endsWith("AbortReceive@b", "CancelCopy@a");
        assertThat(served).containsOnly(true);
        assertThat(m.writesHeldMs()).isEqualTo(-1);
        assertThat(a.record(B)).extracting(BucketRecord::state, BucketRecord::generation, BucketRecord::peer).containsExactly(ACTIVE, 2L, "");
        assertThat(a.record(B).isCopying()).isFalse();
        assertThat(a.changed).as("no marks left behind").isEmpty();
        assertThat(b.keys(B)).as("the destination's own copy is untouched").hasSize(2);
    }

    @Test
    void mapReduceRefsDelayTheHandOverWithoutWastingTheCopy() {
        int[] refused = {0};
        port.intercept = c -> c instanceof SendCopied && refused[0]++ < 3 ? MoveReply.refused(a.record(B), MoveReply.Refusal.REFS_HELD, BucketLedger.REFS_HELD) : null;
        port.beforeCall = call -> { if (call.equals("SendCopied@a")) a.write(B, "k1", "written while refs were held"); };
        SendMove m = start();

        assertThat(m.result()).isEqualTo(SendMove.Result.MOVED);
        assertThat(port.calls.stream().filter(c -> c.equals("ReadChunk@a"))).as("copied once").hasSize(3);
        assertThat(port.calls.stream().filter(c -> c.equals("SendCopied@a"))).hasSize(4);
        assertThat(contents(b)).containsEntry("k1", "written while refs were held");
    }

    @Test
    void aCopyLeftWithoutDriverIsAbandonedAndTheNextMoveTakesTheNextGeneration() {
        a.apply(new StartCopy(B, "b"));
        var page = a.readChunk(new MoveQuery.ReadChunk(B, 2, new byte[0], 3, 1 << 20));
        b.apply(new ReceiveChunk(B, "a", 2, 0, page.entries()));
        assertThat(a.write(B, "k0", "still served")).isTrue();

        SendMove resumed = SendMove.resume(a.record(B), "a", port, COPY_AHEAD, done::add);
        port.runTimers(100);
        assertThat(resumed.result()).isEqualTo(SendMove.Result.ROLLED_BACK);
        assertThat(port.calls).containsExactly("AbortReceive@b", "CancelCopy@a");
        assertThat(b.record(B)).extracting(BucketRecord::state, BucketRecord::generation).containsExactly(GARBAGE, 2L);
        assertThat(a.record(B).marksChanges()).isFalse();

        SendMove again = SendMove.start(B, "a", "b", port, COPY_AHEAD, done::add);
        port.runTimers(100);
        assertThat(again.result()).isEqualTo(SendMove.Result.MOVED);
        assertThat(again.generation()).isEqualTo(3);
        assertThat(contents(b)).hasSize(KEYS).containsEntry("k0", "still served");
    }

    /**
     * Issue 21: the source is restored from a copy of its folder taken while the copy ran, after the
     * move finished. Ending the restored copy's copy-ahead must leave it below the owner's generation
     * (a clean double that generations settle), never at the owner's (an equal tie).
     */
    @Test
    void aSourceRestoredFromACopyTakenDuringTheCopyAheadStaysBelowTheOwner() {
        InMemoryReplicaset restored = new InMemoryReplicaset("a").bootstrap(B, 1, KEYS);
        restored.apply(new StartCopy(B, "b")); // the backup: copying ahead at generation 2, still at 1
        assertThat(start().result()).isEqualTo(SendMove.Result.MOVED);
        assertThat(b.record(B)).extracting(BucketRecord::state, BucketRecord::generation).containsExactly(ACTIVE, 2L);

        FakeMovePort afterRestore = new FakeMovePort(restored, b);
        SendMove resumed = SendMove.resume(restored.record(B), "a", afterRestore, COPY_AHEAD, done::add);
        afterRestore.runTimers(100);
        assertThat(resumed.result()).isEqualTo(SendMove.Result.ROLLED_BACK);
        assertThat(afterRestore.calls).containsExactly("AbortReceive@b", "CancelCopy@a");
        assertThat(resumed.detail()).contains("the destination owns bucket " + B);
        assertThat(restored.record(B)).extracting(BucketRecord::state, BucketRecord::generation).containsExactly(ACTIVE, 1L);
        assertThat(restored.record(B).isCopying()).isFalse();
        assertThat(b.record(B)).extracting(BucketRecord::state, BucketRecord::generation).containsExactly(ACTIVE, 2L);
    }

    @Test
    void aResumedHandOverSendsTheChangedKeysAgainAndMoves() {
        a.apply(new StartCopy(B, "b"));
        byte[] after = new byte[0];
        for (int seq = 0; seq < 3; seq++) {
            var page = a.readChunk(new MoveQuery.ReadChunk(B, 2, after, 3, 1 << 20));
            b.apply(new ReceiveChunk(B, "a", 2, seq, page.entries()));
            if (!page.entries().isEmpty()) after = page.entries().get(page.entries().size() - 1).key();
        }
        a.write(B, "k1", "changed after its chunk");
        a.apply(new SendCopied(B, "b", 2));

        // The driver died after SendCopied: the destination holds the copy but not the change.
        SendMove m = SendMove.resume(a.record(B), "a", port, COPY_AHEAD, done::add);
        port.runTimers(100);
        assertThat(m.result()).isEqualTo(SendMove.Result.MOVED);
        assertThat(port.calls).containsExactly("ReceiveChunk@b", "ReadChanges@a", "ReceiveLastChunk@b", "MarkSent@a", "DropData@a");
        assertThat(b.record(B).state()).isEqualTo(ACTIVE);
        assertThat(contents(b)).containsEntry("k1", "changed after its chunk").hasSize(KEYS);
        assertThat(a.record(B).state()).isEqualTo(SENT);
    }

    @Test
    void aResumedHandOverWhoseDestinationHoldsNothingRollsBack() {
        a.apply(new StartCopy(B, "b"));
        a.apply(new SendCopied(B, "b", 2));
        SendMove m = SendMove.resume(a.record(B), "a", port, COPY_AHEAD, done::add);
        port.runTimers(100);
        assertThat(m.result()).isEqualTo(SendMove.Result.ROLLED_BACK);
        assertThat(port.calls).containsExactly("ReceiveChunk@b", "Digest@a", "FinishReceive@b", "RollbackSend@a");
        assertThat(a.record(B).state()).isEqualTo(ACTIVE);
        assertThat(a.record(B).isCopying()).isFalse();
        assertThat(a.changed).isEmpty();
        assertThat(contents(a)).hasSize(KEYS);
        assertThat(b.record(B).state()).as("fenced").isEqualTo(GARBAGE);
    }

    @Test
    void aSendingBucketWhoseCopyTheVerdictActivatedResumesAsMovedAndIsNotActivatedAgain() {
        a.apply(new StartCopy(B, "b"));
        List<ChunkEntry> all = new ArrayList<>();
        a.keys(B).forEach((k, v) -> all.add(new ChunkEntry(k, v)));
        b.apply(new ReceiveChunk(B, "a", 2, 0, all));
        a.write(B, "k1", "changed after its chunk");
        a.apply(new SendCopied(B, "b", 2));
        var digest = a.digest(B);
        List<ChunkEntry> changes = List.of(new ChunkEntry("k1".getBytes(), a.keys(B).get("k1".getBytes())));
        MoveReply verdict = b.apply(new ReceiveLastChunk(B, "a", 2, 1, changes, digest.keyCount(), digest.checksum(), true));
        assertThat(verdict.record().state()).isEqualTo(ACTIVE);
        assertThat(b.write(B, "k2", "written at the new owner")).isTrue();
        // The driver died before it heard the verdict; the next one starts from the SENDING record.
        SendMove m = SendMove.resume(a.record(B), "a", port, COPY_AHEAD, done::add);
        port.runTimers(100);

        assertThat(m.result()).isEqualTo(SendMove.Result.MOVED);
        assertThat(port.calls).containsExactly("ReceiveChunk@b", "Digest@a", "FinishReceive@b", "MarkSent@a", "DropData@a"); // the probe is refused: activated
        assertThat(a.record(B).state()).isEqualTo(SENT);
        assertThat(contents(b)).containsEntry("k1", "changed after its chunk").containsEntry("k2", "written at the new owner");
    }

    @Test
    void aLostReplyOrRequestAtEachStepIsRetriedWithoutHarm() {
        for (boolean request : new boolean[] {false, true}) {
            for (int i = 0; i < 13; i++) {
                InMemoryReplicaset src = new InMemoryReplicaset("a").bootstrap(B, 1, KEYS);
                InMemoryReplicaset dst = new InMemoryReplicaset("b");
                FakeMovePort p = new FakeMovePort(src, dst);
                if (request) p.dropRequestOfCall = i;
                else p.dropReplyOfCall = i;
                p.beforeCall = call -> src.write(B, "k3", "at " + call);
                SendMove m = SendMove.start(B, "a", "b", p, COPY_AHEAD, x -> { });
                p.runTimers(100);
                assertThat(m.result()).as("%s of call %s lost (%s)", request ? "request" : "reply", i, p.calls).isEqualTo(SendMove.Result.MOVED);
                assertThat(dst.keys(B)).hasSize(KEYS);
                assertThat(new String(dst.keys(B).get("k3".getBytes()))).as("the last write before SENDING").isEqualTo("at SendCopied@a");
            }
        }
    }

    @Test
    void theLedgerGuardsTheCopyAhead() {
        assertThat(a.apply(new StartCopy(B, "b")).isOk()).isTrue();
        BucketRecord copying = a.record(B);
        assertThat(copying).extracting(BucketRecord::state, BucketRecord::generation, BucketRecord::peer).containsExactly(ACTIVE, 1L, "b"); // the owner does not change yet
        assertThat(a.apply(new StartCopy(B, "b")).record()).as("idempotent").isEqualTo(copying);
        assertThat(a.apply(new StartCopy(B, "c")).isOk()).isFalse();
        assertThat(a.apply(new StartSend(B, "b")).isOk()).as("a plain move of a bucket being copied").isFalse();
        assertThat(a.apply(new Pin(B, true)).isOk()).isFalse();
        assertThat(a.apply(new SendCopied(B, "c", 2)).isOk()).isFalse();
        assertThat(a.apply(new SendCopied(B, "b", 1)).isOk()).isFalse();
        assertThat(a.status(10)).extracting(MoveQuery.MoveStatus::active, MoveQuery.MoveStatus::sending).containsExactly(0, 1);
        assertThat(a.status(10).unfinished()).containsExactly(copying);

        a.write(B, "k1", "x");
        a.delete(B, "k2");
        assertThat(a.changed.get(B)).extracting((byte[] k) -> new String(k)).containsExactly("k1", "k2");
        assertThat(a.apply(new SendCopied(B, "b", 2)).record().state()).isEqualTo(SENDING);
        assertThat(a.apply(new CancelCopy(B, 2)).isOk()).as("only the verdict ends a SENDING copy").isFalse();
        var changes = a.readChanges(new MoveQuery.ReadChanges(B, 2, new byte[0], 10, 1 << 20));
        assertThat(changes.page().entries()).extracting(e -> new String(e.key()) + "=" + (e.isDeletion() ? "deleted" : new String(e.stored())))
                .containsExactly("k1=x", "k2=deleted");
        assertThat(changes.keyCount()).isEqualTo(KEYS - 1);

        assertThat(a.apply(new RollbackSend(B, 2)).record()).extracting(BucketRecord::state, BucketRecord::peer).containsExactly(ACTIVE, "");
        assertThat(a.record(B).isCopying()).isFalse();
        assertThat(a.changed).isEmpty();
        a.write(B, "k3", "y");
        assertThat(a.changed).as("no marks once the copy ended").isEmpty();
    }

    @Test
    void changedKeysReplaceAndDeleteWhatTheCopyHoldsAndTheProgressFollows() {
        ChunkEntry k1 = new ChunkEntry("k1".getBytes(), "v1".getBytes());
        ChunkEntry k2 = new ChunkEntry("k2".getBytes(), "v2".getBytes());
        b.apply(new ReceiveChunk(B, "a", 2, 0, List.of(k1, k2)));
        ChunkEntry k1b = new ChunkEntry("k1".getBytes(), "v1 again".getBytes());
        ChunkEntry k3 = new ChunkEntry("k3".getBytes(), "v3".getBytes());
        MoveReply verdict = b.apply(new ReceiveLastChunk(B, "a", 2, 1, List.of(k1b, ChunkEntry.deletion("k2".getBytes()), k3,
                ChunkEntry.deletion("never-there".getBytes())), 2, k1b.crc() + k3.crc(), true));
        assertThat(verdict.outcome()).isEqualTo(MoveReply.Outcome.COMPLETE);
        assertThat(verdict.record().state()).as("a copied hand-over activates at the verdict").isEqualTo(ACTIVE);
        assertThat(b.keys(B).keySet()).extracting((byte[] k) -> new String(k)).containsExactly("k1", "k3");
        assertThat(Arrays.equals(b.keys(B).get("k1".getBytes()), "v1 again".getBytes())).isTrue();
    }
}
