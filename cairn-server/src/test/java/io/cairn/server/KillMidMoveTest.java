package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.server.FaultSupport.MixedWriter;
import io.cairn.server.config.ClusterConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.cairn.server.FaultSupport.phase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A storage process killed with SIGKILL in the middle of a bucket move, with client writes,
 * INCRs and deletes in flight: a cluster of one OS process per node (coordinator, two
 * replicasets of three storage nodes, router) started from one config file, the move started
 * with {@code cairn bucket move}. The other fault tests close nodes inside the test's JVM; here
 * the kernel ends the process (no shutdown hook, no flush, connections reset).
 */
class KillMidMoveTest {
    private static final int BUCKETS = 60;
    private static final String TAG = "big";
    /**
     * Keys of the moving bucket: in chunks of 4 keys, 150 entries on the destination, each a
     * Raft commit of three processes under load: seconds of transfer, so the kill lands in it.
     */
    private static final int BIG_KEYS = 600;
    /** Keys of the moving bucket deleted during the test (written before it). */
    private static final int BIG_DELETES = 150;
    /** Per writer of the other buckets: keys overwritten, and keys deleted (written before the test). */
    private static final int OTHER_KEYS = 150;
    private static final int OTHER_DELETES = 150;
    private static final List<String> REPLICASETS = List.of("rs1", "rs2");

    @TempDir
    Path dir;

