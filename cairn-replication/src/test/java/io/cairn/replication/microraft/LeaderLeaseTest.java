package io.cairn.replication.microraft;

import io.microraft.RaftEndpoint;
import io.microraft.model.message.RaftMessage;
import io.microraft.transport.Transport;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static io.cairn.replication.microraft.ModelCodec.MODEL;
import static org.assertj.core.api.Assertions.assertThat;

/** The leader's read lease, driven by hand-made messages and a clock of its own. */
class LeaderLeaseTest {
    private static final long WINDOW_MS = 2_000;
    private static final long LEASE_NANOS = (long) (WINDOW_MS * 1_000_000 * LeaderLease.LEASE_SHARE);
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<RaftMessage> passedOn = new ArrayList<>();
    private final LeaderLease lease = new LeaderLease(new Recording(), "m0", Set.of("m0", "m1", "m2"), WINDOW_MS, now::get);

    @Test
    void holdsOnceAMajorityAnsweredAndEndsALeaseMeasuredFromTheSendTime() {
        assertThat(lease.holds(1)).as("no answer yet").isFalse();
        send("m1", 1, 1);
        send("m2", 1, 1);
        assertThat(passedOn).as("every message goes on to the transport").hasSize(2);
        now.addAndGet(500_000_000L); // the answer comes back late: the lease still counts from the send
        answer("m1", 1, 1);
        assertThat(lease.holds(1)).as("the leader and m1 are a majority of three").isTrue();
        assertThat(lease.holds(2)).as("not for another term").isFalse();
        now.addAndGet(LEASE_NANOS - 500_000_000L - 1);
        assertThat(lease.holds(1)).isTrue();
        now.addAndGet(1);
        assertThat(lease.holds(1)).as("ends a lease's length after the answered append was sent").isFalse();
    }

    @Test
    void onlyAnswersOfTheLeasesTermToKnownAppendsCount() {
        send("m1", 1, 5);
        answer("m1", 1, 4);
        assertThat(lease.holds(1)).as("an answer to an append whose send time is unknown").isFalse();
        answer("m1", 1, 0);
        assertThat(lease.holds(1)).as("an answer without a sequence number (a stale-term refusal, a heartbeat)").isFalse();
        send("m1", 2, 1); // a new term: sends of the old one no longer count
        answer("m1", 1, 5);
        assertThat(lease.holds(1)).isFalse();
        assertThat(lease.holds(2)).isFalse();
        lease.received(MODEL.createAppendEntriesFailureResponseBuilder().setGroupId("g").setSender(new Endpoint("m1", null)).setTerm(2)
                .setExpectedNextIndex(3).setQuerySequenceNumber(0).setFlowControlSequenceNumber(1).build());
        assertThat(lease.holds(2)).as("a refused append still shows the follower took the leader's term").isTrue();
    }

    @Test
    void aLeadershipTransferEndsTheLeaseOfItsTerm() {
        send("m1", 3, 1);
        answer("m1", 3, 1);
        assertThat(lease.holds(3)).isTrue();
        lease.send(new Endpoint("m1", null), MODEL.createTriggerLeaderElectionRequestBuilder().setGroupId("g")
                .setSender(new Endpoint("m0", null)).setTerm(3).setLastLogTerm(3).setLastLogIndex(10).build());
        assertThat(lease.holds(3)).as("m1 will be elected without waiting out its window").isFalse();
        send("m1", 3, 2);
        answer("m1", 3, 2);
        assertThat(lease.holds(3)).as("not again in the same term").isFalse();
        send("m2", 4, 1);
        answer("m2", 4, 1);
        assertThat(lease.holds(4)).as("a new term starts a new lease").isTrue();
    }

    @Test
    void aChangeOfVotersCountsOnlyAppendsSentAfterIt() {
        send("m1", 1, 1);
        answer("m1", 1, 1);
        assertThat(lease.holds(1)).isTrue();
        now.addAndGet(1);
        lease.votersChanged(Set.of("m0", "m1", "m2", "m3", "m4"));
        assertThat(lease.holds(1)).isFalse();
        send("m1", 1, 2);
        send("m3", 1, 1);
        answer("m1", 1, 2);
        assertThat(lease.holds(1)).as("two of five").isFalse();
        answer("m3", 1, 1);
        assertThat(lease.holds(1)).as("three of five").isTrue();
        answer("m9", 1, 1);
        lease.votersChanged(Set.of("m0"));
        assertThat(lease.holds(1)).as("a lone voter needs nobody").isTrue();
        lease.votersChanged(Set.of("m1", "m2", "m3"));
        send("m1", 1, 3);
        send("m2", 1, 2);
        answer("m1", 1, 3);
        answer("m2", 1, 2);
        assertThat(lease.holds(1)).as("a leader removed from the voters holds no lease").isFalse();
    }

    private void send(String to, int term, long sequence) {
        lease.send(new Endpoint(to, null), MODEL.createAppendEntriesRequestBuilder().setGroupId("g").setSender(new Endpoint("m0", null))
                .setTerm(term).setPreviousLogTerm(0).setPreviousLogIndex(0).setCommitIndex(0).setQuerySequenceNumber(0)
                .setFlowControlSequenceNumber(sequence).setLogEntries(List.of()).build());
    }

    private void answer(String from, int term, long sequence) {
        lease.received(MODEL.createAppendEntriesSuccessResponseBuilder().setGroupId("g").setSender(new Endpoint(from, null)).setTerm(term)
                .setLastLogIndex(1).setQuerySequenceNumber(0).setFlowControlSequenceNumber(sequence).build());
    }

    private final class Recording implements Transport {
        @Override
        public void send(RaftEndpoint target, RaftMessage message) {
            passedOn.add(message);
        }

        @Override
        public boolean isReachable(RaftEndpoint endpoint) {
            return true;
        }
    }
}
