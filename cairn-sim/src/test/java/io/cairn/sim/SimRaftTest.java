package io.cairn.sim;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The member model the simulation relies on: what a crash loses, what a restart and a new member rebuild, what the checks catch. */
class SimRaftTest {
    private final SimScheduler scheduler = new SimScheduler();
    private final SimReplicaset rs = new SimReplicaset("rs0", bucket -> { }, (r, bucket, key, value) -> { });
    private final List<Boolean> answers = new ArrayList<>();
    private SimRaft raft;

    private void start(int snapshotEvery) {
        rs.force(new BucketRecord(1, BucketState.ACTIVE, 1, 0, "", 0));
        raft = rs.startMembers(scheduler, new Random(3), 3, snapshotEvery, 5);
        runAll();
        assertThat(raft.leaderReady()).isTrue();
    }

    private void runAll() {
        while (scheduler.runNext()) raft.check();
    }

    private void write(String value) {
        assertThat(rs.propose(SimEntry.write(0, 1, "k", value), r -> answers.add((Boolean) r))).isTrue();
    }

    private String committedValue() {
        return Sim.string(rs.keys(1).get(Sim.bytes("k")));
    }

    private void runFor(long ms) {
        long until = scheduler.nowMs() + ms;
        while (scheduler.nowMs() < until && scheduler.runNext()) raft.check();
    }

    private SimMember aFollower() {
        return raft.members.stream().filter(m -> m != raft.leader).findFirst().orElseThrow();
    }

    @Test
    void aLeaderCrashLosesItsUnflushedEntryAndItsAnswerButNoCommittedEntry() {
        start(1_000);
        write("v1");
        runAll();
        write("v2");  // appended at the leader only: neither flushed nor replicated yet
        raft.crash(raft.leader, 50, false);
        runAll();

        assertThat(raft.counters.lostUnflushed).isEqualTo(1);
        assertThat(answers).containsExactly(true);
        assertThat(committedValue()).isEqualTo("v1");
        raft.compareCaughtUp(true);
    }

    @Test
    void anEntryInFlightWhenTheLeaderStepsDownLosesItsAnswerWhetherItCommitsOrNot() {
        start(1_000);
        write("v1");
        runAll();
        write("v2");
        SimMember follower = aFollower();
        long index = raft.leader.lastIndex();
        while (follower.lastIndex() < index) scheduler.runNext();  // on a follower, perhaps not committed yet
        raft.loseLeader(20);
        runAll();

        assertThat(answers).containsExactly(true);
        assertThat(committedValue()).isIn("v1", "v2");
        raft.compareCaughtUp(true);
    }

    @Test
    void aRestartedMemberRebuildsTheCommittedStateFromItsSnapshotAndDurableLog() {
        start(3);
        for (int i = 0; i < 8; i++) {
            write("v" + i);
            runAll();
        }
        SimMember follower = aFollower();
        assertThat(follower.snapshotIndex).as("compacted").isPositive();
        raft.crash(follower, 10, false);
        assertThat(follower.up()).isFalse();
        runAll();

        assertThat(follower.up()).isTrue();
        assertThat(follower.appliedIndex).isEqualTo(raft.commitIndex);
        assertThat(Arrays.equals(follower.state.snapshot(), rs.snapshot())).isTrue();
        assertThat(raft.counters.statesCompared).as("checked when it caught up").isPositive();
    }

    @Test
    void aReplacementCatchesTheNewMemberUpBySnapshotAndKeepsThreeVoters() {
        start(3);
        for (int i = 0; i < 6; i++) {
            write("v" + i);
            runAll();
        }
        List<SimMember> before = List.copyOf(raft.members);
        assertThat(raft.membership.startReplace()).isTrue();
        assertThat(raft.membership.startReplace()).as("one change at a time").isFalse();
        runAll();

        assertThat(raft.membership.inProgress()).isFalse();
        assertThat(raft.counters.replacements).isEqualTo(1);
        assertThat(raft.counters.snapshotCatchUps).isEqualTo(1);
        assertThat(raft.members).hasSize(3).allMatch(m -> m.voter);
        SimMember added = raft.members.stream().filter(m -> !before.contains(m)).findFirst().orElseThrow();
        assertThat(Arrays.equals(added.state.snapshot(), rs.snapshot())).isTrue();
        write("after");
        runAll();
        assertThat(committedValue()).isEqualTo("after");
    }

    @Test
    void aWipedVoterNeverVotesAndIsReplacedByALearnerOnlyWhileTheOthersKeepACaughtUpMajority() {
        start(3);
        for (int i = 0; i < 6; i++) {
            write("v" + i);
            runAll();
        }
        SimMember other = aFollower();
        SimMember wiped = raft.members.stream().filter(m -> m != raft.leader && m != other).findFirst().orElseThrow();
        SimMember leader = raft.leader;
        raft.crash(other, 1_000_000, true); // down until the end: the leader alone is up among the voters left
        assertThat(raft.wipe(wiped)).isTrue();
        assertThat(raft.wipe(other)).as("one lost disk at a time").isFalse();
        raft.check();
        raft.loseLeader(0);
        runFor(500);
        assertThat(raft.leader).as("the leader and a down voter: no majority votes").isNull();
        assertThat(raft.members).as("its member waits: the voters left hold no caught-up majority").contains(wiped);

        raft.restart(other);
        runAll();
        assertThat(raft.membership.inProgress()).isFalse();
        assertThat(raft.members).doesNotContain(wiped).hasSize(3).allMatch(m -> m.voter && !m.wiped);
        assertThat(raft.counters.wipes).isEqualTo(1);
        assertThat(raft.leader).isIn(leader, other);
        write("after");
        runAll();
        assertThat(committedValue()).isEqualTo("after");
    }

    @Test
    void theCheckFailsWhenACommittedEntryIsDurableOnOnlyAMinority() {
        start(1_000);
        write("v1");
        runAll();
        for (SimMember m : raft.members) {
            if (m != raft.leader) m.truncateAfter(raft.commitIndex - 1);  // as if their fsyncs had lied
        }
        assertThatThrownBy(raft::check).isInstanceOf(Invariants.Violation.class).hasMessageContaining("durable on only 1 of 3 voters");
    }

    @Test
    void aMemberWhoseStateDiffersFromTheCommittedStateIsCaught() {
        start(1_000);
        write("v1");
        runAll();
        aFollower().state.write(1, "k", "never committed");  // as a replay that went wrong would leave it
        assertThatThrownBy(() -> raft.compareCaughtUp(true)).isInstanceOf(Invariants.Violation.class)
                .hasMessageContaining("differs from the committed state");
    }

    @Test
    void aProcessCrashKeepsTheDatabaseAndItsRestartSkipsTheEntriesTheDatabaseHolds() {
        start(1_000);
        for (int i = 0; i < 5; i++) {
            write("v" + i);
            runAll();
        }
        SimMember follower = aFollower();
        long held = Math.min(follower.appliedIndex, follower.durableCommitIndex);
        assertThat(held).as("the durable log holds applied entries").isPositive();
        raft.crash(follower, 10, true);
        runAll();

        assertThat(raft.counters.crashesKeepingDatabase).isEqualTo(1);
        assertThat(raft.counters.entriesSkippedOnReplay).as("its durable log up to its applied index").isEqualTo(held);
        assertThat(follower.appliedIndex).isEqualTo(raft.commitIndex);
        assertThat(Arrays.equals(follower.state.snapshot(), rs.snapshot())).as("nothing applied twice").isTrue();
    }
}
