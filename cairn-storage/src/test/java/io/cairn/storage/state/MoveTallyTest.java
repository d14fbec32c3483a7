package io.cairn.storage.state;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.kv.StoredValue;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery.MoveStatus;
import io.cairn.core.testing.SeededRandom;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.StorageConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The incrementally kept move status equals {@link MoveStatus#of}, a walk over every record,
 * through random move commands (copies ahead included), collection and a reopen.
 */
@ExtendWith(SeededRandom.class)
class MoveTallyTest {
    @TempDir
    Path dir;

    @Test
    void theTallyMatchesAWalkOverTheRecordsAfterEveryEntry(Random random) throws Exception {
        try (ReplicaUnderTest replica = new ReplicaUnderTest(dir.resolve("db"))) {
            replica.apply(StorageRequest.bootstrap(1, 40), 1_000);
            int sawSending = 0, sawReceiving = 0, sawUnfinishedSent = 0, sawCopying = 0, collected = 0;
            ChunkEntry entry = new ChunkEntry("k".getBytes(StandardCharsets.UTF_8), StoredValue.encode(new byte[] {1}, 0));
            for (int step = 0; step < 1_000; step++) {
                int bucket = 1 + random.nextInt(60);
                BucketRecord r = replica.state.record(bucket);
                long gen = r == null ? 1 + random.nextInt(3) : r.generation() + random.nextInt(2);
                MoveCommand c = switch (random.nextInt(12)) {
                    case 0 -> new MoveCommand.StartSend(bucket, "rs2");
                    case 1 -> new MoveCommand.MarkSent(bucket, gen);
                    case 2 -> new MoveCommand.DropData(bucket, gen);
                    case 3 -> new MoveCommand.RollbackSend(bucket, gen);
                    case 4 -> new MoveCommand.ReceiveChunk(bucket, "rs2", gen, 0, List.of(entry));
                    case 5 -> new MoveCommand.FinishReceive(bucket, gen, 1, entry.crc(), random.nextBoolean());
                    case 6 -> new MoveCommand.Activate(bucket, gen);
                    case 7 -> new MoveCommand.ReceiveLastChunk(bucket, "rs2", gen, 0, List.of(entry), 1, entry.crc(), random.nextBoolean());
                    case 8 -> new MoveCommand.StartCopy(bucket, "rs2");
                    case 9 -> new MoveCommand.SendCopied(bucket, "rs2", gen);
                    case 10 -> new MoveCommand.CancelCopy(bucket, gen);
                    default -> new MoveCommand.AbortReceive(bucket, gen);
                };
                replica.move(c, 2_000 + step);
                if (step % 50 == 49) {
                    var expired = replica.state.expiredTombstones(Long.MAX_VALUE, 100);
                    if (!expired.isEmpty()) {
                        collected += expired.size();
                        replica.apply(StorageRequest.collect(expired.get(expired.size() - 1).bsn() + 1, 0,
                                expired.stream().mapToInt(BucketRecord::id).toArray()), 3_000 + step + StorageConfig.MIN_TOMBSTONE_RETENTION_MS);
                    }
                }
                assertSameStatus(replica.state, "step " + step + " after " + c);
                MoveStatus now = replica.state.moveStatus(0);
                sawSending += now.sending();
                sawReceiving += now.receiving();
                sawUnfinishedSent += (int) now.unfinished().stream().filter(u -> u.state() == BucketState.SENT).count();
                sawCopying += (int) now.unfinished().stream().filter(BucketRecord::marksChanges).count();
            }
            assertThat(List.of(sawSending, sawReceiving, sawUnfinishedSent, sawCopying, collected)).as("the walk met every kind of record")
                    .allMatch(n -> n > 0);
            replica.open(dir.resolve("db"));
            assertSameStatus(replica.state, "after a reopen");
        }
    }

    private static void assertSameStatus(ReplicasetState state, String where) {
        for (int max : new int[] {0, 3, 1_000}) {
            MoveStatus tally = state.moveStatus(max);
            List<BucketRecord> records = new ArrayList<>(state.records());
            records.sort(Comparator.comparingInt(BucketRecord::id));
            MoveStatus walk = MoveStatus.of(records, max);
            assertThat(sorted(tally)).as(where + ", maxCandidates " + max).isEqualTo(sorted(walk));
        }
    }

    private static MoveStatus sorted(MoveStatus s) {
        List<BucketRecord> unfinished = new ArrayList<>(s.unfinished());
        unfinished.sort(Comparator.comparingInt(BucketRecord::id));
        return new MoveStatus(s.active(), s.pinned(), s.sending(), s.receiving(), unfinished, List.copyOf(s.candidates()));
    }
}
