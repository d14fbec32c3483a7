package io.cairn.sim;

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
    private final SimReplicaset rs0 = new SimReplicaset("rs0", bucket -> { }, (rs, bucket, key, value) -> { });
    private final SimNetwork network = new SimNetwork(scheduler, new Random(1), Map.of("rs0", rs0), SimNetwork.Faults.NONE);
    private final List<String> answers = new ArrayList<>();
    private int applied;

    private void send(String from) {
        network.call(from, "rs0", "command from " + from, true, rs -> "applied " + ++applied, answers::add, () -> true);
        while (scheduler.runNext()) { }
    }

    @Test
    void aCutLosesTheRequestsOfTheIsolatedNodeUntilItHeals() {
        Set<String> cut = Set.of("mover1");
        network.partition(cut);
        send("mover1");
        assertThat(applied).isZero();
        assertThat(answers).containsExactly((String) null);

        network.heal(cut);
        send("mover1");
        assertThat(answers).containsExactly(null, "applied 1");
        assertThat(network.lostToPartitions()).isEqualTo(1);
    }

    @Test
    void aCutAroundTheReplicasetAlsoCutsItOffButNotClients() {
        network.partition(Set.of("rs0"));
        send("mover1");
        send(SimNetwork.OUTSIDE);
        assertThat(answers).containsExactly(null, "applied 1");
    }

    @Test
    void aReplyIsLostWhenTheCutComesAfterTheCommandApplied() {
        network.call("mover1", "rs0", "command", true, rs -> {
            network.partition(Set.of("rs0"));
            return "applied " + ++applied;
        }, answers::add, () -> true);
        while (scheduler.runNext()) { }
        assertThat(applied).isEqualTo(1);
        assertThat(answers).containsExactly((String) null);
    }

    @Test
    void nodesOnTheSameSideOfACutStillTalk() {
        network.partition(Set.of("mover1", "rs0"));
        send("mover1");
        send("mover2");
        assertThat(answers).containsExactly("applied 1", null);
    }
}
