package io.cairn.coordinator;

import io.cairn.core.ErrorCode;
import io.cairn.core.testing.SeededRandom;
import io.cairn.core.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(SeededRandom.class)
class TopologyLedgerTest {
    private final Topology initial = Topologies.initial(Topologies.ONE_COORDINATOR);
    private final TopologyLedger ledger = new TopologyLedger();

    @Test
    void initStoresTheTopologyAtEpochOne() {
        Reply reply = ledger.apply(new Command.Init(initial));

        assertThat(reply.refused()).isFalse();
        assertThat(reply.state().topology()).isEqualTo(initial.withEpoch(1));
        assertThat(ledger.history()).containsExactly(initial.withEpoch(1));
    }

    @Test
    void laterInitsAnswerTheFirstTopologyUnchanged() {
        ledger.apply(new Command.Init(initial));

        Reply second = ledger.apply(new Command.Init(Topologies.withWeight(initial, "rs1", 7)));

        assertThat(second.refused()).isFalse();
        assertThat(second.state().topology()).isEqualTo(initial.withEpoch(1));
        assertThat(ledger.history()).hasSize(1);
    }

    @Test
    void initWithAnInvalidTopologyIsRefusedAndStoresNothing() {
        Reply reply = ledger.apply(new Command.Init(Topologies.withBucketCount(initial, 0)));

        assertThat(reply.error()).isEqualTo(ErrorCode.INVALID_CONFIG);
        assertThat(reply.message()).contains("bucketCount");
        assertThat(ledger.state().epoch()).isZero();
    }

    @Test
    void proposeBeforeInitIsRefusedWithStaleEpoch() {
        assertThat(ledger.apply(propose(0, initial, false)).error()).isEqualTo(ErrorCode.STALE_EPOCH);
    }

    @Test
    void proposeWithAStaleEpochIsRefusedAndChangesNothing() {
        ledger.apply(new Command.Init(initial));
        ledger.apply(propose(1, Topologies.withWeight(initial, "rs1", 50), false));

        Reply stale = ledger.apply(propose(1, Topologies.withWeight(initial, "rs2", 50), false));

        assertThat(stale.error()).isEqualTo(ErrorCode.STALE_EPOCH);
        assertThat(stale.message()).contains("current epoch is 2");
        assertThat(ledger.state().topology().replicaset("rs2").orElseThrow().weight()).isEqualTo(100);
    }

    @Test
    void proposeWithTheCurrentEpochPublishesTheNextEpoch() {
        ledger.apply(new Command.Init(initial));

        Reply reply = ledger.apply(propose(1, Topologies.withWeight(initial, "rs1", 0), false));

        assertThat(reply.state().epoch()).isEqualTo(2);
        assertThat(reply.state().topology()).isEqualTo(Topologies.withWeight(initial, "rs1", 0).withEpoch(2));
        assertThat(reply.state().forcedChanges()).isEmpty();
    }

    @Test
    void bucketCountChangeIsRefusedByAGuardrailWithTheProblemListed() {
        ledger.apply(new Command.Init(initial));

        Reply reply = ledger.apply(propose(1, Topologies.withBucketCount(initial, 4000), false));

        assertThat(reply.error()).isEqualTo(ErrorCode.GUARDRAIL);
        assertThat(reply.message()).contains("bucketCount is fixed");
        assertThat(ledger.state().epoch()).isEqualTo(1);
    }

    @Test
    void forcedBucketCountChangeIsPublishedAndRecorded() {
        ledger.apply(new Command.Init(initial));

        Reply reply = ledger.apply(new Command.Propose(1, Topologies.withBucketCount(initial, 4000), true,
                "disaster recovery", "alice", 1_700_000_000_000L));

        assertThat(reply.state().topology().bucketCount()).isEqualTo(4000);
        assertThat(reply.state().forcedChanges()).singleElement().satisfies(f -> {
            assertThat(f.epoch()).isEqualTo(2);
            assertThat(f.actor()).isEqualTo("alice");
            assertThat(f.reason()).isEqualTo("disaster recovery");
            assertThat(f.requestedAtMs()).isEqualTo(1_700_000_000_000L);
            assertThat(f.overriddenProblems()).anyMatch(p -> p.contains("bucketCount"));
        });
    }