    /**
     * The source replicaset's leader (the worst victim: it serves the bucket's writes and the
     * copy) is killed with SIGKILL while the destination is receiving the bucket, under SET, INCR
     * and DEL load on the moving bucket and the others; then it is restarted. SYSTEM.md
     * invariants: every bucket ends ACTIVE on exactly one replicaset and the counts add up (1, 4);
     * every acknowledged write reads back an allowed value and no INCR applies twice (2); no
     * acknowledged delete comes back, neither after the move nor after the leaders of both
     * replicasets are killed and restarted once more (3); the members of each replicaset agree.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aMoveWhoseSourceLeaderIsKilledWithSigkillEndsWithEveryAcknowledgedWriteAndDeleteKept() throws Exception {
        long t0 = System.nanoTime();
        ClusterConfig config = TestClusters.config(dir, 2, 3, BUCKETS, Map.of(
                "rebalancer", Map.of("auto", false, "chunkKeys", 4, "roundIntervalMs", 100),
                // Snapshots (and log purges) during the test: a restarted member may catch up from one.
                "storage", Map.of("snapshotEveryEntries", 1_000)));
        try (ProcessCluster cluster = new ProcessCluster(dir, config).startAll();
             MoveFaultSupport.Records records = new MoveFaultSupport.Records(config.topology())) {
            int port = cluster.respPort();
            awaitWrites(port);
            phase("cluster of processes up");
            int bucket = BucketHasher.bucketOf(TAG.getBytes(StandardCharsets.UTF_8), BUCKETS);
            Data data = load(port, bucket);
            String source = ownerOf(records, bucket);
            String destination = source.equals("rs1") ? "rs2" : "rs1";
            phase("data written; bucket " + bucket + " moves " + source + " -> " + destination);

            List<MixedWriter> writers = new ArrayList<>();
            int deletesBeforeKill;
            int deletesBeforeEnd;
            try {
                writers.add(new MixedWriter("moving-bucket", port, data.slice("{" + TAG + "}:k:", 200), data.slice("{" + TAG + "}:del:", BIG_DELETES),
                        "{" + TAG + "}:fresh:", data.counters("{" + TAG + "}:"), 3_000, Duration.ofSeconds(90)).start());
                for (int t = 0; t < 2; t++) {
                    writers.add(new MixedWriter("others-" + t, port, data.slice("k:" + t + ":", OTHER_KEYS), data.slice("del:" + t + ":", OTHER_DELETES),
                            "fresh:" + t + ":", data.counters("count:" + t + ":"), 3_000, Duration.ofSeconds(90)).start());
                }
                await("load under way").atMost(Duration.ofSeconds(60)).until(() -> writers.stream().allMatch(w -> w.acks.get() >= 20));

                Cli move = Cli.run("bucket", "move", Integer.toString(bucket), "--to", destination, "--config", cluster.configFile());
                assertThat(move.exitCode()).as("cairn bucket move").isZero();
                phase("move queued");
                deletesBeforeKill = writers.get(0).acknowledgedDeletes.size();
                String victim = awaitTransferUnderWayThenKillSourceLeader(cluster, records, bucket, source, destination, data);
                phase("SIGKILLed " + victim + ", leader of " + source);

                String newLeader = cluster.leaderOf(source);
                phase(source + " has a new leader " + newLeader + "; restarting " + victim);
                cluster.start(victim);
                deletesBeforeEnd = awaitMoveEnded(cluster, records, bucket, destination, writers.get(0));
                phase("move ended: " + cluster.rebalancer());
            } finally {
                for (MixedWriter w : writers) w.stopAndJoin();
            }
            writers.forEach(w -> System.out.println(w.summary()));
            for (MixedWriter w : writers) assertThat(w.anomalies).as(w.name() + ": replies no correct history explains").isEmpty();
            assertThat(deletesBeforeEnd).as("deletes in the moving bucket acknowledged between the move's start and its end")
                    .isGreaterThan(deletesBeforeKill);

            String owner = assertEveryBucketOwnedOnce(cluster, records, bucket);
            phase("bucket " + bucket + " is on " + owner + "; every bucket owned once");
            assertThat(FaultSupport.wrongValues(port, data.initial, writers)).as("keys reading back a value no acknowledged history allows").isEmpty();
            cluster.awaitReplicasAgree(REPLICASETS);
            phase("keys checked; replicas agree");

            // No resurrection by a restart either: both leaders killed and restarted, then everything again.
            List<String> leaders = List.of(cluster.leaderOf("rs1"), cluster.leaderOf("rs2"));
            for (String id : leaders) cluster.kill(id);
            for (String id : leaders) cluster.start(id);
            phase("SIGKILLed and restarted both leaders " + leaders);
            awaitWrites(port);
            assertThat(FaultSupport.wrongValues(port, data.initial, writers)).as("keys reading back a value no acknowledged history allows").isEmpty();
            assertEveryBucketOwnedOnce(cluster, records, bucket);
            cluster.awaitReplicasAgree(REPLICASETS);
            phase("after the restarts: keys checked; replicas agree");
            cluster.passed();
        }
        System.out.printf("kill -9 mid-move test took %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }

    // ---- the fault -----------------------------------------------------------------------------

    /**
     * Waits until the destination has received the first chunks, checks that the rebalancer
     * reports the move in flight and that the copy is still incomplete right before the kill
     * (else the test would not test a kill mid-move), and SIGKILLs the source's leader.
     */
    private static String awaitTransferUnderWayThenKillSourceLeader(ProcessCluster cluster, MoveFaultSupport.Records records, int bucket,
                                                                    String source, String destination, Data data) throws Exception {
        long bucketKeys = data.bucketKeysBefore;
        await("first chunks on the destination").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
            BucketDigest d = records.digest(destination, bucket);
            return d != null && d.record() != null && d.keyCount() >= 20;
        });
        Map<String, Object> progress = cluster.rebalancer();
        assertThat(progress).as("rebalancer progress").isNotNull();
        assertThat(MoveFaultSupport.longOf(progress, "inFlight")).as("moves in flight: " + progress).isEqualTo(1);
        String victim = cluster.leaderOf(source);
        BucketDigest atDestination = records.digest(destination, bucket);
        String seen = destination + " has " + MoveFaultSupport.describe(atDestination.record()) + " with " + atDestination.keyCount()
                + " keys; " + source + " has " + MoveFaultSupport.describe(records.digest(source, bucket).record());
        System.out.println("right before the kill: " + seen + "; progress " + progress);
        assertThat(atDestination.record().state()).as("transfer over before the kill: " + seen).hasToString("RECEIVING");
        assertThat(atDestination.keyCount()).as("transfer over before the kill: " + seen).isLessThan(bucketKeys / 2);
        cluster.kill(victim);
        return victim;
    }

    /**
     * Waits until the rebalancer reports the move ended (moved or rolled back); prints the
     * destination's copy meanwhile. Returns the deletes {@code writer} had acknowledged just before.
     */
    private static int awaitMoveEnded(ProcessCluster cluster, MoveFaultSupport.Records records, int bucket, String destination,
                                      MixedWriter writer) {
        long[] lastPrint = {System.nanoTime()};
        int[] deletes = new int[1];
        await("the move finishes or rolls back").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
            if (System.nanoTime() - lastPrint[0] > TimeUnit.SECONDS.toNanos(3)) {
                lastPrint[0] = System.nanoTime();
                BucketDigest d = records.digest(destination, bucket);
                phase("destination " + (d == null ? "no answer" : MoveFaultSupport.describe(d.record()) + " keys=" + d.keyCount()));
            }
            deletes[0] = writer.acknowledgedDeletes.size();
            Map<String, Object> p = cluster.rebalancer();
            return p != null && MoveFaultSupport.settled(p, 1);
        });
        return deletes[0];
    }

    // ---- data ----------------------------------------------------------------------------------

    /** What the test wrote before the fault: key -> value (counters "0"), and the moving bucket's key count. */
    private record Data(Map<String, String> initial, long bucketKeysBefore) {
        /** The first {@code n} keys starting with {@code prefix}, with their values. */
        Map<String, String> slice(String prefix, int n) {
            Map<String, String> out = new LinkedHashMap<>();
            for (var e : initial.entrySet()) if (e.getKey().startsWith(prefix) && out.size() < n) out.put(e.getKey(), e.getValue());
            assertThat(out).as(prefix + "*").hasSize(n);
            return out;
        }

        List<String> counters(String prefix) {
            return initial.keySet().stream().filter(k -> k.startsWith(prefix) && k.contains("count")).toList();
        }
    }

    /**
     * The moving bucket ({@code {big}:*}): 600 keys, of them 150 to delete and 10 counters; the
     * other buckets: per writer 150 keys to overwrite, 150 to delete and 20 counters.
     */
    private static Data load(int port, int bucket) {
        Map<String, String> initial = new LinkedHashMap<>();
        String big = "{" + TAG + "}:";
        for (int i = 0; i < BIG_KEYS - BIG_DELETES - 10; i++) initial.put(big + "k:" + i, "v" + i);
        for (int i = 0; i < BIG_DELETES; i++) initial.put(big + "del:" + i, "d" + i);
        for (int i = 0; i < 10; i++) initial.put(big + "count:" + i, "0");
        for (int t = 0; t < 2; t++) {
            for (int i = 0; i < OTHER_KEYS; i++) initial.put("k:" + t + ":" + i, "o" + i);
            for (int i = 0; i < OTHER_DELETES; i++) initial.put("del:" + t + ":" + i, "d" + i);
            for (int i = 0; i < 20; i++) initial.put("count:" + t + ":" + i, "0");
        }
        try (Jedis jedis = new Jedis("127.0.0.1", port, 30_000)) {
            List<String> keys = new ArrayList<>(initial.keySet());
            for (int from = 0; from < keys.size(); from += 500) {
                List<String> kv = new ArrayList<>();
                for (String k : keys.subList(from, Math.min(keys.size(), from + 500))) {
                    kv.add(k);
                    kv.add(initial.get(k));
                }
                assertThat(jedis.mset(kv.toArray(String[]::new))).isEqualTo("OK");
            }
            assertThat(jedis.dbSize()).isEqualTo(initial.size());
        }
        long inBucket = initial.keySet().stream().filter(k -> BucketHasher.bucketOf(k.getBytes(StandardCharsets.UTF_8), BUCKETS) == bucket).count();
        assertThat(inBucket).as("keys of the moving bucket").isGreaterThanOrEqualTo(BIG_KEYS);
        return new Data(initial, inBucket);
    }

    // ---- checks --------------------------------------------------------------------------------

    private static String ownerOf(MoveFaultSupport.Records records, int bucket) throws Exception {
        for (String rs : REPLICASETS) {
            BucketDigest d = records.digest(rs, bucket);
            if (d != null && d.record() != null && d.record().state().servesWrites()) return rs;
        }
        throw new AssertionError("no replicaset owns bucket " + bucket);
    }

    /**
     * Every bucket is writable on exactly one replicaset, the other holds no routable record and
     * no data of it, and the owners' counts add up to the bucket count. Returns the moved bucket's owner.
     */
    private static String assertEveryBucketOwnedOnce(ProcessCluster cluster, MoveFaultSupport.Records records, int moved)
            throws Exception {
        String movedOwner = null;
        List<String> wrong = new ArrayList<>();
        for (int b = 1; b <= BUCKETS; b++) {
            List<String> owners = new ArrayList<>();
            StringBuilder seen = new StringBuilder();
            for (String rs : REPLICASETS) {
                BucketDigest d = records.digest(rs, b);
                assertThat(d).as("digest of bucket " + b + " from " + rs).isNotNull();
                BucketRecord r = d.record();
                seen.append(rs).append('=').append(MoveFaultSupport.describe(r)).append(" keys=").append(d.keyCount()).append(' ');
                if (r != null && r.state().servesWrites()) owners.add(rs);
                else if ((r != null && r.state().isRoutable()) || d.keyCount() != 0) wrong.add("bucket " + b + ": non-owner holds it: " + seen);
            }
            if (owners.size() != 1) wrong.add("bucket " + b + ": owners " + owners + ": " + seen);
            if (b == moved) {
                System.out.println("moved bucket " + b + ": " + seen);
                movedOwner = owners.isEmpty() ? null : owners.get(0);
            }
        }
        assertThat(wrong).as("buckets not owned by exactly one replicaset").isEmpty();
        await("owned buckets add up").atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(cluster.ownedBuckets().values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(BUCKETS));
        return movedOwner;
    }

    /** Waits until a SET through the router succeeds (every process up, leaders elected, routes known). */
    private static void awaitWrites(int port) {
        await("writes through the router").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
            try (Jedis jedis = new Jedis("127.0.0.1", port, 5_000)) {
                return "OK".equals(jedis.set("probe", "x")) && jedis.del("probe") == 1;
            }
        });
    }
}
