package io.cairn.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import static io.cairn.core.BucketState.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The transition table, written out here a second time so a change to it is deliberate. */
class BucketTransitionsTest {
    private static final Map<BucketState, Set<BucketState>> EXPECTED = new EnumMap<>(BucketState.class);

    static {
        EXPECTED.put(ACTIVE, EnumSet.of(PINNED, SENDING, READONLY));
        EXPECTED.put(PINNED, EnumSet.of(ACTIVE, READONLY));
        EXPECTED.put(SENDING, EnumSet.of(ACTIVE, SENT));
        EXPECTED.put(RECEIVING, EnumSet.of(ACTIVE, GARBAGE));
        EXPECTED.put(SENT, EnumSet.of(GARBAGE, RECEIVING));
        EXPECTED.put(GARBAGE, EnumSet.of(RECEIVING));
        EXPECTED.put(READONLY, EnumSet.of(ACTIVE, GARBAGE));
    }

    @Test
    void tableCoversEveryState() {
        assertThat(EXPECTED.keySet()).containsExactlyInAnyOrder(BucketState.values());
    }

    @Test
    void everyAllowedPairIsAccepted() {
        EXPECTED.forEach((from, targets) -> targets.forEach(to -> {
            assertThat(BucketTransitions.isAllowed(from, to)).as("%s -> %s", from, to).isTrue();
            assertThatCode(() -> BucketTransitions.check(7, from, to)).as("%s -> %s", from, to).doesNotThrowAnyException();
        }));
    }

    @Test
    void everyOtherPairIsRejectedWithIllegalTransition() {
        for (BucketState from : BucketState.values()) {
            for (BucketState to : EnumSet.complementOf(EnumSet.copyOf(EXPECTED.get(from)))) {
                assertThat(BucketTransitions.isAllowed(from, to)).as("%s -> %s", from, to).isFalse();
                assertThatThrownBy(() -> BucketTransitions.check(7, from, to))
                        .as("%s -> %s", from, to)
                        .isInstanceOfSatisfying(CairnException.class,
                                e -> assertThat(e.code()).isEqualTo(ErrorCode.ILLEGAL_TRANSITION))
                        .hasMessageContaining("bucket 7")
                        .hasMessageContaining(from + " -> " + to);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(BucketState.class)
    void noStateTransitionsToItself(BucketState state) {
        assertThat(BucketTransitions.isAllowed(state, state)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(value = BucketState.class, names = {"ACTIVE", "RECEIVING", "GARBAGE"})
    void creationMayProduceActiveReceivingOrGarbage(BucketState to) {
        assertThat(BucketTransitions.isAllowed(null, to)).isTrue();
        assertThatCode(() -> BucketTransitions.check(1, null, to)).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @EnumSource(value = BucketState.class, names = {"ACTIVE", "RECEIVING", "GARBAGE"}, mode = EnumSource.Mode.EXCLUDE)
    void creationOfAnyOtherStateIsRejected(BucketState to) {
        assertThat(BucketTransitions.isAllowed(null, to)).isFalse();
        assertThatThrownBy(() -> BucketTransitions.check(1, null, to))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ILLEGAL_TRANSITION));
    }

    @Test
    void transitionToNullIsRejected() {
        assertThat(BucketTransitions.isAllowed(ACTIVE, null)).isFalse();
        assertThat(BucketTransitions.isAllowed(null, null)).isFalse();
    }

    @Test
    void recordTransitionKeepsIdentityAndTakesTheNewBsnAndPeer() {
        BucketRecord active = new BucketRecord(42, ACTIVE, 3, 10, "", BucketRecord.FLAG_ARCHIVED);
        BucketRecord sending = active.transition(SENDING, 11, "rs2");
        assertThat(sending).isEqualTo(new BucketRecord(42, SENDING, 3, 11, "rs2", BucketRecord.FLAG_ARCHIVED));
        assertThat(sending.transition(SENT, 12, "rs2").state()).isEqualTo(SENT);
    }

    @Test
    void recordTransitionNormalisesNullPeerToEmpty() {
        BucketRecord pinned = new BucketRecord(1, ACTIVE, 1, 1, "rs9", 0).transition(PINNED, 2, null);
        assertThat(pinned.peer()).isEmpty();
        assertThat(pinned.generation()).isEqualTo(1);
    }

    @Test
    void recordTransitionRejectsIllegalChangeAndLeavesRecordUntouched() {
        BucketRecord sent = new BucketRecord(5, SENT, 2, 9, "rs2", 0);
        assertThatThrownBy(() -> sent.transition(ACTIVE, 10, ""))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.ILLEGAL_TRANSITION))
                .hasMessageContaining("bucket 5");
        assertThat(sent.state()).isEqualTo(SENT);
        assertThat(sent.bsn()).isEqualTo(9);
    }

    @Test
    void recordRequiresPositiveIdAndAState() {
        assertThatThrownBy(() -> new BucketRecord(0, ACTIVE, 1, 1, "", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketRecord(-3, ACTIVE, 1, 1, "", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BucketRecord(1, null, 1, 1, "", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onlyActiveAndPinnedServeWrites() {
        assertThat(EnumSet.allOf(BucketState.class).stream().filter(BucketState::servesWrites))
                .containsExactlyInAnyOrder(ACTIVE, PINNED);
        assertThat(EnumSet.allOf(BucketState.class).stream().filter(BucketState::servesReads))
                .containsExactlyInAnyOrder(ACTIVE, PINNED, SENDING, READONLY);
        assertThat(EnumSet.allOf(BucketState.class).stream().filter(BucketState::isOwned))
                .containsExactlyInAnyOrder(ACTIVE, PINNED, SENDING);
    }
}
