package io.cairn.router;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.ErrorPayload;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Merging claims by generation, and suspicion of doubled buckets (design 000). */
class RouteMapTest {
    private static BucketRecord rec(int id, BucketState state, long generation, String peer) {
        return new BucketRecord(id, state, generation, 1, peer, 0);
    }

    @Test
    void aMoveHandsTheRouteToTheNewOwnerWithoutSuspicion() {
        RouteMap map = new RouteMap(10);
        map.learn("a", rec(1, BucketState.ACTIVE, 1, ""));
        map.learn("a", rec(1, BucketState.SENDING, 2, "b"));
        map.learn("b", rec(1, BucketState.ACTIVE, 2, "a"));
        assertThat(map.owner(1)).isEqualTo("b");
        map.learn("a", rec(1, BucketState.SENDING, 2, "b")); // a late answer from the old owner
        assertThat(map.owner(1)).isEqualTo("b");
        map.learn("a", rec(1, BucketState.SENT, 2, "b"));
        assertThat(map.owner(1)).isEqualTo("b");
        assertThat(map.suspected()).isEmpty();
        assertThat(map.writesRefused(1)).isFalse();
    }

    @Test
    void aMovedHintRoutesTheBucketToItsNewOwnerUntilDiscoveryReportsTheRecordItself() {
        RouteMap map = new RouteMap(10);
        map.learn("a", rec(1, BucketState.ACTIVE, 1, ""));
        assertThat(map.followMove(1, "a", "b", 2)).isTrue();
        assertThat(map.ownerRecord(1)).isEqualTo(new RouteMap.OwnerRecord("b", BucketState.ACTIVE, 2, 0));
        map.learn("a", rec(1, BucketState.SENDING, 2, "b")); // a late answer from the old owner
        assertThat(map.owner(1)).isEqualTo("b");
        map.learn("b", rec(1, BucketState.PINNED, 2, "a")); // discovery's own answer replaces the presumed record
        assertThat(map.ownerRecord(1)).isEqualTo(new RouteMap.OwnerRecord("b", BucketState.PINNED, 2, 0));
        assertThat(map.suspected()).isEmpty();
    }

    @Test
    void aMovedHintNeverOverridesANewerOrAnotherEqualClaim() {
        RouteMap map = new RouteMap(10);
        map.learn("c", rec(1, BucketState.ACTIVE, 3, ""));
        assertThat(map.followMove(1, "a", "b", 2)).as("discovery knows a newer owner").isFalse();
        assertThat(map.ownerRecord(1).owner()).isEqualTo("c");

        map.learn("c", rec(2, BucketState.ACTIVE, 2, ""));
        assertThat(map.followMove(2, "a", "b", 2)).as("another replicaset's claim at that generation").isFalse();
        assertThat(map.owner(2)).isEqualTo("c");

        map.learn("a", rec(3, BucketState.ACTIVE, 5, ""));
        map.forgetBucket(3, "a"); // a wrong-owner answer without payload: the route is gone, its generation stays
        assertThat(map.followMove(3, "x", "b", 4)).as("older than what discovery saw").isFalse();
        assertThat(map.owner(3)).isNull();
        assertThat(map.followMove(3, "a", "b", 6)).isTrue();
        assertThat(map.owner(3)).isEqualTo("b");
    }

    @Test
    void aWrongOwnerAnswerWithoutPayloadForgetsTheRouteAndOneWithAPayloadFollowsIt() {
        RouteMap map = new RouteMap(10);
        map.learn("a", rec(1, BucketState.ACTIVE, 1, ""));
        map.learn("a", rec(2, BucketState.ACTIVE, 1, ""));
        assertThat(map.wrongOwner(1, "a", null)).isFalse();
        assertThat(map.owner(1)).isNull();
        assertThat(map.wrongOwner(2, "a", new ErrorPayload("b", 2))).isTrue();
        assertThat(map.owner(2)).isEqualTo("b");
    }

    @Test
    void theOwnersRecordStateAndFlagsFollowTheMoveForOperatorsViews() {
        RouteMap map = new RouteMap(10);
        map.learn("a", rec(2, BucketState.PINNED, 1, ""));
        assertThat(map.ownerRecord(2)).isEqualTo(new RouteMap.OwnerRecord("a", BucketState.PINNED, 1, 0));
        map.learn("a", new BucketRecord(2, BucketState.ACTIVE, 1, 2, "b", BucketRecord.FLAG_COPYING));
        assertThat(map.ownerRecord(2).flags()).isEqualTo(BucketRecord.FLAG_COPYING);
        map.learn("b", rec(2, BucketState.RECEIVING, 2, "a")); // not routable: the route and its record stay the source's
        assertThat(map.ownerRecord(2)).isEqualTo(new RouteMap.OwnerRecord("a", BucketState.ACTIVE, 1, BucketRecord.FLAG_COPYING));
        map.learn("b", rec(2, BucketState.ACTIVE, 2, "a"));
        assertThat(map.ownerRecord(2)).isEqualTo(new RouteMap.OwnerRecord("b", BucketState.ACTIVE, 2, 0));
        java.util.List<String> seen = new java.util.ArrayList<>();
        map.forEachOwner((bucket, owner, state, flags) -> seen.add(bucket + ":" + owner + ":" + state));
        assertThat(seen).hasSize(10).contains("2:b:ACTIVE", "1:null:null");
    }

