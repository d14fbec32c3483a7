package io.cairn.storage.state;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.DiscoveryCursor;
import io.cairn.core.wire.DiscoveryPage;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.StorageConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Discovery cursors, restored copies and tombstone collection on one replicaset member, entry by entry with chosen stamps. */
class BucketHistoryTest {
    private static final long RETENTION = StorageConfig.MIN_TOMBSTONE_RETENTION_MS;
    @TempDir
    Path dir;

    private ReplicaUnderTest replica;
    private ReplicasetState state;

    @BeforeEach
    void open() throws IOException {
        replica = ReplicaUnderTest.bootstrapped(dir.resolve("db"), 10);
        state = replica.state;
    }

    @AfterEach
    void close() {
        replica.close();
    }

    @Test
    void aCursorFromThisHistoryGetsOnlyTheChangesAfterIt() {
        DiscoveryPage first = state.discover(DiscoveryCursor.START, 100);
        assertThat(first.records()).hasSize(10);
        sendAway(3, 2_000);

        DiscoveryPage next = state.discover(first.next(), 100);
        assertThat(next.resync()).isFalse();
        assertThat(next.records()).extracting(BucketRecord::id).containsOnly(3);
        assertThat(next.nextBsn()).isEqualTo(next.lastBsn());
        assertThat(state.discover(next.next(), 100).records()).as("nothing changed since").isEmpty();
    }

    @Test
    void aCursorSurvivesAReopenOfTheDatabase() throws IOException {
        sendAway(3, 2_000);
        DiscoveryCursor cursor = state.discover(DiscoveryCursor.START, 100).next();
        reopen(dir.resolve("db"));
        sendAway(4, 3_000);

        DiscoveryPage page = state.discover(cursor, 100);
        assertThat(page.resync()).isFalse();
        assertThat(page.records()).extracting(BucketRecord::id).containsOnly(4);
    }

    @Test
    void aCopyRestoredFromBeforeTheCursorIsToldToResyncEvenAfterItHandedOutMoreBsns() throws IOException {
        Path copy = dir.resolve("copy");
        replica.store.checkpoint(copy);
        sendAway(3, 2_000);
        DiscoveryCursor routerCursor = state.discover(DiscoveryCursor.START, 100).next();

        reopen(copy); // the old copy comes back and makes other changes, past the router's BSN
        sendAway(5, 2_500);
        sendAway(6, 2_600);
        assertThat(state.stats().lastBsn()).isGreaterThan(routerCursor.bsn());

        DiscoveryPage page = state.discover(routerCursor, 100);
        assertThat(page.resync()).as("same incarnation and BSN range, other history").isTrue();
        assertThat(page.records()).as("a full listing").hasSize(10);
        assertThat(page.records()).filteredOn(r -> r.id() == 3).singleElement().satisfies(r -> assertThat(r.state().isOwned()).isTrue());
    }

    @Test
    void tombstonesOlderThanTheCutoffAreCollectedAndCursorsBelowTheHorizonResync() {
        DiscoveryCursor oldCursor = state.discover(DiscoveryCursor.START, 100).next();
        sendAway(3, 2_000);
        startSend(4, 2_100); // SENDING: not a tombstone
        sendAway(5, 9_000); // a tombstone, but younger than the cutoff
        DiscoveryCursor currentCursor = state.discover(oldCursor, 100).next();

        List<BucketRecord> expired = state.expiredTombstones(5_000, 100);
        assertThat(expired).extracting(BucketRecord::id).containsExactly(3);
        long below = expired.get(0).bsn() + 1;
        assertThat(collect(below, 3, 1, 4, 99)).as("only the tombstone is collected; ACTIVE, SENDING and unknown stay").isEqualTo(1);
        assertThat(state.record(3)).isNull();
        assertThat(state.record(1)).isNotNull();
        assertThat(state.horizonBsn()).isEqualTo(expired.get(0).bsn());

        assertThat(state.discover(oldCursor, 100).resync()).as("a cursor from before the collected tombstone").isTrue();
        DiscoveryPage current = state.discover(currentCursor, 100);
        assertThat(current.resync()).as("a cursor past the horizon").isFalse();
        assertThat(current.records()).isEmpty();
        DiscoveryPage listing = state.discover(DiscoveryCursor.START, 100);
        assertThat(listing.records()).extracting(BucketRecord::id).doesNotContain(3).contains(1, 4, 5);
        assertThat(state.discover(listing.next(), 100).resync()).as("the cursor after a full listing is past the horizon").isFalse();
    }

