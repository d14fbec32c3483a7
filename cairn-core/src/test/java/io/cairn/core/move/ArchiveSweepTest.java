package io.cairn.core.move;

import io.cairn.core.move.ArchiveSweep.Action;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The sweeper's decisions: never a referenced or young object, never a key it does not understand. */
class ArchiveSweepTest {
    private static final String RS = "cairn/rs1";
    private static final long DAY = 86_400_000L;
    private static final long GUARD = 7 * DAY;
    private static final long NOW = 100 * DAY;
    private static final String KEY = "cairn/rs1/buckets/17/3-abc";

    private static ArchivePointer pointer(String key) {
        return new ArchivePointer(key, 3, 1, 1, 1, "abc");
    }

    @Test
    void anUnreferencedArchiveOlderThanTheGuardIsQuarantinedUnderItsTime() {
        ArchiveSweep.Verdict v = ArchiveSweep.ofArchive(RS, KEY, NOW - GUARD, null, NOW, GUARD);
        assertThat(v.action()).isEqualTo(Action.QUARANTINE);
        assertThat(v.target()).isEqualTo("cairn/rs1/quarantine/" + NOW + "/buckets/17/3-abc");
        assertThat(ArchiveSweep.ofArchive(RS, KEY, NOW - GUARD, pointer("cairn/rs1/buckets/17/3-older"), NOW, GUARD).action())
                .as("its bucket points to another object").isEqualTo(Action.QUARANTINE);
    }

    @Test
    void aReferencedYoungOrAgelessObjectIsKept() {
        assertThat(ArchiveSweep.ofArchive(RS, KEY, 0, pointer(KEY), NOW, GUARD).action()).isEqualTo(Action.KEEP);
        assertThat(ArchiveSweep.ofArchive(RS, KEY, NOW - GUARD + 1, null, NOW, GUARD).action()).as("younger than the guard").isEqualTo(Action.KEEP);
        assertThat(ArchiveSweep.ofArchive(RS, KEY, -1, null, NOW, GUARD).action()).as("age unknown").isEqualTo(Action.KEEP);
    }

    @Test
    void keysOfAnotherShapeOrAnotherReplicasetAreNeverTouched() {
        for (String key : new String[] {"cairn/rs1/buckets/x/3-abc", "cairn/rs1/buckets/0/3-abc", "cairn/rs1/buckets/17", "cairn/rs1/buckets/17/a/b",
                "cairn/rs1/backups/17/3-abc", "cairn/rs10/buckets/17/3-abc", "cairn/rs2/buckets/17/3-abc", "cairn/rs1/buckets//3-abc"}) {
            assertThat(ArchiveSweep.ofArchive(RS, key, 0, null, NOW, GUARD).action()).as(key).isEqualTo(Action.KEEP);
        }
        assertThat(ArchiveSweep.bucketOf(RS, KEY)).isEqualTo(17);
    }

    @Test
    void aQuarantinedObjectIsDeletedOnceItHasBeenThereAsLongAsTheGuard() {
        String q = "cairn/rs1/quarantine/" + (NOW - GUARD) + "/buckets/17/3-abc";
        assertThat(ArchiveSweep.ofQuarantined(RS, q, NOW, GUARD).action()).isEqualTo(Action.DELETE);
        assertThat(ArchiveSweep.ofQuarantined(RS, q, NOW - 1, GUARD).action()).isEqualTo(Action.KEEP);
        assertThat(ArchiveSweep.ofQuarantined(RS, "cairn/rs1/quarantine/soon/buckets/17/3-abc", NOW, GUARD).action()).isEqualTo(Action.KEEP);
        assertThat(ArchiveSweep.ofQuarantined(RS, "cairn/rs2/quarantine/0/buckets/17/3-abc", NOW, GUARD).action()).isEqualTo(Action.KEEP);
    }

    @Test
    void aRemovedReplicasetsPrefixIsSweptByTheSameGuardAndQuarantine() {
        java.util.Set<String> live = java.util.Set.of("rs1", "rs3");
        String gone = "cairn/rs2/buckets/17/3-abc";
        ArchiveSweep.Verdict v = ArchiveSweep.ofRemovedReplicaset("cairn", gone, NOW - GUARD, live, NOW, GUARD);
        assertThat(v.action()).isEqualTo(Action.QUARANTINE);
        assertThat(v.target()).as("into the removed replicaset's own quarantine").isEqualTo("cairn/rs2/quarantine/" + NOW + "/buckets/17/3-abc");
        assertThat(ArchiveSweep.ofRemovedReplicaset("cairn", gone, NOW - GUARD + 1, live, NOW, GUARD).action()).as("younger than the guard").isEqualTo(Action.KEEP);
        assertThat(ArchiveSweep.ofRemovedReplicaset("cairn", gone, -1, live, NOW, GUARD).action()).as("age unknown").isEqualTo(Action.KEEP);
        String quarantined = "cairn/rs2/quarantine/" + (NOW - GUARD) + "/buckets/17/3-abc";
        assertThat(ArchiveSweep.ofRemovedReplicaset("cairn", quarantined, 0, live, NOW, GUARD).action()).isEqualTo(Action.DELETE);
        assertThat(ArchiveSweep.ofRemovedReplicaset("cairn", quarantined, 0, live, NOW - 1, GUARD).action()).isEqualTo(Action.KEEP);
    }

    @Test
    void liveReplicasetsOddKeysAndAnUnknownTopologyAreNeverTouchedByTheRemovedPrefixSweeper() {
        java.util.Set<String> live = java.util.Set.of("rs1", "rs3");
        for (String key : new String[] {"cairn/rs1/buckets/17/3-abc", "cairn/rs3/quarantine/0/buckets/17/3-abc", "cairn/rs2/backups/17/3-abc",
                "cairn/rs2/buckets/x/3-abc", "cairn/rs2", "cairn//buckets/17/3-abc", "other/rs2/buckets/17/3-abc", "cairnx/rs2/buckets/17/3-abc"}) {
            assertThat(ArchiveSweep.ofRemovedReplicaset("cairn", key, 0, live, NOW, GUARD).action()).as(key).isEqualTo(Action.KEEP);
        }
        assertThat(ArchiveSweep.ofRemovedReplicaset("cairn", "cairn/rs2/buckets/17/3-abc", 0, java.util.Set.of(), NOW, GUARD).action())
                .as("no topology known: nothing looks removed").isEqualTo(Action.KEEP);
        assertThat(ArchiveSweep.replicasetOf("cairn", "cairn/rs2/buckets/17/3-abc")).isEqualTo("rs2");
        assertThat(ArchiveSweep.removedPrefixSweeperOf(java.util.List.of("rs3", "rs1", "rs2"))).as("one sweeper, the same on every node").isEqualTo("rs1");
        assertThat(ArchiveSweep.removedPrefixSweeperOf(java.util.List.of())).isNull();
    }
}
