package io.cairn.replication.microraft;

import io.cairn.replication.ReplicaStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A member back on a wiped folder while its leader is down (issue 21): with the writes it had
 * acknowledged gone, it must not help a lagging member become leader. Both tests set up the same
 * history: writes "a" reach every member, one follower stops, writes "b" are acknowledged by the
 * leader and the other follower, then the leader stops and that follower's folder is wiped.
 */
class RejoinTest {
    @TempDir
    Path dir;

    private TestGroup group;
    private String leader;
    private String lagging;
    private String wiped;

    @AfterEach
    void stop() {
        if (group != null) group.close();
    }

    @Test
    @Timeout(90)
    void aRejoiningMemberDoesNotVoteUntilItHasCaughtUpSoNoAcknowledgedWriteIsLost() throws Exception {
        history();
        group.start(lagging);
        group.startRejoining(wiped);
        assertThat(group.replica(wiped).status().rejoining()).isTrue();
        // two leader timeouts and more: the lagging member stands again and again, and nobody grants its vote
        await().during(Duration.ofSeconds(6)).atMost(10, TimeUnit.SECONDS)
                .until(() -> group.runningIds().stream().noneMatch(id -> group.replica(id).status().role() == ReplicaStatus.Role.LEADER));

        group.start(leader);
        String now = group.awaitLeader();
        assertThat(group.machine(now).commands()).as("the new leader has every acknowledged write").containsAll(TestGroup.commands("b", 20));
        List<String> all = group.machine(now).commands();
        await().atMost(30, TimeUnit.SECONDS).until(() -> group.machine(wiped).commands().equals(all));
        await().atMost(10, TimeUnit.SECONDS).until(() -> !group.replica(wiped).status().rejoining());

        group.propose(group.awaitLeader(), TestGroup.commands("c", 5));
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine(wiped).commands().containsAll(TestGroup.commands("c", 5)));
    }

    /** The hazard the guard closes, shown without it: the wiped member votes and "b" is gone. */
    @Test
    @Timeout(60)
    void withoutTheGuardAWipedMemberHelpsElectALeaderThatLacksAcknowledgedWrites() throws Exception {
        history();
        group.start(lagging);
        group.start(wiped);
        String now = group.awaitLeader();
        assertThat(now).isEqualTo(lagging);
        assertThat(group.machine(now).commands()).doesNotContain("b-0");
    }

    private void history() throws Exception {
        group = new TestGroup("j", dir, 3, 1_000);
        group.startAll();
        leader = group.awaitLeader();
        List<String> followers = group.runningIds().stream().filter(id -> !id.equals(leader)).toList();
        lagging = followers.get(0);
        wiped = followers.get(1);
        group.propose(leader, TestGroup.commands("a", 20));
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine(lagging).commands().size() == 20);
        group.stop(lagging);
        group.propose(leader, TestGroup.commands("b", 20)); // acknowledged by the leader and the follower about to be wiped
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine(wiped).commands().size() == 40);
        group.stop(leader);
        group.stop(wiped);
        try (Stream<Path> s = Files.walk(dir.resolve(wiped))) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
