package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveCommand.*;
import io.cairn.core.move.MoveReply.Outcome;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.cairn.core.BucketRecord.*;
import static io.cairn.core.BucketState.*;
import static io.cairn.core.move.InMemoryReplicaset.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/** Contain, Quarantine and Reactivate in {@link BucketLedger}: each legal step, each refusal, and that no data is dropped. */
class DoubledLedgerTest {
    private static final int B = 9;
    private InMemoryReplicaset rs;

    @BeforeEach
    void setUp() {
        rs = new InMemoryReplicaset("a").bootstrap(B, 2, 3);
    }

    @Test
    void containMakesTheCopyReadonlyDoubledAtTheSameGenerationWithANewBsn() {
        long bsn = rs.records.get(B).bsn();
        MoveReply r = rs.apply(new Contain(B, 2, "rs2"));
        assertThat(r.outcome()).isEqualTo(Outcome.OK);
        assertThat(r.record().state()).isEqualTo(READONLY);
        assertThat(r.record().generation()).isEqualTo(2);
        assertThat(r.record().bsn()).isGreaterThan(bsn);
        assertThat(r.record().has(FLAG_DOUBLED)).isTrue();
        assertThat(r.record().peer()).isEqualTo("rs2");
        assertThat(rs.write(B, "k9", "x")).isFalse();
        assertThat(rs.keys(B)).hasSize(3);
    }

    @Test
    void containIsIdempotentAndRefusedAtAnotherGenerationOrState() {
        assertThat(rs.apply(new Contain(B, 3, "rs2")).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.apply(new Contain(B, 2, "rs2")).isOk()).isTrue();
        long bsn = rs.bsn;
        assertThat(rs.apply(new Contain(B, 2, "rs2")).isOk()).isTrue();
        assertThat(rs.bsn).as("a repeated Contain changes nothing").isEqualTo(bsn);
        rs.apply(new StartSend(B, "b"));
        assertThat(new InMemoryReplicaset("x").apply(new Contain(B, 2, "rs2")).outcome()).isEqualTo(Outcome.REFUSED);
    }

    @Test
    void pinnedCopiesAreContainedToo() {
        rs.apply(new Pin(B, true));
        assertThat(rs.apply(new Contain(B, 2, "rs2")).record().state()).isEqualTo(READONLY);
    }

    @Test
    void sendingCopiesAreNotContained() {
        rs.apply(new StartSend(B, "b"));
        assertThat(rs.apply(new Contain(B, 3, "rs2")).outcome()).isEqualTo(Outcome.REFUSED);
    }

    @Test
    void quarantineLeavesRoutableStatesAndKeepsTheData() {
        rs.apply(new Contain(B, 2, "rs2"));
        MoveReply r = rs.apply(new Quarantine(B, 2));
        assertThat(r.isOk()).isTrue();
        assertThat(r.record().state()).isEqualTo(GARBAGE);
        assertThat(r.record().state().isRoutable()).isFalse();
        assertThat(r.record().has(FLAG_QUARANTINED)).isTrue();
        assertThat(r.record().has(FLAG_DATA_DROPPED)).isFalse();
        assertThat(rs.keys(B)).hasSize(3);
        assertThat(rs.apply(new Quarantine(B, 2)).isOk()).as("idempotent").isTrue();
    }

    @Test
    void quarantineOfAWritableCopyIsRefusedUntilItIsContained() {
        assertThat(rs.apply(new Quarantine(B, 2)).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.records.get(B).state()).isEqualTo(ACTIVE);
        rs.apply(new Contain(B, 2, "rs2"));
        assertThat(rs.apply(new Quarantine(B, 2)).record().state()).isEqualTo(GARBAGE);
    }

    @Test
    void quarantineIsRefusedAtAnotherGeneration() {
        rs.apply(new Contain(B, 2, "rs2"));
        assertThat(rs.apply(new Quarantine(B, 1)).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.records.get(B).state()).isEqualTo(READONLY);
    }

    @Test
    void quarantinedDataIsNeverDroppedByTheMoveProtocol() {
        rs.apply(new Contain(B, 2, "rs2"));
        rs.apply(new Quarantine(B, 2));
        assertThat(rs.apply(new DropData(B, 2)).outcome()).isEqualTo(Outcome.REFUSED);
        ReceiveChunk chunk = new ReceiveChunk(B, "b", 5, 0, List.of(new ChunkEntry(bytes("n"), bytes("v"))));
        assertThat(rs.apply(chunk).outcome()).isEqualTo(Outcome.REFUSED);
        MoveReply verdict = rs.apply(new FinishReceive(B, 5, 1, 1, false));
        assertThat(verdict.outcome()).isEqualTo(Outcome.ABORTED);
        assertThat(rs.keys(B)).hasSize(3);
        assertThat(rs.records.get(B).has(FLAG_QUARANTINED)).isTrue();
    }