    @Test
    void forceDoesNotAcceptAStructurallyInvalidTopology() {
        ledger.apply(new Command.Init(initial));

        Reply reply = ledger.apply(propose(1, Topologies.withWeight(initial, "rs1", -5), true));

        assertThat(reply.error()).isEqualTo(ErrorCode.INVALID_CONFIG);
        assertThat(ledger.state().forcedChanges()).isEmpty();
    }

    @Test
    void historyKeepsTheLastHundredEpochsOldestFirst() {
        ledger.apply(new Command.Init(initial));
        for (int epoch = 1; epoch < 150; epoch++) {
            ledger.apply(propose(epoch, Topologies.withWeight(initial, "rs1", epoch), false));
        }

        List<Topology> history = ledger.history();

        assertThat(history).hasSize(CoordinatorLimits.HISTORY_EPOCHS);
        assertThat(history.get(0).epoch()).isEqualTo(51);
        assertThat(history.get(history.size() - 1)).isEqualTo(ledger.state().topology());
        assertThat(ledger.state().epoch()).isEqualTo(150);
    }

    @Test
    void bootstrapClaimIsGrantedToOneIncarnationOnlyWithItsPlannedRange() {
        ledger.apply(new Command.Init(initial));

        Reply first = ledger.apply(new Command.ClaimBootstrap("rs1", 7));
        Reply retry = ledger.apply(new Command.ClaimBootstrap("rs1", 7));
        Reply wiped = ledger.apply(new Command.ClaimBootstrap("rs1", 8));

        assertThat(first.claim().granted()).isTrue();
        assertThat(first.claim().first()).isEqualTo(1);
        assertThat(first.claim().last() - first.claim().first() + 1).isPositive();
        assertThat(retry.claim()).isEqualTo(first.claim());
        assertThat(wiped.claim().granted()).isFalse();
        assertThat(wiped.claim().reason()).contains("incarnation 7");
        assertThat(wiped.state().bootstrappedReplicasets()).containsExactly("rs1");
    }

    @Test
    void initialRangesOfAllReplicasetsCoverEveryBucketOnce() {
        ledger.apply(new Command.Init(initial));
        int covered = 0;
        int next = 1;
        for (var rs : initial.replicasets()) {
            BootstrapClaim c = ledger.apply(new Command.ClaimBootstrap(rs.id(), 1)).claim();
            assertThat(c.first()).isEqualTo(next);
            covered += c.last() - c.first() + 1;
            next = c.last() + 1;
        }
        assertThat(covered).isEqualTo(initial.bucketCount());
    }

    @Test
    void bootstrapClaimOfAnUnknownReplicasetIsRefused() {
        ledger.apply(new Command.Init(initial));

        assertThat(ledger.apply(new Command.ClaimBootstrap("rs9", 1)).error()).isEqualTo(ErrorCode.INVALID_CONFIG);
    }

    @Test
    void bootstrapMarkOutlivesTheReplicasetLeavingTheTopology() {
        ledger.apply(new Command.Init(initial));
        ledger.apply(new Command.ClaimBootstrap("rs2", 5));
        Topology withoutRs2 = new Topology(0, initial.bucketCount(), initial.coordinators(),
                List.of(initial.replicasets().get(0)), initial.routers());
        ledger.apply(propose(1, withoutRs2, false));
        ledger.apply(propose(2, initial, false));

        assertThat(ledger.apply(new Command.ClaimBootstrap("rs2", 6)).claim().granted()).isFalse();
    }

    @Test
    void aNodesDiskIsRecordedReplacedAndDroppedWithTheNode() {
        ledger.apply(new Command.Init(initial));
        assertThat(ledger.apply(new Command.RecordDisk("rs1a", "disk-1")).refused()).isFalse();
        ledger.apply(new Command.RecordDisk("rs1a", "disk-2"));
        assertThat(ledger.disks()).containsExactlyEntriesOf(java.util.Map.of("rs1a", "disk-2"));
        assertThat(ledger.apply(new Command.RecordDisk("nobody", "disk-3")).error()).isEqualTo(ErrorCode.INVALID_CONFIG);

        TopologyLedger restored = new TopologyLedger();
        restored.restore(Codec.read(Codec.toBytes(ledger.snapshot()), TopologyLedger.Snapshot.class, "snapshot"));
        assertThat(restored.disks()).isEqualTo(ledger.disks());

        Topology withoutRs1 = new Topology(0, initial.bucketCount(), initial.coordinators(),
                List.of(initial.replicasets().get(1)), initial.routers());
        ledger.apply(propose(1, withoutRs1, true));
        assertThat(ledger.disks()).isEmpty();
    }

