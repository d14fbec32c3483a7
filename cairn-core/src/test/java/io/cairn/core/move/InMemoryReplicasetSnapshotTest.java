package io.cairn.core.move;

import io.cairn.core.move.MoveCommand.*;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static io.cairn.core.BucketState.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The snapshot the simulator's members restart from: a restored replicaset must continue exactly
 * as the original would (same records, BSN counter, receive progress, data and changed-key marks),
 * or a member rebuilt from its snapshot and log would drift from the others.
 */
class InMemoryReplicasetSnapshotTest {
    /** A source copying bucket 1 ahead (keys marked as changed), a destination mid-receive of it, and a quarantine stamp. */
    private static InMemoryReplicaset[] midMove() {
        InMemoryReplicaset a = new InMemoryReplicaset("a").bootstrap(1, 1, 3).bootstrap(2, 1, 2);
        InMemoryReplicaset b = new InMemoryReplicaset("b");
        assertThat(a.apply(new StartCopy(1, "b")).isOk()).isTrue();
        a.write(1, "k1", "changed");
        a.delete(1, "k2");
        assertThat(b.apply(new ReceiveChunk(1, "a", 2, 0, java.util.List.of(new ChunkEntry(InMemoryReplicaset.bytes("k0"),
                InMemoryReplicaset.bytes("v0"))))).isOk()).isTrue();
        a.putQuarantinedAt(2, 77);
        return new InMemoryReplicaset[] {a, b};
    }

    @Test
    void aRestoredReplicasetHasTheSameSnapshotAndAnswersTheSame() {
        for (InMemoryReplicaset original : midMove()) {
            InMemoryReplicaset restored = new InMemoryReplicaset(original.id);
            restored.restore(original.snapshot());

            assertThat(restored.snapshot()).isEqualTo(original.snapshot());
            assertThat(restored.records()).containsExactlyElementsOf(original.records());
            assertThat(restored.bsn()).isEqualTo(original.bsn());
            assertThat(restored.progress(1)).isEqualTo(original.progress(1));
            assertThat(restored.quarantinedAtMs(2)).isEqualTo(original.quarantinedAtMs(2));
            assertThat(restored.digest(1)).isEqualTo(original.digest(1));
        }
    }

    @Test
    void aRestoredSourceHandsOverTheSameChangedKeysAsTheOriginal() {
        InMemoryReplicaset a = midMove()[0];
        InMemoryReplicaset restored = new InMemoryReplicaset("a");
        restored.restore(a.snapshot());

        MoveReply original = a.apply(new SendCopied(1, "b", 2));
        MoveReply again = restored.apply(new SendCopied(1, "b", 2));

        assertThat(again.record()).isEqualTo(original.record());
        assertThat(again.record().state()).isEqualTo(SENDING);
        assertThat(MoveCodec.encode(again)).as("the same answer, changed keys included").isEqualTo(MoveCodec.encode(original));
        assertThat(restored.snapshot()).isEqualTo(a.snapshot());
    }

    @Test
    void restoreReplacesEverythingThatWasThere() {
        InMemoryReplicaset target = new InMemoryReplicaset("a").bootstrap(9, 4, 5);
        InMemoryReplicaset empty = new InMemoryReplicaset("a");
        target.restore(empty.snapshot());

        assertThat(target.records()).isEmpty();
        assertThat(target.keys(9)).isEmpty();
        assertThat(target.bsn()).isZero();
        assertThat(Arrays.equals(target.snapshot(), empty.snapshot())).isTrue();
    }
}