    @Test
    void reactivateMakesAContainedCopyActiveAtTheNewGenerationWithoutTheDoubledFlag() {
        rs.apply(new Contain(B, 2, "rs2"));
        MoveReply r = rs.apply(new Reactivate(B, 4));
        assertThat(r.isOk()).isTrue();
        assertThat(r.record().state()).isEqualTo(ACTIVE);
        assertThat(r.record().generation()).isEqualTo(4);
        assertThat(r.record().has(FLAG_DOUBLED)).isFalse();
        assertThat(r.record().peer()).isEmpty();
        assertThat(rs.write(B, "k9", "x")).isTrue();
        assertThat(rs.apply(new Reactivate(B, 4)).isOk()).as("idempotent").isTrue();
    }

    @Test
    void reactivateKeepsAPinnedCopyPinnedAndRaisesItsGeneration() {
        rs.apply(new Pin(B, true));
        MoveReply r = rs.apply(new Reactivate(B, 7));
        assertThat(r.record().state()).isEqualTo(PINNED);
        assertThat(r.record().generation()).isEqualTo(7);
    }

    @Test
    void reactivateNeverLowersAGenerationNorRevivesAQuarantinedCopy() {
        assertThat(rs.apply(new Reactivate(B, 1)).outcome()).isEqualTo(Outcome.REFUSED);
        rs.apply(new Contain(B, 2, "rs2"));
        assertThat(rs.apply(new Reactivate(B, 2)).outcome()).as("not above its own generation").isEqualTo(Outcome.REFUSED);
        rs.apply(new Quarantine(B, 2)); // contained above
        assertThat(rs.apply(new Reactivate(B, 5)).outcome()).isEqualTo(Outcome.REFUSED);
    }

    @Test
    void theCollectorDropsAQuarantinedCopyOnlyAfterItsRetentionAndThenMovesMayComeBack() {
        long day = 86_400_000L;
        rs.nowMs = 1_000;
        rs.apply(new Contain(B, 2, "rs2"));
        rs.apply(new Quarantine(B, 2));
        rs.nowMs = 1_000 + 7 * day - 1;
        assertThat(rs.apply(new DropQuarantined(B, 2, 7 * day)).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.keys(B)).hasSize(3);
        rs.nowMs = 1_000 + 7 * day;
        MoveReply dropped = rs.apply(new DropQuarantined(B, 2, 7 * day));
        assertThat(dropped.isOk()).isTrue();
        assertThat(rs.keys(B)).isEmpty();
        assertThat(dropped.record().state()).isEqualTo(GARBAGE);
        assertThat(dropped.record().has(FLAG_DATA_DROPPED)).isTrue();
        assertThat(dropped.record().has(FLAG_QUARANTINED)).isFalse();
        assertThat(rs.apply(new DropQuarantined(B, 2, 7 * day)).isOk()).as("idempotent").isTrue();
        ReceiveChunk chunk = new ReceiveChunk(B, "b", 5, 0, List.of(new ChunkEntry(bytes("n"), bytes("v"))));
        assertThat(rs.apply(chunk).isOk()).as("the bucket may move here again").isTrue();
    }

    @Test
    void theCollectorNeverDropsACopyThatIsNotQuarantined() {
        assertThat(rs.apply(new DropQuarantined(B, 2, 0)).outcome()).isEqualTo(Outcome.REFUSED);
        rs.apply(new Contain(B, 2, "rs2"));
        assertThat(rs.apply(new DropQuarantined(B, 2, 0)).outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(rs.keys(B)).hasSize(3);
    }

    @Test
    void aMoveTowardsAContainedCopyIsAbortedSoItsSourceRollsBackInsteadOfStayingSending() {
        rs.apply(new Contain(B, 2, "b"));
        ReceiveChunk chunk = new ReceiveChunk(B, "b", 6, 0, List.of(new ChunkEntry(bytes("n"), bytes("v"))));
        assertThat(rs.apply(chunk).outcome()).isEqualTo(Outcome.REFUSED);
        MoveReply verdict = rs.apply(new FinishReceive(B, 6, 1, 1, false));
        assertThat(verdict.outcome()).isEqualTo(Outcome.ABORTED);
        assertThat(rs.records.get(B).isContainedDouble()).isTrue();
        assertThat(rs.keys(B)).hasSize(3);
    }
}