    @Test
    void runTimeSettingsAreSetDroppedAndKeptInTheSnapshot() {
        java.util.Map<String, String> two = new java.util.TreeMap<>(java.util.Map.of("rebalancer.maxBytesPerSecond", "5000000", "rebalancer.auto", "false"));
        assertThat(ledger.apply(new Command.SetSettings(two, "ops")).settings()).isEqualTo(two);
        Reply dropped = ledger.apply(new Command.SetSettings(java.util.Map.of("rebalancer.auto", ""), "ops"));
        assertThat(dropped.settings()).containsExactly(java.util.Map.entry("rebalancer.maxBytesPerSecond", "5000000"));
        assertThat(ledger.apply(new Command.SetSettings(java.util.Map.of(), "ops")).error()).isEqualTo(ErrorCode.INVALID_CONFIG);

        TopologyLedger restored = new TopologyLedger();
        restored.restore(Codec.read(Codec.toBytes(ledger.snapshot()), TopologyLedger.Snapshot.class, "snapshot"));
        assertThat(restored.settings()).isEqualTo(ledger.settings()).containsOnlyKeys("rebalancer.maxBytesPerSecond");
    }

    @Test
    void queriesSentAsWritesAreRefused() {
        assertThat(ledger.apply(new Command.Get()).error()).isEqualTo(ErrorCode.PROTOCOL);
    }

    @Test
    void snapshotRoundTripThroughJsonRestoresEverything() {
        ledger.apply(new Command.Init(initial));
        ledger.apply(new Command.Propose(1, Topologies.withBucketCount(initial, 10), true, "why", "bob", 5));
        ledger.apply(new Command.ClaimBootstrap("rs1", 3));

        TopologyLedger restored = new TopologyLedger();
        restored.restore(Codec.read(Codec.toBytes(ledger.snapshot()), TopologyLedger.Snapshot.class, "snapshot"));

        assertThat(restored.state()).isEqualTo(ledger.state());
        assertThat(restored.history()).isEqualTo(ledger.history());
    }

    @Test
    void sameCommandsGiveTheSameStateAndAnswersOnEveryNode(Random random) {
        List<Command> commands = randomCommands(random, 300);
        TopologyLedger a = new TopologyLedger();
        TopologyLedger b = new TopologyLedger();
        List<Reply> answersA = new ArrayList<>();
        List<Reply> answersB = new ArrayList<>();

        for (Command c : commands) {
            answersA.add(a.apply(Codec.read(Codec.toBytes(c), Command.class, "command")));
            answersB.add(b.apply(c));
        }

        assertThat(answersA).isEqualTo(answersB);
        assertThat(a.snapshot()).isEqualTo(b.snapshot());
    }

    private static List<Command> randomCommands(Random random, int count) {
        Topology base = Topologies.initial(Topologies.ONE_COORDINATOR);
        List<Command> commands = new ArrayList<>();
        commands.add(new Command.Init(base));
        for (int i = 0; i < count; i++) {
            long epoch = 1 + random.nextInt(i / 3 + 2);
            switch (random.nextInt(4)) {
                case 0 -> commands.add(propose(epoch, Topologies.withWeight(base, "rs1", random.nextInt(200)), false));
                case 1 -> commands.add(propose(epoch, Topologies.withBucketCount(base, 1 + random.nextInt(5000)),
                        random.nextBoolean()));
                case 2 -> commands.add(new Command.ClaimBootstrap(random.nextBoolean() ? "rs1" : "rs3", random.nextInt(3)));
                default -> commands.add(new Command.Init(Topologies.withWeight(base, "rs2", 1)));
            }
        }
        return commands;
    }

    private static Command.Propose propose(long expectedEpoch, Topology next, boolean force) {
        return new Command.Propose(expectedEpoch, next, force, "test", "tester", 1);
    }
}