    @Test
    void twoWritableClaimsAtTheSameGenerationAreSuspectedRefuseWritesAndDoNotFlap() {
        RouteMap map = new RouteMap(10);
        map.learn("a", rec(3, BucketState.ACTIVE, 4, ""));
        map.learn("b", rec(3, BucketState.ACTIVE, 4, ""));
        assertThat(map.suspected()).containsExactly(3);
        assertThat(map.writesRefused(3)).isTrue();
        for (int pass = 0; pass < 3; pass++) {
            map.learn("b", rec(3, BucketState.ACTIVE, 4, ""));
            map.learn("a", rec(3, BucketState.ACTIVE, 4, ""));
            assertThat(map.owner(3)).as("route after pass %d", pass).isEqualTo("a");
        }
        map.learn("b", rec(3, BucketState.GARBAGE, 4, "")); // one copy given up
        assertThat(map.suspected()).isEmpty();
        assertThat(map.writesRefused(3)).isFalse();
    }

    @Test
    void aSuspectedBucketGoesToTheCopyWithTheHigherGeneration() {
        RouteMap map = new RouteMap(10);
        map.learn("new", rec(5, BucketState.ACTIVE, 7, ""));
        map.learn("restored", rec(5, BucketState.ACTIVE, 6, "")); // an old backup of a former owner
        assertThat(map.suspected()).containsExactly(5);
        assertThat(map.writesRefused(5)).isFalse();
        assertThat(map.owner(5)).isEqualTo("new");
        map.forget("restored");
        assertThat(map.suspected()).isEmpty();
    }

    private static BucketRecord contained(int id, long generation, String others) {
        return new BucketRecord(id, BucketState.READONLY, generation, 1, others, BucketRecord.FLAG_DOUBLED);
    }

    @Test
    void suspectedBucketsAreVerifiedUntilEveryCopyThatIsNotTheHighestIsContained() {
        RouteMap map = new RouteMap(10);
        map.learn("new", rec(5, BucketState.ACTIVE, 2, ""));
        map.learn("restored", rec(5, BucketState.ACTIVE, 1, ""));
        assertThat(map.toVerify()).containsExactly(5);
        map.learn("restored", contained(5, 1, "new"));
        assertThat(map.toVerify()).as("only the legitimate copy is left writable").isEmpty();
        assertThat(map.doubled()).containsEntry(5, java.util.Map.of("new", "writable@2", "restored", "READONLY@1"));
        assertThat(map.owner(5)).isEqualTo("new");
    }

    @Test
    void aHandOverSeenHalfwayIsClearedByTheNextRoundWithoutAVerification() {
        RouteMap map = new RouteMap(10);
        SuspectRounds rounds = new SuspectRounds();
        map.learn("old", rec(5, BucketState.ACTIVE, 1, ""));
        assertThat(rounds.confirmed(map.toVerify())).isEmpty();
        // One round: the new owner's answer already shows the activation, the old owner's answer
        // was read before it turned SENDING.
        map.learn("new", rec(5, BucketState.ACTIVE, 2, "old"));
        assertThat(map.toVerify()).containsExactly(5);
        assertThat(rounds.confirmed(map.toVerify())).isEmpty();
        assertThat(rounds.awaitingConfirmation()).isTrue();
        // The confirming round reads the old owner again.
        map.learn("old", rec(5, BucketState.SENDING, 1, "new"));
        assertThat(rounds.confirmed(map.toVerify())).isEmpty();
        assertThat(rounds.awaitingConfirmation()).isFalse();
        assertThat(map.owner(5)).isEqualTo("new");
    }

    @Test
    void aRestoredCopyStaysSuspectedAndIsConfirmedByTheNextRound() {
        RouteMap map = new RouteMap(10);
        SuspectRounds rounds = new SuspectRounds();
        map.learn("new", rec(5, BucketState.ACTIVE, 2, ""));
        map.learn("new", rec(6, BucketState.ACTIVE, 2, ""));
        map.learn("restored", rec(5, BucketState.ACTIVE, 1, ""));
        assertThat(rounds.confirmed(map.toVerify())).isEmpty();
        map.learn("restored", rec(6, BucketState.ACTIVE, 1, ""));
        assertThat(rounds.confirmed(map.toVerify())).as("6 is new this round").containsExactly(5);
        assertThat(rounds.awaitingConfirmation()).isTrue();
        assertThat(rounds.confirmed(map.toVerify())).containsExactly(5, 6);
        assertThat(rounds.awaitingConfirmation()).isFalse();
    }

    @Test
    void aTieIsVerifiedUntilBothCopiesAreContained() {
        RouteMap map = new RouteMap(10);
        map.learn("a", rec(4, BucketState.ACTIVE, 3, ""));
        map.learn("b", rec(4, BucketState.ACTIVE, 3, ""));
        map.learn("a", contained(4, 3, "b"));
        assertThat(map.toVerify()).containsExactly(4);
        map.learn("b", contained(4, 3, "a"));
        assertThat(map.toVerify()).isEmpty();
        assertThat(map.writesRefused(4)).isTrue();
    }

    @Test
    void aResolvedBucketIsNeitherSuspectedNorDoubled() {
        RouteMap map = new RouteMap(10);
        map.learn("new", rec(5, BucketState.ACTIVE, 2, ""));
        map.learn("restored", contained(5, 1, "new"));
        map.learn("restored", new BucketRecord(5, BucketState.GARBAGE, 1, 2, "new", BucketRecord.FLAG_DOUBLED | BucketRecord.FLAG_QUARANTINED));
        map.learn("new", rec(5, BucketState.ACTIVE, 3, ""));
        assertThat(map.suspected()).isEmpty();
        assertThat(map.doubled()).isEmpty();
        assertThat(map.owner(5)).isEqualTo("new");
    }
}
