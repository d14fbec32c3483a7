package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.doubled.DoubledResolver;
import io.cairn.core.move.MoveCommand.Contain;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.cairn.core.BucketState.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Listing and resolving doubled buckets over a synchronous fake port: the order of steps and every refusal. */
class DoubledResolverTest {
    private static final int B = 12;
    private InMemoryReplicaset a;
    private InMemoryReplicaset b;
    private FakeMovePort port;
    private DoubledResolver resolver;
    private String answer;

    @BeforeEach
    void setUp() {
        a = new InMemoryReplicaset("a").bootstrap(B, 1, 2);  // the restored old copy
        b = new InMemoryReplicaset("b").bootstrap(B, 2, 5);  // the legitimate owner
        a.apply(new Contain(B, 1, "b"));
        port = new FakeMovePort(a, b);
        resolver = new DoubledResolver(port, List.of("a", "b"));
    }

    @Test
    void resolveQuarantinesTheLoserBeforeReactivatingTheKeptCopyAboveEveryGeneration() {
        resolver.resolve(B, "b", r -> answer = r);
        assertThat(answer).startsWith("bucket " + B + " is ACTIVE on b at generation 3");
        int quarantine = port.calls.indexOf("Quarantine@a");
        int reactivate = port.calls.indexOf("Reactivate@b");
        assertThat(quarantine).isNotNegative().isLessThan(reactivate);
        assertThat(a.records.get(B).state()).isEqualTo(GARBAGE);
        assertThat(a.records.get(B).has(BucketRecord.FLAG_QUARANTINED)).isTrue();
        assertThat(a.keys(B)).as("the loser's data is kept").hasSize(2);
        assertThat(b.records.get(B).state()).isEqualTo(ACTIVE);
        assertThat(b.records.get(B).generation()).isEqualTo(3);
    }

    @Test
    void keepingTheContainedCopyReactivatesItAndQuarantinesTheWritableOne() {
        resolver.resolve(B, "a", r -> answer = r);
        assertThat(answer).startsWith("bucket " + B + " is ACTIVE on a at generation 3");
        assertThat(a.records.get(B).state()).isEqualTo(ACTIVE);
        assertThat(a.records.get(B).has(BucketRecord.FLAG_DOUBLED)).isFalse();
        assertThat(b.records.get(B).state()).isEqualTo(GARBAGE);
        assertThat(b.keys(B)).hasSize(5);
    }

    @Test
    void aSilentReplicasetStopsTheResolutionBeforeAnythingChanges() {
        port.dropRequestOfCall = 0;
        resolver.resolve(B, "b", r -> answer = r);
        assertThat(answer).startsWith("refused: replicaset a did not answer");
        assertThat(port.calls).containsExactly("Inspect@a", "Inspect@b");
    }

    @Test
    void aFailedQuarantineLeavesTheKeptCopyUntouched() {
        port.dropReplyOfCall = 2; // Quarantine@a applied, its reply lost
        resolver.resolve(B, "b", r -> answer = r);
        assertThat(answer).startsWith("refused: could not quarantine");
        assertThat(b.records.get(B).generation()).isEqualTo(2);
        answer = null;
        resolver.resolve(B, "b", r -> answer = r); // running it again finishes the job
        assertThat(answer).startsWith("bucket " + B + " is ACTIVE on b");
    }

    @Test
    void keepingAReplicasetWithoutACopyIsRefused() {
        InMemoryReplicaset c = new InMemoryReplicaset("c");
        resolver = new DoubledResolver(new FakeMovePort(a, b, c), List.of("a", "b", "c"));
        resolver.resolve(B, "c", r -> answer = r);
        assertThat(answer).startsWith("refused: c holds no copy");
        resolver.resolve(B, "zz", r -> answer = r);
        assertThat(answer).startsWith("refused: no replicaset zz");
    }

    @Test
    void aMoveInFlightIsRefused() {
        b.apply(new MoveCommand.StartSend(B, "c"));
        resolver.resolve(B, "a", r -> answer = r);
        assertThat(answer).contains("a move is in flight");
        assertThat(a.records.get(B).state()).isEqualTo(READONLY);
    }

    @Test
    void listShowsEveryCopyOfEachDoubledBucketWithItsKeyCount() {
        Map<Integer, Map<String, MoveQuery.BucketReport>>[] out = new Map[1];
        resolver.listDoubled(r -> out[0] = r);
        assertThat(out[0]).containsOnlyKeys(B);
        assertThat(out[0].get(B).get("a").record().state()).isEqualTo(READONLY);
        assertThat(out[0].get(B).get("a").keyCount()).isEqualTo(2);
        assertThat(out[0].get(B).get("b").record().generation()).isEqualTo(2);
        assertThat(out[0].get(B).get("b").keyCount()).isEqualTo(5);
    }
}
