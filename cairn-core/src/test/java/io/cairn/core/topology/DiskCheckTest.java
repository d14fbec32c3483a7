package io.cairn.core.topology;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DiskCheckTest {
    private static Map<String, String> records(String group, String coordinator) {
        Map<String, String> r = new LinkedHashMap<>();
        r.put("replicaset rs1", group);
        r.put("the coordinator", coordinator);
        return r;
    }

    @Test
    void aFolderOnTheRecordedDiskPasses() {
        assertThat(DiskCheck.otherDisk("s1", "A", records("A", "A"))).isNull();
    }

    @Test
    void absentOrUnreachableRecordsProveNothing() {
        assertThat(DiskCheck.otherDisk("s1", "A", records(null, null))).isNull();
        assertThat(DiskCheck.otherDisk("s1", "A", records("", null))).isNull();
        assertThat(DiskCheck.otherDisk("s1", "A", new HashMap<>())).isNull();
    }

    @Test
    void theReplicasetsRecordAloneRefusesAnOlderDiskWhenTheCoordinatorIsUnreachable() {
        assertThat(DiskCheck.otherDisk("s1", "A", records("B", null)))
                .contains("replicaset rs1 records disk B for s1").contains("restarted on disk A");
    }

    @Test
    void eitherRecordNamingAnotherDiskRefusesTheFolder() {
        assertThat(DiskCheck.otherDisk("s1", "A", records("A", "B"))).contains("the coordinator records disk B");
        assertThat(DiskCheck.otherDisk("s1", "A", records("B", "A"))).contains("replicaset rs1 records disk B");
    }

    @Test
    void aLogBelowWhatTheNodeAcknowledgedIsAnOlderCopyAndOneThatReachesItIsARestart() {
        assertThat(DiskCheck.olderCopy(7, 1007)).isEqualTo(
                "restarted on a log that ends at index 7, below the index 1007 it had acknowledged (its folder is an older copy?)");
        assertThat(DiskCheck.olderCopy(1007, 1007)).isNull();
        assertThat(DiskCheck.olderCopy(2000, 1007)).isNull();
    }
}
