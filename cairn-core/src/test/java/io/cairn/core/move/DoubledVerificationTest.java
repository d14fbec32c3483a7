package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.doubled.DoubledVerification;
import io.cairn.core.doubled.SelfCheckSchedule;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import static io.cairn.core.BucketState.*;
import static org.assertj.core.api.Assertions.assertThat;

/** The storage leader's verification over a synchronous fake port: what it asks, what it contains, and when it stays quiet. */
class DoubledVerificationTest {
    private InMemoryReplicaset stale;
    private InMemoryReplicaset owner;
    private FakeMovePort port;
    private boolean leader = true;
    private final List<String> events = new ArrayList<>();

    @BeforeEach
    void setUp() {
        stale = new InMemoryReplicaset("a").bootstrap(3, 1, 1).bootstrap(4, 1, 1).bootstrap(5, 1, 1);
        owner = new InMemoryReplicaset("b").bootstrap(4, 2, 1);  // bucket 4 moved to b and a came back from an old backup
        port = new FakeMovePort(stale, owner);
    }

    private DoubledVerification verification(InMemoryReplicaset self, int selfCheckPerSecond) {
        DoubledVerification v = new DoubledVerification(self.id, port, new DoubledVerification.Local() {
            @Override
            public boolean isLeader() {
                return leader;
            }

            @Override
            public Collection<BucketRecord> records() {
                return self.records.values();
            }
        }, new SelfCheckSchedule(selfCheckPerSecond, 10), 10, new DoubledVerification.Events() {
            @Override
            public void contained(int bucket, long generation, String reason) {
                events.add("contained " + bucket + "@" + generation);
            }

            @Override
            public void containRefused(int bucket, String why) {
                events.add("refused " + bucket);
            }

            @Override
            public void confirmedOwner(int bucket, long generation) {
                events.add("owner " + bucket + "@" + generation);
            }
        });
        v.setOthers(List.of("a", "b"));
        return v;
    }

    @Test
    void aRequestedBucketWithANewerCopyElsewhereIsContained() {
        DoubledVerification v = verification(stale, 0);
        v.request(List.of(4));
        v.tick(0);
        assertThat(port.calls).containsExactly("Inspect@b", "Contain@a");
        assertThat(stale.records.get(4).isContainedDouble()).isTrue();
        assertThat(stale.records.get(4).peer()).isEqualTo("b");
        assertThat(events).containsExactly("contained 4@1");
        assertThat(v.checked()).isEqualTo(1);
    }

    @Test
    void theNewerCopyIsLeftAlone() {
        DoubledVerification v = verification(owner, 0);
        v.request(List.of(4));
        v.tick(0);
        assertThat(port.calls).containsExactly("Inspect@a");
        assertThat(owner.records.get(4).state()).isEqualTo(ACTIVE);
    }

    @Test
    void theSelfCheckFindsTheDoubleWithoutARequest() {
        DoubledVerification v = verification(stale, 100);
        v.tick(0);
        assertThat(stale.records.get(4).isContainedDouble()).isTrue();
        assertThat(stale.records.get(3).state()).isEqualTo(ACTIVE);
        assertThat(stale.records.get(5).state()).isEqualTo(ACTIVE);
        assertThat(v.checked()).isEqualTo(3);
    }

    @Test
    void aFollowerChecksNothingAndForgetsRequests() {
        leader = false;
        DoubledVerification v = verification(stale, 100);
        v.request(List.of(4));
        v.tick(0);
        leader = true;
        v.tick(0);
        assertThat(port.calls).as("the request was dropped; only the self-check ran").containsExactly("Inspect@b", "Contain@a");
    }

    @Test
    void aSilentReplicasetLeavesTheDecisionToTheOthers() {
        port.dropRequestOfCall = 0;  // b's answer is lost
        DoubledVerification v = verification(stale, 0);
        v.request(List.of(4));
        v.tick(0);
        assertThat(stale.records.get(4).state()).isEqualTo(ACTIVE);
        v.request(List.of(4));
        v.tick(1);
        assertThat(stale.records.get(4).isContainedDouble()).isTrue();
    }

    @Test
    void requestsForBucketsNotWritableHereAreSkipped() {
        DoubledVerification v = verification(owner, 0);
        v.request(List.of(3, 5, 99));
        v.tick(0);
        assertThat(port.calls).isEmpty();
    }

    @Test
    void aCopyIsConfirmedAsOwnerOnlyWhenEveryOtherReplicasetAnswered() {
        DoubledVerification v = verification(stale, 0);
        port.dropRequestOfCall = 0;  // b's answer is lost: b may hold a newer copy of 3
        v.request(List.of(3));
        v.tick(0);
        assertThat(events).isEmpty();
        v.request(List.of(3, 4));
        v.tick(1);
        assertThat(events).containsExactlyInAnyOrder("owner 3@1", "contained 4@1");

        events.clear();
        DoubledVerification newer = verification(owner, 0);
        newer.request(List.of(4));
        newer.tick(2);
        assertThat(events).as("a newer copy than the other's is the owner too").containsExactly("owner 4@2");
    }
}
