package io.cairn.core.doubled;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.doubled.DoubledCheck.Verdict;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
import java.util.Map;

import static io.cairn.core.BucketRecord.FLAG_DOUBLED;
import static org.assertj.core.api.Assertions.assertThat;

/** The verification rule of design 000 as a table: our copy, another replicaset's copy, the verdict. */
class DoubledCheckTest {
    private static BucketRecord record(String state, long generation, int flags) {
        return state.equals("-") ? null : new BucketRecord(5, BucketState.valueOf(state), generation, 1, "", flags);
    }

    @ParameterizedTest(name = "ours {0}@{1}, theirs {2}@{3} flags {4} -> {5}")
    @CsvSource({
            // not held writable here: nothing to check
            "-,         0, ACTIVE,    2, 0, NOT_HELD",
            "READONLY,  2, ACTIVE,    3, 1, NOT_HELD",
            "SENDING,   2, RECEIVING, 2, 0, NOT_HELD",
            "SENT,      2, ACTIVE,    2, 0, NOT_HELD",
            // nobody else claims it
            "ACTIVE,    2, -,         0, 0, SOLE_OWNER",
            "ACTIVE,    2, GARBAGE,   3, 0, SOLE_OWNER",
            "ACTIVE,    2, RECEIVING, 3, 0, SOLE_OWNER",
            "ACTIVE,    2, SENT,      2, 4, SOLE_OWNER",
            "ACTIVE,    2, READONLY,  2, 0, SOLE_OWNER",
            // a higher generation anywhere (the restored-backup case): contain ours
            "ACTIVE,    1, ACTIVE,    2, 0, CONTAIN",
            "PINNED,    1, ACTIVE,    2, 0, CONTAIN",
            "ACTIVE,    1, PINNED,    2, 0, CONTAIN",
            "ACTIVE,    1, READONLY,  2, 1, CONTAIN",
            "ACTIVE,    1, SENDING,   2, 0, CONTAIN",
            "ACTIVE,    1, SENT,      3, 4, CONTAIN",
            // equal generation: both sides contain themselves
            "ACTIVE,    2, ACTIVE,    2, 0, CONTAIN",
            "PINNED,    2, ACTIVE,    2, 0, CONTAIN",
            "ACTIVE,    2, READONLY,  2, 1, CONTAIN",
            // lower generation elsewhere: ours stays, the other side contains itself
            "ACTIVE,    3, ACTIVE,    2, 0, KEEP",
            "ACTIVE,    3, READONLY,  2, 1, KEEP",
    })
    void verdictFollowsGenerations(String ours, long ourGen, String theirs, long theirGen, int theirFlags, Verdict expected) {
        Map<String, BucketRecord> others = new HashMap<>();
        BucketRecord their = record(theirs, theirGen, theirFlags);
        if (their != null) others.put("rs2", their);
        DoubledCheck.Decision d = DoubledCheck.decide(record(ours, ourGen, 0), others);
        assertThat(d.verdict()).isEqualTo(expected);
        if (expected == Verdict.CONTAIN || expected == Verdict.KEEP) assertThat(d.rivalIds()).isEqualTo("rs2");
    }

    @ParameterizedTest(name = "a higher claimer wins over a lower one: {0}")
    @CsvSource({"1, CONTAIN", "2, CONTAIN", "4, KEEP"})
    void theHighestGenerationAmongSeveralClaimersDecides(long ourGen, Verdict expected) {
        Map<String, BucketRecord> others = Map.of(
                "rs2", new BucketRecord(5, BucketState.ACTIVE, 3, 1, "", 0),
                "rs3", new BucketRecord(5, BucketState.READONLY, 2, 1, "", FLAG_DOUBLED));
        assertThat(DoubledCheck.decide(new BucketRecord(5, BucketState.ACTIVE, ourGen, 1, "", 0), others).verdict()).isEqualTo(expected);
    }
}
