package io.cairn.server.chaos;

import io.cairn.server.chaos.HistoryChecker.Kind;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.cairn.server.chaos.Op.Outcome.FAILED;
import static io.cairn.server.chaos.Op.Outcome.OK;
import static io.cairn.server.chaos.Op.Outcome.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Hand-made histories, each with one anomaly or none: the chaos test's checker can fail, and fails for the right reason. */
class HistoryCheckerTest {

    private static List<Kind> kinds(Op... history) {
        return HistoryChecker.check(List.of(history)).anomalies().stream().map(HistoryChecker.Anomaly::kind).toList();
    }

    @Test
    void aHistoryOfSequentialWritesAndReadsOfTheLatestValuesHasNoAnomaly() {
        assertThat(kinds(
                Op.read("k", null, 0, 1),
                Op.write("k", "a", 2, 3, OK),
                Op.read("k", "a", 4, 5),
                Op.write("k", "b", 6, 7, OK),
                Op.read("k", "b", 8, 9),
                Op.delete("k", 10, 11, OK),
                Op.read("k", null, 12, 13),
                Op.finalRead("k", null, 20))).isEmpty();
    }

    @Test
    void aReadConcurrentWithTwoWritesMayReturnEitherValue() {
        Op a = Op.write("k", "a", 0, 10, OK);
        Op b = Op.write("k", "b", 2, 8, OK);
        assertThat(kinds(a, b, Op.read("k", "a", 9, 12), Op.finalRead("k", "a", 20))).isEmpty();
        assertThat(kinds(a, b, Op.read("k", "b", 9, 12), Op.finalRead("k", "b", 20))).isEmpty();
        assertThat(kinds(a, b, Op.read("k", null, 1, 3), Op.finalRead("k", "b", 20))).as("before either applied").isEmpty();
    }

    @Test
    void aValueOverwrittenByAWriteThatCompletedBeforeTheReadStartedIsAStaleRead() {
        assertThat(kinds(
                Op.write("k", "a", 0, 1, OK),
                Op.write("k", "b", 2, 3, OK),
                Op.read("k", "a", 4, 5),
                Op.finalRead("k", "b", 20))).containsExactly(Kind.STALE_READ);
    }

    @Test
    void nilAfterAnAcknowledgedWriteWithNoDeleteIsAStaleRead() {
        assertThat(kinds(Op.write("k", "a", 0, 1, OK), Op.read("k", null, 2, 3), Op.finalRead("k", "a", 20)))
                .containsExactly(Kind.STALE_READ);
    }

    @Test
    void anAcknowledgedWriteMissingAtTheEndIsALostWrite() {
        assertThat(kinds(Op.write("k", "a", 0, 1, OK), Op.write("k", "b", 2, 3, OK), Op.finalRead("k", "a", 20)))
                .containsExactly(Kind.LOST_WRITE);
        assertThat(kinds(Op.write("k", "a", 0, 1, OK), Op.finalRead("k", null, 20))).containsExactly(Kind.LOST_WRITE);
        assertThat(kinds(Op.write("k", "a", 0, 1, OK), Op.delete("k", 2, 3, OK), Op.finalRead("k", "a", 20)))
                .as("an acknowledged delete undone").containsExactly(Kind.LOST_WRITE);
    }

    @Test
    void aWriteOfUnknownOutcomeMayOrMayNotBeApplied() {
        Op acked = Op.write("k", "a", 0, 1, OK);
        Op unknown = Op.write("k", "b", 2, 30, UNKNOWN);
        assertThat(kinds(acked, unknown, Op.read("k", "a", 40, 41), Op.finalRead("k", "a", 50))).isEmpty();
        assertThat(kinds(acked, unknown, Op.read("k", "b", 40, 41), Op.finalRead("k", "b", 50))).isEmpty();
        // Applied late, after a later acknowledged write: its value may still be the last one.
        assertThat(kinds(acked, unknown, Op.write("k", "c", 35, 36, OK), Op.finalRead("k", "b", 50))).isEmpty();
        assertThat(kinds(Op.delete("k", 0, 5, UNKNOWN), Op.finalRead("k", null, 50))).isEmpty();
    }

