package io.cairn.core.move;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

class ProblemChangesTest {
    private final ProblemChanges changes = new ProblemChanges(5_000);

    @Test
    void aProblemIsReportedOnceItHasLastedAndOnceWhenItClears() {
        assertThat(changes.update(List.of(), 0)).isEmpty();

        String stalled = "STALLED_MOVE: bucket 7 (rs1 -> rs3) has taken no step for 20 s";
        assertThat(changes.update(List.of(stalled), 1_000)).isEmpty();
        // Newer details do not make it new, and it counts from when it was first seen.
        String later = "STALLED_MOVE: bucket 7 (rs1 -> rs3) has taken no step for 25 s";
        assertThat(changes.update(List.of(later), 6_000)).containsExactly(new ProblemChanges.Change("STALLED_MOVE", later, true));
        assertThat(changes.update(List.of(later), 7_000)).isEmpty();

        assertThat(changes.update(List.of(), 8_000)).extracting(ProblemChanges.Change::kind, ProblemChanges.Change::appeared)
                .containsExactly(tuple("STALLED_MOVE", false));
        assertThat(changes.update(List.of(), 9_000)).isEmpty();
    }

    @Test
    void aProblemShorterThanTheMinimumAgeIsNeverReported() {
        String silent = "replicaset rs2 did not answer";
        assertThat(changes.update(List.of(silent), 0)).isEmpty();
        assertThat(changes.update(List.of(silent), 4_000)).isEmpty();
        assertThat(changes.update(List.of(), 5_000)).as("no 'cleared' for what was never reported").isEmpty();
        // Back again: its age starts over.
        assertThat(changes.update(List.of(silent), 6_000)).isEmpty();
        assertThat(changes.update(List.of(silent), 11_000)).extracting(ProblemChanges.Change::text).containsExactly(silent);
    }
}
