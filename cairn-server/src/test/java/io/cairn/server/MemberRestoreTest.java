package io.cairn.server;

import io.cairn.core.wire.StorageStats;
import io.cairn.server.FaultSupport.CheckingReader;
import io.cairn.server.FaultSupport.LoadThread;
import io.cairn.server.FaultSupport.MixedWriter;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.RouterProcess;
import io.cairn.server.process.StorageProcess;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.cairn.server.FaultSupport.NIL;
import static io.cairn.server.FaultSupport.phase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A member of a three-member replicaset restored from an old copy of its own data folder: the
 * copy was taken while it was stopped, and afterwards it acknowledged writes and deletes as part
 * of the majority. It comes back with an older Raft log and database than the ones its leader
 * knows it had: Raft assumes that never happens.
 */
class MemberRestoreTest {
    private static final int BUCKETS = 30;
    private static final String RS = "rs1";
    /** Per writer before the restore: keys overwritten, deleted (written before), counters. */
    private static final int KEYS = 100;
    private static final int COUNTERS = 10;

    @TempDir
    Path dir;


    /**
     * A follower is stopped, its folder copied (the old backup), started again; then two writers
     * overwrite, delete and count up keys with it in the majority; then it is stopped, its folder
     * replaced by the backup, and started while nothing is written. Follower reads are on, and two
     * routers read all the while: the one that wrote everything, and one started after the
     * restore that has written nothing. SYSTEM.md invariants: no stale value and no deleted key is
     * served (3); no acknowledged write is lost, also once another member stops and the restored
     * one is needed for the majority (2); the restored member catches up (its copy equals its
     * peers') although nothing is written meanwhile.
     */
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aMemberRestoredFromAnOldCopyOfItsFolderCatchesUpAndNoStaleOrDeletedValueIsServed() throws Exception {
        long t0 = System.nanoTime();
        ClusterConfig config = FaultSupport.configWithTwoRouters(dir, 1, 3, BUCKETS, Map.of(
                "router", Map.of("followerReads", true, "discoveryIntervalMs", 200)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            int writerPort = cluster.router().respPort();
            Map<String, String> initial = initialData();
            mset(writerPort, initial);
            String leader = MoveFaultSupport.leaderOf(cluster, RS);
            String restored = MoveFaultSupport.nodeIds(cluster, RS).stream().filter(id -> !id.equals(leader)).findFirst().orElseThrow();
            MoveFaultSupport.assertReplicasAgree(cluster, List.of(RS));

            // The backup: the member stopped, its folder copied, started again.
            cluster.stopNode(restored);
            Path backup = dir.resolve(restored + "-backup");
            DoubledBucketSupport.copyTree(config.nodeDir(restored), backup);
            cluster.startNode(restored);
            phase("backup of " + restored + " taken");

            List<MixedWriter> before = writeWithoutFault(writerPort, initial);
            Map<String, String> acknowledged = acknowledgedState(before);
            MoveFaultSupport.assertReplicasAgree(cluster, List.of(RS));
            long acknowledgedIndex = cluster.storage(leader).node().localStats().appliedIndex();
            phase("writes and deletes acknowledged up to index " + acknowledgedIndex + ", " + restored + " in the majority");

            // The restore.
            cluster.stopNode(restored);
            DoubledBucketSupport.deleteTree(config.nodeDir(restored));
            DoubledBucketSupport.copyTree(backup, config.nodeDir(restored));
            cluster.startNode(restored);
            phase(restored + " started from the backup (applied index " + appliedIndex(cluster, restored) + ")");

            try (RouterProcess second = new RouterProcess(config, "r2").start()) {
                assertThat(second.router().awaitRoutes(Duration.ofSeconds(60))).isTrue();
                List<MixedWriter> writers = new ArrayList<>(before);
                writers.add(readAndWriteWhileItCatchesUp(cluster, restored, acknowledgedIndex, acknowledged, initial, second));

                // The restored member's own copy: everything acknowledged, no deleted key.
                Map<String, String> ownCopy = FaultSupport.readFromMember(config, RS, restored, acknowledged.keySet());
                assertThat(differences(ownCopy, acknowledged)).as(restored + "'s own copy").isEmpty();
                phase(restored + "'s own copy checked");

                // Durability with the restored member in the majority: another member stops.
                String current = MoveFaultSupport.leaderOf(cluster, RS);
                String stopped = current.equals(restored) ? MoveFaultSupport.nodeIds(cluster, RS).stream()
                        .filter(id -> !id.equals(restored)).findFirst().orElseThrow() : current;
                cluster.stopNode(stopped);
                phase("stopped " + stopped + "; " + MoveFaultSupport.leaderOf(cluster, RS) + " leads");
                for (int port : new int[] {writerPort, second.respPort()}) {
                    await("everything acknowledged reads back through port " + port).atMost(Duration.ofSeconds(30)).ignoreExceptions()
                            .untilAsserted(() -> assertThat(FaultSupport.wrongValues(port, initial, writers)).isEmpty());
                    phase("everything reads back through port " + port);
                }
            }
        }
        System.out.printf("member restore test took %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }

    /**
     * The same restore while another member is down: the writes and deletes made meanwhile were
     * acknowledged by the leader and the member that is then restored, so after the restore only
     * the leader holds them. The leader stops, and the other two members start: the restored one
     * with its old log, term and vote. SYSTEM.md invariant 2 (issue 21): the restored member, checked
     * against the coordinator's record of what it had acknowledged before it starts, has its folder set aside
     * and rejoins as a new member, a learner, so it cannot help elect a leader that lacks acknowledged writes;
     * once all three are back, every acknowledged write and delete reads back.
     * (Before the check, a trial lost all 1,000 acknowledged writes and 200 deleted keys came back.)
     */
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void writesAcknowledgedByAMemberLaterRestoredFromAnOldCopyOutliveTheLossOfTheirOtherCopy() throws Exception {
        ClusterConfig config = TestClusters.config(dir, 1, 3, BUCKETS, Map.of());
        try (LocalCluster cluster = new LocalCluster(config).start();
             io.cairn.coordinator.CoordinatorClient coordinator = new io.cairn.coordinator.CoordinatorClient(config.topology().coordinators())) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            int port = cluster.router().respPort();
            Map<String, String> initial = initialData();
            mset(port, initial);
            String leader = MoveFaultSupport.leaderOf(cluster, RS);
            List<String> followers = MoveFaultSupport.nodeIds(cluster, RS).stream().filter(id -> !id.equals(leader)).toList();
            String restored = followers.get(0);
            String down = followers.get(1);
            MoveFaultSupport.assertReplicasAgree(cluster, List.of(RS));
            cluster.stopNode(restored);
            Path backup = dir.resolve(restored + "-backup");
            DoubledBucketSupport.copyTree(config.nodeDir(restored), backup);
            cluster.startNode(restored);
            MoveFaultSupport.assertReplicasAgree(cluster, List.of(RS));

            cluster.stopNode(down);
            List<MixedWriter> writers = writeWithoutFault(port, initial);
            long written = appliedIndex(cluster, leader);
            // the leader reports what each member holds about once a second: the check guards what was reported
            await("the record of " + restored).atMost(Duration.ofSeconds(20)).until(() -> coordinator.acknowledged(restored) >= written);
            phase("written with " + down + " down: acknowledged by " + leader + " and " + restored + " up to " + written);
            cluster.stopNode(restored);
            DoubledBucketSupport.deleteTree(config.nodeDir(restored));
            DoubledBucketSupport.copyTree(backup, config.nodeDir(restored));
            cluster.stopNode(leader);
            cluster.startNode(restored);
            cluster.startNode(down);
            phase("only " + restored + " (restored) and " + down + " run");
            // several election timeouts: neither may lead without the writes
            await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(12)).pollInterval(Duration.ofMillis(100)).until(() ->
                    !cluster.storage(restored).node().isLeader() && !cluster.storage(down).node().isLeader());
            assertThat(cluster.storage(restored).node().rejoining()).as(restored + " checked and found behind").isTrue();
            // the coordinator's record answered before the start: the older folder was set aside, and the node runs as a new member (a learner)
            assertThat(cluster.storage(restored).node().identity().member()).as(restored + "'s member").startsWith(restored + "~");
            assertThat(cluster.storage(restored).alerts()).anySatisfy(a -> assertThat(a).startsWith("REPLACED_DISK: " + restored).contains("older copy"));
            phase("no leader without " + leader + ": " + views(cluster));
            cluster.startNode(leader);
            MoveFaultSupport.leaderOf(cluster, RS);
            await("everything acknowledged reads back").atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .untilAsserted(() -> assertThat(FaultSupport.wrongValues(port, initial, writers)).isEmpty());
            await().atMost(Duration.ofSeconds(30)).until(() -> !cluster.storage(restored).node().rejoining());
            MoveFaultSupport.assertReplicasAgree(cluster, List.of(RS));
        }
    }

    /**
     * Starts a reader on each router (every value acknowledged before the restore, again and
     * again), waits for the restored member to catch up with nothing written, then writes (each
     * write read back at once, through follower reads) and reads a little more. Asserts that no
     * reader saw a stale value, that the member caught up and that follower reads were served.
     * Returns the writer that ran after the restore.
     */
    private MixedWriter readAndWriteWhileItCatchesUp(LocalCluster cluster, String restored, long acknowledgedIndex,
                                                     Map<String, String> acknowledged, Map<String, String> initial, RouterProcess second)
            throws InterruptedException {
        CheckingReader fresh = new CheckingReader("reader-that-never-wrote", second.respPort(), acknowledged, 100_000, Duration.ofSeconds(90)).start();
        CheckingReader own = new CheckingReader("reader-that-wrote", cluster.router().respPort(), acknowledged, 100_000, Duration.ofSeconds(90)).start();
        MixedWriter after = new MixedWriter("after-restore", cluster.router().respPort(), slice(initial, "w:"), Map.of(), "g:", List.of(),
                50, Duration.ofSeconds(60)).verifyingReads();
        List<LoadThread> load = new ArrayList<>(List.of(fresh, own));
        boolean caughtUp;
        try {
            caughtUp = awaitCaughtUp(cluster, restored, acknowledgedIndex);
            phase(restored + (caughtUp ? " caught up" : " did NOT catch up") + ": " + views(cluster));
            load.add(after.start());
            after.finish(Duration.ofSeconds(90));
            phase("written after the restore: " + after.summary());
            int done = Math.min(fresh.steps(), own.steps());
            await("more reading rounds").atMost(Duration.ofSeconds(30)).until(() -> fresh.steps() >= done + 2 && own.steps() >= done + 2);
        } finally {
            for (LoadThread t : load) t.stopAndJoin();
        }
        load.forEach(t -> System.out.println(t.summary()));
        System.out.printf("follower reads served to the second router: %d%n", second.router().followerReadsServed());
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(fresh.staleReads).as("stale values read through the router that never wrote (follower reads)").isEmpty();
        soft.assertThat(own.staleReads).as("stale values read through the router that wrote them").isEmpty();
        soft.assertThat(after.wrongReads).as("a write not read back right after its acknowledgement").isEmpty();
        soft.assertThat(after.anomalies).isEmpty();
        soft.assertThat(caughtUp).as(restored + " caught up with its (idle) replicaset within 30 s").isTrue();
        soft.assertAll();
        assertThat(second.router().followerReadsServed()).as("follower reads served at all").isPositive();
        return after;
    }

    // ---- data ----------------------------------------------------------------------------------

    /** Per writer t (of two): keys to overwrite (kT:), to delete (dT:), counters (cT:); 100 keys for writes after the restore (w:). */
    private static Map<String, String> initialData() {
        Map<String, String> initial = new LinkedHashMap<>();
        for (int t = 0; t < 2; t++) {
            for (int i = 0; i < KEYS; i++) initial.put("k" + t + ":" + i, "a-" + i);
            for (int i = 0; i < KEYS; i++) initial.put("d" + t + ":" + i, "live-" + i);
            for (int i = 0; i < COUNTERS; i++) initial.put("c" + t + ":" + i, "0");
        }
        for (int i = 0; i < 100; i++) initial.put("w:" + i, "w-" + i);
        return initial;
    }

    private static void mset(int port, Map<String, String> values) {
        try (Jedis jedis = new Jedis("127.0.0.1", port, 30_000)) {
            List<String> kv = new ArrayList<>();
            values.forEach((k, v) -> {
                kv.add(k);
                kv.add(v);
            });
            assertThat(jedis.mset(kv.toArray(String[]::new))).isEqualTo("OK");
        }
    }

    /** Two writers, each overwriting its keys, deleting its keys written before and counting up its counters: no fault, so no error. */
    private static List<MixedWriter> writeWithoutFault(int port, Map<String, String> initial) throws InterruptedException {
        List<MixedWriter> writers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            writers.add(new MixedWriter("before-restore-" + t, port, slice(initial, "k" + t + ":"), slice(initial, "d" + t + ":"), "f" + t + ":",
                    List.copyOf(slice(initial, "c" + t + ":").keySet()), KEYS, Duration.ofSeconds(60)).start());
        }
        for (MixedWriter w : writers) {
            w.finish(Duration.ofSeconds(90));
            System.out.println(w.summary());
            assertThat(w.errorCount()).as(w.name() + ": errors without a fault").isZero();
            assertThat(w.anomalies).as(w.name()).isEmpty();
        }
        return writers;
    }

