package io.cairn.server.console;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which marks a bucket's cell carries, from its owner's record and the rebalancer's list of moves. */
class BucketMapTest {
    @Test
    void marksFollowTheOwnersRecordAndTheMovesInFlight() {
        assertThat(BucketMap.marks(BucketState.ACTIVE, 0, false, false)).isZero();
        assertThat(BucketMap.marks(BucketState.ACTIVE, 0, true, false)).isEqualTo(BucketMap.MOVING);
        assertThat(BucketMap.marks(BucketState.SENDING, 0, false, false)).isEqualTo(BucketMap.MOVING);
        assertThat(BucketMap.marks(BucketState.ACTIVE, BucketRecord.FLAG_COPYING, false, false)).isEqualTo(BucketMap.MOVING);
        assertThat(BucketMap.marks(BucketState.PINNED, 0, false, false)).isEqualTo(BucketMap.PINNED);
        assertThat(BucketMap.marks(BucketState.READONLY, BucketRecord.FLAG_DOUBLED, false, false)).isEqualTo(BucketMap.DOUBLED);
        assertThat(BucketMap.marks(BucketState.ACTIVE, 0, false, true)).isEqualTo(BucketMap.DOUBLED);
        assertThat(BucketMap.marks(BucketState.ACTIVE, BucketRecord.FLAG_ARCHIVED, false, false)).isEqualTo(BucketMap.ARCHIVED);
        assertThat(BucketMap.marks(null, 0, false, false)).as("no known owner").isZero();
        int all = BucketMap.MOVING | BucketMap.PINNED | BucketMap.DOUBLED | BucketMap.ARCHIVED;
        assertThat(BucketMap.markNames(all)).containsExactly("moving", "pinned", "doubled", "archived");
        assertThat(all & BucketMap.MAX_OWNERS).as("marks never overlap the owner bits").isZero();
    }
}
