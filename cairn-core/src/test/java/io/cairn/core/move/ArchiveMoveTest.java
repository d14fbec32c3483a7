package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveCommand.*;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.cairn.core.BucketRecord.FLAG_DATA_DROPPED;
import static io.cairn.core.BucketState.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Moves of archived buckets by server-side copy ({@link SendMove} with {@link ArchiveLedger}'s AdoptArchive)
 * through a synchronous {@link FakeMovePort} whose object store is a map: no chunk is read or sent, the
 * source's object goes only after the destination's was found durable, and a missing object is copied again.
 */
class ArchiveMoveTest {
    private static final int B = 11;
    private static final int KEYS = 7;
    private static final SendMove.Limits COPY_AHEAD = new SendMove.Limits(3, 1 << 20, 10, true);
    private static final String SOURCE_OBJECT = "a/buckets/11/1-h";
    private static final String DESTINATION_OBJECT = "b/buckets/11/1-h";

    private final InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(B, 1, KEYS);
    private final InMemoryReplicaset b = new InMemoryReplicaset("b");
    private final FakeMovePort port = new FakeMovePort(a, b);
    private final List<SendMove> done = new ArrayList<>();

    /** Archives B on a (as BucketArchives does: begin, the object written, finish) and puts its object in the store. */
    private ArchivePointer archiveOnSource() {
        List<ChunkEntry> held = new ArrayList<>();
        a.keys(B).forEach((k, v) -> held.add(new ChunkEntry(k, v)));
        MoveReply began = a.apply(new BeginArchive(B, 1));
        ArchivePointer p = new ArchivePointer(SOURCE_OBJECT, 1, KEYS, 70, 200, "h");
        assertThat(a.apply(new FinishArchive(B, 1, began.record().bsn(), p, ChunkEntry.checksum(held))).isOk()).isTrue();
        port.objects.put(SOURCE_OBJECT, p);
        return p;
    }

    private SendMove move() {
        SendMove m = SendMove.start(B, "a", "b", port, COPY_AHEAD, done::add);
        port.runTimers(100);
        return m;
    }

    @Test
    void anArchivedBucketMovesAsItsObjectWithNoChunkAndTheSourceObjectGoesLast() {
        archiveOnSource();
        SendMove m = move();

        assertThat(m.result()).as(m.detail()).isEqualTo(SendMove.Result.MOVED);
        assertThat(m.archived()).isTrue();
        assertThat(m.keysSent()).as("no key passed through the driver").isZero();
        assertThat(port.calls).containsExactly("StartCopy@a", "StartSend@a", "CopyArchive@a", "AdoptArchive@b", "MarkSent@a", "Activate@b",
                "Durable@b", "DropData@a", "DeleteArchive " + SOURCE_OBJECT);
        BucketRecord there = b.record(B);
        assertThat(there.state()).isEqualTo(ACTIVE);
        assertThat(there.generation()).isEqualTo(2);
        assertThat(there.isArchived()).isTrue();
        assertThat(b.archivePointer(B).objectKey()).isEqualTo(DESTINATION_OBJECT);
        assertThat(b.archivePointer(B).keyCount()).isEqualTo(KEYS);
        assertThat(b.keys(B)).as("the data stays in the object until the new owner restores it").isEmpty();
        BucketRecord left = a.record(B);
        assertThat(left.state()).isEqualTo(SENT);
        assertThat(left.has(FLAG_DATA_DROPPED)).isTrue();
        assertThat(left.isArchived()).isFalse();
        assertThat(a.archivePointer(B)).isNull();
        assertThat(port.objects.keySet()).containsExactly(DESTINATION_OBJECT);
    }

    @Test
    void anObjectDeletedBehindTheDestinationsBackIsCopiedAgainBeforeTheSourceDropsItsOwn() {
        archiveOnSource();
        boolean[] deleted = {false};
        port.beforeCall = call -> {
            if (call.equals("Durable@b") && !deleted[0]) {
                deleted[0] = true;
                port.objects.remove(DESTINATION_OBJECT); // someone deletes it in the store, mid-move
            }
        };
        SendMove m = move();

        assertThat(m.result()).as(m.detail()).isEqualTo(SendMove.Result.MOVED);
        assertThat(m.archiveRepairs()).isEqualTo(1);
        List<String> calls = port.calls;
        int firstCheck = calls.indexOf("Durable@b");
        int drop = calls.indexOf("DropData@a");
        assertThat(calls.subList(firstCheck + 1, drop)).as("copied and adopted again, checked again, before the drop")
                .containsExactly("CopyArchive@a", "AdoptArchive@b", "MarkSent@a", "Durable@b"); // the adopt answers ACTIVE: no Activate again
        assertThat(port.objects.keySet()).containsExactly(DESTINATION_OBJECT);
        assertThat(b.archivePointer(B).objectKey()).isEqualTo(DESTINATION_OBJECT);
    }

    @Test
    void aFencedDestinationRollsTheMoveBackAndTheSourceKeepsItsObject() {
        archiveOnSource();
        // The destination fenced generation 2 already (a verdict on a copy that never arrived).
        assertThat(b.apply(new FinishReceive(B, 2, 0, 0, false)).outcome()).isEqualTo(MoveReply.Outcome.ABORTED);
        SendMove m = move();

        assertThat(m.result()).isEqualTo(SendMove.Result.ROLLED_BACK);
        BucketRecord home = a.record(B);
        assertThat(home.state()).isEqualTo(ACTIVE);
        assertThat(home.isArchived()).as("still archived, its pointer kept").isTrue();
        assertThat(a.archivePointer(B).objectKey()).isEqualTo(SOURCE_OBJECT);
        assertThat(port.objects).containsKey(SOURCE_OBJECT);
        assertThat(b.record(B).state()).isEqualTo(GARBAGE);
        assertThat(port.calls).doesNotContain("DropData@a");
    }

    @Test
    void aMoveWhoseDriverDiedAfterTheCopyIsFinishedByItsRecovery() {
        archiveOnSource();
        port.swallow = call -> call.equals("AdoptArchive@b"); // the driver hears nothing more after the adopt
        SendMove first = move();
        assertThat(first.result()).isNull();
        port.swallow = call -> false;

        SendMove resumed = SendMove.resume(a.record(B), "a", port, COPY_AHEAD, done::add);
        port.runTimers(100);
        assertThat(resumed.result()).as(resumed.detail()).isEqualTo(SendMove.Result.MOVED);
        assertThat(b.record(B).state()).isEqualTo(ACTIVE);
        assertThat(b.record(B).isArchived()).isTrue();
        assertThat(port.objects.keySet()).containsExactly(DESTINATION_OBJECT);
    }

    @Test
    void aSourceWhoseObjectIsGoneRollsBackInsteadOfDroppingAnything() {
        archiveOnSource();
        port.objects.clear(); // both copies gone: nothing to adopt
        SendMove m = move();

        assertThat(m.result()).isEqualTo(SendMove.Result.ROLLED_BACK);
        assertThat(a.record(B).isArchived()).isTrue();
        assertThat(a.record(B).state()).isEqualTo(ACTIVE);
        assertThat(b.record(B).state()).as("the verdict fenced the generation").isEqualTo(GARBAGE);
    }

    @Test
    void aLiveBucketStillMovesByChunks() {
        SendMove m = move();
        assertThat(m.result()).isEqualTo(SendMove.Result.MOVED);
        assertThat(m.archived()).isFalse();
        assertThat(m.keysSent()).isEqualTo(KEYS);
        assertThat(port.calls).doesNotContain("CopyArchive@a", "Durable@b");
    }
}