    private static Map<String, String> slice(Map<String, String> all, String prefix) {
        Map<String, String> out = new LinkedHashMap<>();
        all.forEach((k, v) -> {
            if (k.startsWith(prefix)) out.put(k, v);
        });
        return out;
    }

    /**
     * The exact state writers that saw no error left, for the keys written before: each key's one
     * allowed value (NIL for the deleted ones), each counter at its acknowledged INCRs.
     */
    private static Map<String, String> acknowledgedState(List<MixedWriter> writers) {
        Map<String, String> out = new LinkedHashMap<>();
        for (MixedWriter w : writers) {
            w.allowed.forEach((k, v) -> {
                assertThat(v).as(k).hasSize(1);
                if (!k.startsWith("f")) out.put(k, v.iterator().next());
            });
            w.incrAcknowledged.forEach((k, n) -> out.put(k, Integer.toString(n.get())));
        }
        assertThat(out.entrySet().stream().filter(e -> e.getKey().startsWith("d") && NIL.equals(e.getValue())))
                .as("acknowledged deletes of keys written before").hasSize(2 * KEYS);
        return out;
    }

    // ---- checks --------------------------------------------------------------------------------

    /**
     * Waits until the restored member has applied at least what was acknowledged before the
     * restore and holds what the leader holds; false when it has not within 30 s.
     */
    private static boolean awaitCaughtUp(LocalCluster cluster, String restored, long acknowledgedIndex) {
        try {
            await(restored + " catches up").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                StorageProcess p = cluster.storage(restored);
                StorageProcess l = cluster.storage(MoveFaultSupport.leaderOf(cluster, RS));
                if (p == null || l == null) return false;
                StorageStats mine = p.node().localStats();
                StorageStats theirs = l.node().localStats();
                return mine.appliedIndex() >= acknowledgedIndex && mine.keyCount() == theirs.keyCount()
                        && mine.ownedBuckets() == theirs.ownedBuckets() && mine.lastBsn() == theirs.lastBsn();
            });
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    private static long appliedIndex(LocalCluster cluster, String id) {
        StorageProcess p = cluster.storage(id);
        return p == null ? -1 : p.node().localStats().appliedIndex();
    }

    private static Map<String, String> views(LocalCluster cluster) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String id : MoveFaultSupport.nodeIds(cluster, RS)) {
            StorageProcess p = cluster.storage(id);
            StorageStats s = p == null ? null : p.node().localStats();
            out.put(id, p == null ? "stopped" : p.node().role() + " applied " + s.appliedIndex() + ", " + s.keyCount() + " keys");
        }
        return out;
    }

    private static List<String> differences(Map<String, String> read, Map<String, String> expected) {
        List<String> out = new ArrayList<>();
        expected.forEach((k, v) -> {
            if (!v.equals(read.get(k))) out.add(k + "=" + read.get(k) + ", expected " + v);
        });
        return out.size() > 20 ? out.subList(0, 20) : out;
    }
}