    /** Issue 21: the age is checked where the entry applies, from replicated stamps, with a floor on the retention. */
    @Test
    void aTombstoneYoungerThanTheRetentionAtTheEntrysStampStaysWhateverTheLeaderListed() {
        sendAway(3, 2_000);
        long below = state.record(3).bsn() + 1;
        assertThat(collectAt(2_000 + RETENTION - 1, RETENTION, below, 3)).as("one millisecond too young").isZero();
        assertThat(collectAt(2_000 + RETENTION - 1, 1, below, 3)).as("a retention below the floor counts as the floor").isZero();
        assertThat(state.record(3)).isNotNull();
        assertThat(collectAt(2_000 + RETENTION, RETENTION, below, 3)).isEqualTo(1);
        assertThat(state.record(3)).isNull();
    }

    @Test
    void aFullPageLeavesTheCursorAtItsLastRecordAndTheNextPageContinues() {
        DiscoveryPage first = state.discover(DiscoveryCursor.START, 4);
        assertThat(first.more()).isTrue();
        assertThat(first.nextBsn()).isEqualTo(first.records().get(3).bsn());
        DiscoveryPage second = state.discover(first.next(), 100);
        assertThat(second.resync()).isFalse();
        assertThat(second.records()).hasSize(6);
        assertThat(second.more()).isFalse();
    }

    @Test
    void aTombstoneThatChangedAfterTheLeaderChoseItIsNotCollected() {
        sendAway(3, 2_000);
        BucketRecord chosen = state.expiredTombstones(5_000, 100).get(0);
        assertThat(collect(chosen.bsn(), 3)).as("the bound excludes the record's own BSN").isZero();
        assertThat(state.record(3)).isNotNull();
        assertThat(state.horizonBsn()).isZero();
    }

    @Test
    void theHorizonSurvivesAReopen() throws IOException {
        DiscoveryCursor oldCursor = state.discover(DiscoveryCursor.START, 100).next();
        sendAway(3, 2_000);
        BucketRecord chosen = state.expiredTombstones(5_000, 100).get(0);
        collect(chosen.bsn() + 1, 3);
        reopen(dir.resolve("db"));

        assertThat(state.horizonBsn()).isEqualTo(chosen.bsn());
        assertThat(state.discover(oldCursor, 100).resync()).isTrue();
    }

    private void sendAway(int bucket, long stampMs) {
        MoveReply started = startSend(bucket, stampMs);
        long generation = started.record().generation();
        assertThat(move(new MoveCommand.MarkSent(bucket, generation), stampMs).isOk()).isTrue();
        assertThat(move(new MoveCommand.DropData(bucket, generation), stampMs).isOk()).isTrue();
    }

    private MoveReply startSend(int bucket, long stampMs) {
        MoveReply started = move(new MoveCommand.StartSend(bucket, "rs2"), stampMs);
        assertThat(started.isOk()).isTrue();
        return started;
    }

    /** A collection entry whose stamp and retention make 5_000 the cutoff, as {@code expiredTombstones(5_000, ...)} chose. */
    private long collect(long belowBsn, int... buckets) {
        return collectAt(5_000 + RETENTION, RETENTION, belowBsn, buckets);
    }

    private long collectAt(long stampMs, long retentionMs, long belowBsn, int... buckets) {
        return replica.result(StorageRequest.collect(belowBsn, retentionMs, buckets), stampMs).number();
    }

    private void reopen(Path db) throws IOException {
        replica.open(db);
        state = replica.state;
    }

    private MoveReply move(MoveCommand command, long stampMs) {
        return replica.move(command, stampMs);
    }
}