    @Test
    void theValueOfAWriteAnsweredWithADefiniteErrorMustNeverBeRead() {
        assertThat(kinds(Op.write("k", "a", 0, 1, OK), Op.write("k", "b", 2, 3, FAILED), Op.read("k", "b", 4, 5), Op.finalRead("k", "a", 20)))
                .containsExactly(Kind.FAILED_WRITE_OBSERVED);
        assertThat(kinds(Op.write("k", "a", 0, 1, OK), Op.write("k", "b", 2, 3, FAILED), Op.finalRead("k", "b", 20)))
                .containsExactly(Kind.FAILED_WRITE_OBSERVED);
    }

    @Test
    void aDeleteAnsweredWithADefiniteErrorDoesNotExplainNil() {
        assertThat(kinds(Op.write("k", "a", 0, 1, OK), Op.delete("k", 2, 3, FAILED), Op.finalRead("k", null, 20)))
                .containsExactly(Kind.LOST_WRITE);
    }

    @Test
    void aValueNoWriteWroteOrWrittenOnlyAfterTheReadIsAPhantom() {
        assertThat(kinds(Op.read("k", "zzz", 0, 1), Op.finalRead("k", null, 20))).containsExactly(Kind.PHANTOM_VALUE);
        assertThat(kinds(Op.read("k", "a", 0, 1), Op.write("k", "a", 2, 3, OK), Op.finalRead("k", "a", 20))).containsExactly(Kind.PHANTOM_VALUE);
    }

    @Test
    void countersEndBetweenTheirAcknowledgedAndAttemptedIncrs() {
        Op one = Op.incr("c", 1L, 0, 1, OK);
        Op two = Op.incr("c", 2L, 2, 3, OK);
        Op lost = Op.incr("c", null, 4, 5, UNKNOWN);
        Op refused = Op.incr("c", null, 6, 7, FAILED);
        assertThat(kinds(one, two, lost, refused, Op.finalRead("c", "2", 20))).isEmpty();
        assertThat(kinds(one, two, lost, refused, Op.finalRead("c", "3", 20))).isEmpty();
        assertThat(kinds(one, two, lost, refused, Op.finalRead("c", "1", 20))).as("an acknowledged INCR lost").containsExactly(Kind.COUNTER_OUT_OF_BOUNDS);
        assertThat(kinds(one, two, lost, refused, Op.finalRead("c", "4", 20))).as("a refused INCR applied").containsExactly(Kind.COUNTER_OUT_OF_BOUNDS);
    }

    @Test
    void anIncrReplyOutsideWhatTheIncrsBeforeItAllowIsOutOfBounds() {
        assertThat(kinds(Op.incr("c", 1L, 0, 1, OK), Op.incr("c", 1L, 2, 3, OK), Op.finalRead("c", "2", 20)))
                .as("the second INCR answered as if the first had not applied").contains(Kind.COUNTER_OUT_OF_BOUNDS);
        assertThat(kinds(Op.incr("c", 1L, 0, 10, OK), Op.incr("c", 1L, 2, 8, OK), Op.finalRead("c", "2", 20)))
                .as("two concurrent INCRs answered alike").containsExactly(Kind.COUNTER_OUT_OF_BOUNDS);
        assertThat(kinds(Op.incr("c", 2L, 0, 1, OK), Op.finalRead("c", "2", 20))).as("counted twice").hasSize(2);
        assertThat(kinds(Op.incr("c", 1L, 0, 1, OK), Op.read("c", null, 2, 3), Op.finalRead("c", "1", 20)))
                .as("a read of the counter before its acknowledged INCR").containsExactly(Kind.COUNTER_OUT_OF_BOUNDS);
    }

    @Test
    void aHistoryThatReusesAValueOrMixesWritesAndIncrsIsRefused() {
        assertThatThrownBy(() -> HistoryChecker.check(List.of(Op.write("k", "a", 0, 1, OK), Op.write("k", "a", 2, 3, OK))))
                .hasMessageContaining("unique");
        assertThatThrownBy(() -> HistoryChecker.check(List.of(Op.write("k", "a", 0, 1, OK), Op.incr("k", 1L, 2, 3, OK))))
                .hasMessageContaining("INCR");
    }
}
