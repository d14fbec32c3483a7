package io.cairn.sim;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The partition semantics the simulation relies on, with no other fault on. */
class SimNetworkTest {
    private final SimScheduler scheduler = new SimScheduler();
    private int applied;
    private final SimReplicaset rs0 = new SimReplicaset("rs0", bucket -> { }, (rs, bucket, key, value) -> applied++);
    private final SimNetwork network = new SimNetwork(scheduler, new Random(1), Map.of("rs0", rs0), SimNetwork.Faults.NONE);
    private final List<Boolean> answers = new ArrayList<>();

    @BeforeEach
    void startMembers() {
        rs0.force(new BucketRecord(1, BucketState.ACTIVE, 1, 0, "", 0));
        rs0.startMembers(scheduler, new Random(2), 3, 10, 2);
        while (scheduler.runNext()) { }
        assertThat(rs0.leaderUp(scheduler.nowMs())).as("a leader whose first entry committed").isTrue();
    }

    private void send(String from) {
        network.<Boolean>propose(from, "rs0", "write from " + from, SimEntry.write(0, 1, "k", "from " + from), answers::add, () -> true);
        while (scheduler.runNext()) { }
    }

    @Test
    void aCutLosesTheRequestsOfTheIsolatedNodeUntilItHeals() {
        Set<String> cut = Set.of("mover1");
        network.partition(cut);
        send("mover1");
        assertThat(applied).isZero();
        assertThat(answers).containsExactly((Boolean) null);

        network.heal(cut);
        send("mover1");
        assertThat(answers).containsExactly(null, true);
        assertThat(applied).isEqualTo(1);
        assertThat(network.lostToPartitions()).isEqualTo(1);
    }

    @Test
    void aCutAroundTheReplicasetAlsoCutsItOffButNotClients() {
        network.partition(Set.of("rs0"));
        send("mover1");
        send(SimNetwork.OUTSIDE);
        assertThat(answers).containsExactly(null, true);
    }

    @Test
    void aReplyIsLostWhenTheCutComesAfterTheCommandApplied() {
        network.<Boolean>propose("mover1", "rs0", "write", SimEntry.write(0, 1, "k", "v"), answers::add, () -> true);
        // the cut comes once the entry is in the leader's log, before it commits
        while (rs0.raft().leader.lastIndex() == rs0.raft().commitIndex) scheduler.runNext();
        network.partition(Set.of("rs0"));
        while (scheduler.runNext()) { }
        assertThat(applied).isEqualTo(1);
        assertThat(answers).containsExactly((Boolean) null);
    }

    @Test
    void nodesOnTheSameSideOfACutStillTalk() {
        network.partition(Set.of("mover1", "rs0"));
        send("mover1");
        send("mover2");
        assertThat(answers).containsExactly(true, null);
    }
}
