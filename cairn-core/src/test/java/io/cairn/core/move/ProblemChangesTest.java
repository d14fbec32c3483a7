package io.cairn.core.move;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ProblemChangesTest {
    @Test
    void aProblemIsReportedWhenItAppearsAndWhenItClearsNotEveryRound() {
        ProblemChanges changes = new ProblemChanges();
        assertThat(changes.update(List.of())).isEmpty();

        String stalled = "STALLED_MOVE: bucket 7 (rs1 -> rs3) has taken no step for 20 s";
        assertThat(changes.update(List.of(stalled))).containsExactly(new ProblemChanges.Change("STALLED_MOVE", stalled, true));
        // The same problem with newer details is not new.
        assertThat(changes.update(List.of("STALLED_MOVE: bucket 7 (rs1 -> rs3) has taken no step for 21 s"))).isEmpty();

        String silent = "replicaset rs2 did not answer";
        assertThat(changes.update(List.of(silent, "STALLED_MOVE: bucket 7 (rs1 -> rs3) has taken no step for 22 s")))
                .containsExactly(new ProblemChanges.Change(silent, silent, true));
        assertThat(changes.update(List.of(silent))).extracting(ProblemChanges.Change::kind, ProblemChanges.Change::appeared)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("STALLED_MOVE", false));
        assertThat(changes.update(List.of())).extracting(ProblemChanges.Change::kind).containsExactly(silent);
    }
}
