package io.cairn.replication.microraft;

import io.cairn.core.topology.MemberIds;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class SnapshotTest {
    private static final int SNAPSHOT_EVERY = 100;

    @TempDir
    Path dir;

    private TestGroup group;

    @AfterEach
    void stop() {
        if (group != null) group.close();
    }

    @Test
    @Timeout(60)
    void aFollowerFarBehindInstallsASnapshotThenTheLogAndOldSegmentsGo() throws Exception {
        followerFarBehindInstallsASnapshot(new TestGroup("s", dir, 3, SNAPSHOT_EVERY));
    }

    /**
     * A member back on a new disk has an id with the disk in it ({@link MemberIds}): its snapshot's pieces, which
     * name it as their source, are installed as any (a chaos run found them refused, the follower never caught up).
     */
    @Test
    @Timeout(60)
    void aSnapshotFromAMemberBackOnANewDiskIsInstalledToo() throws Exception {
        followerFarBehindInstallsASnapshot(new TestGroup("n", dir, 3, SNAPSHOT_EVERY, MemberIds.SEPARATOR + "3f09a1c2"));
    }

    private void followerFarBehindInstallsASnapshot(TestGroup testGroup) throws Exception {
        group = testGroup;
        group.startAll();
        String leader = group.awaitLeader();
        String lagging = group.runningIds().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
        group.propose(leader, TestGroup.commands("early", 30));
        await().atMost(5, TimeUnit.SECONDS).until(() -> group.machine(lagging).commands().size() == 30);
        group.stop(lagging);

        for (int batch = 0; batch < 8; batch++) { // past three snapshot points, in batches as a steady load comes
            group.propose(leader, TestGroup.commands("while-away-" + batch, 40));
        }
        await().atMost(5, TimeUnit.SECONDS).until(() -> sealedSnapshots(leader).contains(3L * SNAPSHOT_EVERY));
        assertThat(sealedSnapshots(leader)).hasSizeLessThanOrEqualTo(2); // the latest and the one before
        await().atMost(5, TimeUnit.SECONDS).until(() -> segmentFiles(leader) <= 2 && !firstSegmentExists(leader));
        assertThat(group.internals(leader).logSegments()).isLessThanOrEqualTo(2);

        group.start(lagging);
        RecordingStateMachine caughtUp = group.machine(lagging);
        group.propose(leader, TestGroup.commands("after", 10)); // these reach it through the log, after the snapshot
        List<String> all = group.machine(leader).commands();
        await().atMost(20, TimeUnit.SECONDS).until(() -> caughtUp.commands().equals(all));
        assertThat(caughtUp.restores()).isEqualTo(1); // it installed the leader's snapshot
        assertThat(caughtUp.reapplied()).isZero();
        for (String id : group.runningIds()) {
            await().atMost(5, TimeUnit.SECONDS).until(() -> group.machine(id).history().equals(group.machine(leader).history()));
        }
        assertThat(sealedSnapshots(lagging)).contains(3L * SNAPSHOT_EVERY);
        assertThat(stagingFolders(lagging)).isZero();
        await().atMost(5, TimeUnit.SECONDS).until(() -> !firstSegmentExists(lagging)); // its log from before the snapshot went
    }

    @Test
    @Timeout(60)
    void aGroupRestartedOnItsFoldersRestoresFromSnapshotsAndLogsAndGoesOn() throws Exception {
        group = new TestGroup("r", dir, 3, SNAPSHOT_EVERY);
        group.startAll();
        String leader = group.awaitLeader();
        for (int batch = 0; batch < 6; batch++) group.propose(leader, TestGroup.commands("first-" + batch, 40));
        List<String> before = group.machine(leader).commands();
        for (String id : group.runningIds()) await().atMost(5, TimeUnit.SECONDS).until(() -> group.machine(id).commands().equals(before));
        group.close();

        group.startAll(); // snapshots at 100 and 200 on disk, the log after them, state machines at 240
        String next = group.awaitLeader();
        for (String id : group.runningIds()) {
            assertThat(group.machine(id).commands()).isEqualTo(before);
            assertThat(group.machine(id).restores()).isZero(); // its state machine was ahead of its snapshot: nothing to restore
        }
        group.propose(next, TestGroup.commands("second", 80)); // past the next snapshot point
        List<String> all = group.machine(next).commands();
        assertThat(all).hasSize(before.size() + 80);
        for (String id : group.runningIds()) {
            await().atMost(5, TimeUnit.SECONDS).until(() -> group.machine(id).commands().equals(all));
            assertThat(group.machine(id).reapplied()).isZero();
        }
        assertThat(sealedSnapshots(next)).contains(3L * SNAPSHOT_EVERY);
    }

    @Test
    @Timeout(60)
    void aSnapshotTakenOnDemandIsSealedAtTheAppliedIndexBeforeTheSnapshotPoint() throws Exception {
        group = new TestGroup("d", dir, 3, SNAPSHOT_EVERY);
        group.startAll();
        String leader = group.awaitLeader();
        group.propose(leader, TestGroup.commands("few", 30)); // far from the first snapshot point
        String follower = group.runningIds().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
        await().atMost(5, TimeUnit.SECONDS).until(() -> group.machine(follower).commands().size() == 30);
        assertThat(sealedSnapshots(follower)).isEmpty();

        long index = group.replica(follower).takeSnapshot().get(10, TimeUnit.SECONDS);
        assertThat(index).as("a follower takes one too, at what it applied").isGreaterThanOrEqualTo(30);
        assertThat(sealedSnapshots(follower)).contains(index);
        assertThat(group.replica(leader).takeSnapshot().get(10, TimeUnit.SECONDS)).as("and the leader").isGreaterThanOrEqualTo(index);
    }

    /**
     * A follower back on an empty folder (a wiped or replaced disk) rejects every append below what it
     * had acknowledged, and MicroRaft's leader never goes below its match index for it: the leader
     * hands leadership over, and the new leader repairs the follower (LostLogWatch).
     */
    @Test
    @Timeout(90)
    void aFollowerBackOnAnEmptyFolderIsRepairedAfterTheLeaderHandsOver() throws Exception {
        group = new TestGroup("w", dir, 3, SNAPSHOT_EVERY);
        group.startAll();
        String leader = group.awaitLeader();
        group.propose(leader, TestGroup.commands("before", 30));
        String wiped = group.runningIds().stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
        await().atMost(5, TimeUnit.SECONDS).until(() -> group.machine(wiped).commands().size() == 30);
        group.stop(wiped);
        deleteTree(dir.resolve(wiped));

        group.start(wiped);
        List<String> all = group.machine(leader).commands();
        await().atMost(60, TimeUnit.SECONDS).until(() -> group.machine(wiped).commands().equals(all));
        String now = group.awaitLeader();
        assertThat(now).as("the old leader handed over").isNotEqualTo(leader);
        group.propose(now, TestGroup.commands("after", 5));
        List<String> after = group.machine(now).commands();
        await().atMost(10, TimeUnit.SECONDS).until(() -> group.machine(wiped).commands().equals(after));
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    private List<Long> sealedSnapshots(String id) throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve(id).resolve("snapshots"))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit)).map(Long::parseLong).toList();
        }
    }

    private long stagingFolders(String id) throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve(id).resolve("snapshots"))) {
            return s.filter(p -> p.getFileName().toString().contains(".from-")).count();
        }
    }

    private boolean firstSegmentExists(String id) {
        return Files.exists(dir.resolve(id).resolve("raft").resolve("log").resolve("00000000000000000000.seg"));
    }

    private long segmentFiles(String id) throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve(id).resolve("raft").resolve("log"))) {
            return s.filter(p -> p.toString().endsWith(".seg")).count();
        }
    }
}
