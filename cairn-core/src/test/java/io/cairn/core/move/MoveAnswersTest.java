package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.MoveQuery.ChangesPage;
import io.cairn.core.move.MoveQuery.ChunkPage;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MoveAnswers}, the rules a storage member and the simulator's in-memory replicaset both
 * answer the move driver's queries by (cairn-storage's MoveQueries tests run them over RocksDB).
 */
class MoveAnswersTest {
    private static final int B = 3;

    private final InMemoryReplicaset rs = new InMemoryReplicaset("rs").bootstrap(B, 1, 10);

    private void sending() {
        BucketRecord r = rs.record(B);
        rs.put(new BucketRecord(B, BucketState.SENDING, r.generation(), 0, "other", r.flags()));
    }

    @Test
    void aBucketThatIsNotSendingRefusesChunkReadsAndSaysWhy() {
        ChunkPage page = MoveAnswers.readChunk(new MoveQuery.ReadChunk(B, 1, new byte[0], 100, 1 << 20), rs);
        assertThat(page.entries()).isEmpty();
        assertThat(page.last()).isTrue();
        assertThat(page.refusal()).contains("neither SENDING nor copied at generation 1").contains("ACTIVE");
    }

    @Test
    void pagesBoundedByKeysAndBytesTogetherHoldEveryKeyOnceAndTheirChecksumIsTheDigest() {
        sending();
        List<ChunkEntry> all = new ArrayList<>();
        byte[] after = new byte[0];
        int pages = 0;
        for (boolean last = false; !last; pages++) {
            ChunkPage page = MoveAnswers.readChunk(new MoveQuery.ReadChunk(B, 1, after, 3, 1 << 20), rs);
            assertThat(page.entries()).hasSizeLessThanOrEqualTo(3).isNotEmpty();
            all.addAll(page.entries());
            after = page.entries().get(page.entries().size() - 1).key();
            last = page.last();
        }
        assertThat(pages).isEqualTo(4);
        assertThat(all).hasSize(10).doesNotHaveDuplicates();
        MoveQuery.BucketDigest digest = MoveAnswers.digest(B, rs);
        assertThat(digest.keyCount()).isEqualTo(10);
        assertThat(digest.checksum()).isEqualTo(ChunkEntry.checksum(all));
    }

    @Test
    void aPageTakesItsFirstEntryEvenWhenItIsLargerThanTheByteBound() {
        sending();
        ChunkPage page = MoveAnswers.readChunk(new MoveQuery.ReadChunk(B, 1, new byte[0], 100, 1), rs);
        assertThat(page.entries()).hasSize(1);
        assertThat(page.last()).isFalse();
    }

    @Test
    void changesDuringACopyAheadAreReadAgainWithDeletionsAndTheLastPageCarriesTheDigest() {
        BucketRecord r = rs.record(B);
        rs.put(new BucketRecord(B, BucketState.ACTIVE, r.generation(), 0, "other", r.flags() | BucketRecord.FLAG_COPYING));
        assertThat(rs.record(B).marksChanges()).as("copying ahead marks changed keys").isTrue();
        rs.write(B, "k1", "new");
        rs.delete(B, "k2");
        sending();
        ChangesPage changes = MoveAnswers.readChanges(new MoveQuery.ReadChanges(B, 1, new byte[0], 10, 1 << 20), rs);
        assertThat(changes.page().entries()).extracting(e -> new String(e.key())).containsExactly("k1", "k2");
        assertThat(changes.page().entries().get(1).isDeletion()).isTrue();
        assertThat(changes.keyCount()).isEqualTo(9);
        assertThat(changes.checksum()).isEqualTo(MoveAnswers.digest(B, rs).checksum());
    }

    @Test
    void onlyAContainedOrQuarantinedDoubledCopyCanBeExported() {
        assertThat(MoveAnswers.exportChunk(new MoveQuery.ExportChunk(B, new byte[0], 5, 1 << 20), rs).refusal()).contains("not a doubled copy");
        rs.put(new BucketRecord(B, BucketState.READONLY, 1, 0, "", BucketRecord.FLAG_DOUBLED));
        ChunkPage page = MoveAnswers.exportChunk(new MoveQuery.ExportChunk(B, new byte[0], 5, 1 << 20), rs);
        assertThat(page.refusal()).isEmpty();
        assertThat(page.entries()).hasSize(5);
        assertThat(MoveAnswers.inspect(List.of(), true, rs)).singleElement()
                .satisfies(report -> assertThat(report.keyCount()).isEqualTo(10));
    }
}
