package io.cairn.replication.microraft;

import io.cairn.replication.Membership;
import io.cairn.replication.MembershipChange;
import io.cairn.replication.Replica;
import io.cairn.replication.ReplicaStatus;
import io.cairn.replication.ReplicationException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class MembershipTest {
    @TempDir
    Path dir;

    private TestGroup group;

    @AfterEach
    void stop() {
        if (group != null) group.close();
    }

    @Test
    @Timeout(60)
    void aNewMemberJoinsAsLearnerCatchesUpIsPromotedAndAnOldMemberIsRemoved() throws Exception {
        group = new TestGroup("j", dir, 3, 100);
        group.startAll();
        String leader = group.awaitLeader();
        for (int batch = 0; batch < 3; batch++) group.propose(leader, TestGroup.commands("before-" + batch, 50)); // past a snapshot
        Replica lead = group.replica(leader);
        Membership initial = lead.membership();
        assertThat(initial.voters()).containsOnlyKeys("m0", "m1", "m2");
        assertThat(initial.learners()).isEmpty();
        assertThat(initial.committed()).isTrue();

        String address = group.addJoiner("m3");
        Replica joiner = group.start("m3"); // an empty folder; its config names itself (as learner) and the voters
        long termBefore = joiner.status().term();
        Membership withLearner = lead.changeMembership("m3", address, MembershipChange.ADD_LEARNER, initial.index()).get(10, TimeUnit.SECONDS);
        assertThat(withLearner.learners()).containsExactly("m3");
        assertThat(withLearner.voters()).containsOnlyKeys("m0", "m1", "m2");
        assertThat(withLearner.addresses()).containsEntry("m3", address);

        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine("m3").commands().equals(group.machine(leader).commands()));
        assertThat(group.machine("m3").restores()).isEqualTo(1); // the log before the snapshot was gone: it started from the snapshot
        assertThat(joiner.status().role()).isEqualTo(ReplicaStatus.Role.LEARNER);
        assertThat(joiner.status().leaderId()).isEqualTo(leader);
        assertThat(joiner.status().term()).isEqualTo(lead.status().term()); // it followed; it never stood for election
        assertThat(joiner.status().term()).isGreaterThanOrEqualTo(termBefore);
        // a change based on a membership that is no longer current is refused
        ExecutionException stale = catchExecution(() -> lead.changeMembership("m3", address, MembershipChange.PROMOTE_TO_VOTER, initial.index())
                .get(10, TimeUnit.SECONDS));
        assertThat(stale.getCause()).isInstanceOf(ReplicationException.Refused.class);

        Membership promoted = lead.changeMembership("m3", address, MembershipChange.PROMOTE_TO_VOTER, withLearner.index()).get(10, TimeUnit.SECONDS);
        assertThat(promoted.voters()).containsOnlyKeys("m0", "m1", "m2", "m3");
        assertThat(promoted.learners()).isEmpty();
        await().atMost(10, TimeUnit.SECONDS).until(() -> joiner.status().role() == ReplicaStatus.Role.FOLLOWER);

        String removed = group.runningIds().stream().filter(id -> !id.equals(leader) && !id.equals("m3")).findFirst().orElseThrow();
        Membership without = lead.changeMembership(removed, null, MembershipChange.REMOVE, promoted.index()).get(10, TimeUnit.SECONDS);
        assertThat(without.voters()).containsOnlyKeys(List.of("m0", "m1", "m2", "m3").stream().filter(id -> !id.equals(removed)).toArray(String[]::new));
        // as in any Raft, a removed member need not learn that its removal committed: the operator stops it
        RecordingStateMachine removedMachine = group.machine(removed);
        group.stop(removed);

        List<String> after = TestGroup.commands("after", 10);
        group.propose(leader, after);
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine("m3").commands().containsAll(after));
        await().atMost(10, TimeUnit.SECONDS).until(() -> joiner.membership().voters().equals(lead.membership().voters()));
        assertThat(removedMachine.commands()).doesNotContainAnyElementsOf(after);
    }

    @Test
    @Timeout(30)
    void leadershipIsHandedToANamedMember() throws Exception {
        group = new TestGroup("t", dir, 3, 1_000_000);
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        group.sharedLoops = loops; // as in a local cluster: every member's sockets on one injected loop
        try {
            transferOnSharedLoops();
            group.close();
            assertThat(loops.isShuttingDown()).isFalse(); // the members leave an injected loop running
        } finally {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    private void transferOnSharedLoops() throws Exception {
        group.startAll();
        String leader = group.awaitLeader();
        group.propose(leader, TestGroup.commands("before", 5));
        String target = group.runningIds().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();

        group.replica(leader).transferLeadership(target).get(10, TimeUnit.SECONDS);
        assertThat(group.replica(leader).status().leaderId()).isEqualTo(target);
        await().atMost(5, TimeUnit.SECONDS).until(() -> group.replica(target).status().role() == ReplicaStatus.Role.LEADER);
        assertThat(group.replica(leader).status().role()).isEqualTo(ReplicaStatus.Role.FOLLOWER);
        assertThat(group.propose(target, List.of("after"))).hasSize(1);
        assertThatThrownBy(() -> group.replica(leader).propose("x".getBytes()).get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(ReplicationException.NotLeader.class);
    }

    interface Call {
        void run() throws Exception;
    }

    private static ExecutionException catchExecution(Call call) throws Exception {
        try {
            call.run();
        } catch (ExecutionException e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }
}
