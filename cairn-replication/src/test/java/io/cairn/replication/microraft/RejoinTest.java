package io.cairn.replication.microraft;

import io.cairn.replication.ReplicaConfig;
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

    /**
     * A member restored from an older copy of its own folder (the same member, its log shorter than
     * what it acknowledged) and checked against the leader's record of what it held: it stays out of
     * elections, where the lagging member and it would otherwise elect a leader without "b".
     */
    @Test
    @Timeout(90)
    void aMemberRestoredFromAnOlderCopyStaysOutOnceTheRecordShowsItLostEntries() throws Exception {
        group = new TestGroup("r", dir, 3, 1_000);
        group.startAll();
        leader = group.awaitLeader();
        List<String> followers = group.runningIds().stream().filter(id -> !id.equals(leader)).toList();
        lagging = followers.get(0);
        String restored = followers.get(1);
        group.propose(leader, TestGroup.commands("a", 20));
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine(restored).commands().size() == 20 && group.machine(lagging).commands().size() == 20);
        group.stop(restored);
        copyTree(dir.resolve(restored), dir.resolve("backup"));
        group.start(restored);
        group.stop(lagging);
        group.propose(leader, TestGroup.commands("b", 20));
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine(restored).commands().size() == 40);
        long acknowledged = group.replica(leader).acknowledged().get(10, TimeUnit.SECONDS).get(restored);
        group.stop(leader);
        group.stop(restored);
        deleteTree(dir.resolve(restored));
        copyTree(dir.resolve("backup"), dir.resolve(restored));

        group.start(lagging, ReplicaConfig.Vote.AFTER_CHECK);
        group.start(restored, ReplicaConfig.Vote.AFTER_CHECK);
        assertThat(group.replica(lagging).confirmAcknowledged(20).get(10, TimeUnit.SECONDS)).as("its log holds all it acknowledged").isTrue();
        assertThat(group.replica(restored).confirmAcknowledged(acknowledged).get(10, TimeUnit.SECONDS)).as("the restored copy lacks " + acknowledged).isFalse();
        assertThat(group.replica(restored).status().rejoining()).isTrue();
        await().during(Duration.ofSeconds(6)).atMost(10, TimeUnit.SECONDS)
                .until(() -> group.runningIds().stream().noneMatch(id -> group.replica(id).status().role() == ReplicaStatus.Role.LEADER));

        group.start(leader);
        String now = group.awaitLeader();
        assertThat(group.machine(now).commands()).containsAll(TestGroup.commands("b", 20));
        await().atMost(30, TimeUnit.SECONDS).until(() -> !group.replica(restored).status().rejoining()
                && group.machine(restored).commands().containsAll(TestGroup.commands("b", 20)));
    }

    /**
     * A member made to rejoin although its log is complete (its disk differs from the one on record)
     * already holds its leader's term entry, so no append brings it an entry of that term: the
     * leader's heartbeats, naming that entry as the one before, must release it with no new write.
     */
    @Test
    @Timeout(60)
    void aRejoiningMemberWithACompleteLogVotesAgainOnAnIdleGroup() throws Exception {
        group = new TestGroup("i", dir, 3, 1_000);
        group.startAll();
        leader = group.awaitLeader();
        String follower = group.runningIds().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
        group.propose(leader, TestGroup.commands("a", 5));
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine(follower).commands().size() == 5);
        group.stop(follower);
        group.start(follower, ReplicaConfig.Vote.AFTER_CHECK);
        // Started out of elections pending the check; a heartbeat that lands before the check may already
        // release it (its log reaches the leader's commit), so the check's answer is not asserted here.
        group.replica(follower).confirmAcknowledged(Long.MAX_VALUE).get(10, TimeUnit.SECONDS);

        await().atMost(15, TimeUnit.SECONDS).until(() -> !group.replica(follower).status().rejoining());
        assertThat(group.awaitLeader()).as("no election was needed").isEqualTo(leader);
    }

    /**
     * A member whose folder is no longer its node's member in the group (an older disk put back, found after it
     * started) has its vote withheld for good: caught up or not, it neither votes nor stands, so with the leader
     * gone the other member alone elects no one.
     */
    @Test
    @Timeout(60)
    void aMemberWhoseVoteIsWithheldNeverVotesEvenOnceCaughtUp() throws Exception {
        group = new TestGroup("w", dir, 3, 1_000);
        group.startAll();
        leader = group.awaitLeader();
        List<String> followers = group.runningIds().stream().filter(id -> !id.equals(leader)).toList();
        String withheld = followers.get(0);
        String other = followers.get(1);
        group.propose(leader, TestGroup.commands("a", 5));
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine(withheld).commands().size() == 5);
        group.stop(withheld);
        group.start(withheld, ReplicaConfig.Vote.AFTER_CHECK);
        group.replica(withheld).withholdVote();
        group.propose(leader, TestGroup.commands("b", 5));
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine(withheld).commands().size() == 10);
        await().during(Duration.ofSeconds(3)).atMost(6, TimeUnit.SECONDS).until(() -> group.replica(withheld).status().rejoining());

        group.stop(leader);
        await().during(Duration.ofSeconds(6)).atMost(10, TimeUnit.SECONDS)
                .until(() -> group.runningIds().stream().noneMatch(id -> group.replica(id).status().role() == ReplicaStatus.Role.LEADER));
        assertThat(group.replica(other).status().role()).isNotEqualTo(ReplicaStatus.Role.LEADER);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(target);
                else Files.copy(p, target);
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
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
        deleteTree(dir.resolve(wiped));
    }
}
