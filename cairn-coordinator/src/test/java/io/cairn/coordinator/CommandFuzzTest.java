package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.testing.Fuzz;
import io.cairn.core.testing.SeededRandom;
import io.cairn.core.topology.Topology;
import io.cairn.core.topology.TopologyValidator;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Coordinator commands are JSON from any process that reaches the coordinator's port (issue 26). A
 * command that does not decode is refused (PROTOCOL); one that decodes, however odd its fields, is
 * applied or refused as a reply, never by an exception (the entry is in the log of every coordinator),
 * and never leaves a state that cannot be snapshotted or that holds an invalid topology.
 */
@ExtendWith(SeededRandom.class)
class CommandFuzzTest {
    @Test
    void anyCommandIsAppliedOrRefusedAndLeavesAValidSnapshottableState(Random random) {
        Topology initial = Topologies.initial(Topologies.ONE_COORDINATOR);
        TopologyLedger ledger = new TopologyLedger();
        ledger.apply(new Command.Init(initial));
        List<byte[]> corpus = List.of(
                Codec.toBytes(new Command.Propose(1, Topologies.withWeight(initial, "rs1", 7), false, "test", "tester", 1)),
                Codec.toBytes(new Command.ClaimBootstrap("rs1", 42)),
                Codec.toBytes(new Command.ReportAcknowledged("rs1", Map.of("s1-1", 10L, "s1-2", 9L))),
                Codec.toBytes(new Command.RecordDisk("s1-1", "disk-a")),
                Codec.toBytes(new Command.Init(initial)));
        int[] applied = {0};
        int refused = Fuzz.run(random, corpus, 16L << 20, input -> {
            Command command = Codec.command(ByteString.copyFrom(input));
            Reply reply = ledger.apply(command);
            if (!reply.refused()) applied[0]++;
            TopologyLedger.Snapshot snapshot = ledger.snapshot();
            new TopologyLedger().restore(Codec.read(Codec.toBytes(snapshot), TopologyLedger.Snapshot.class, "snapshot"));
            Topology now = ledger.state().topology();
            assertThat(TopologyValidator.problems(now)).as("the current topology").isEmpty();
        }, CairnException.class);
        System.out.printf("commands: %d applied, %d refused by the decoder%n", applied[0], refused);
        assertThat(applied[0]).isPositive();
    }
}
