package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.ErrorCode;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.server.admin.AdminClient;
import io.cairn.server.cli.CairnCommand;
import io.cairn.server.cli.CliTestAccess;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.cairn.server.DoubledBucketSupport.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Design 000's scenario on the real stack: buckets move from rs1 to rs2, rs1 is restored from a
 * copy of its folder taken before the move, and comes back with the moved buckets ACTIVE at the
 * old generation. The stale copies must be contained (READONLY doubled: writes refused, reads
 * served), alerts must appear on the storage and the router, no write may land on the stale
 * copy, and `resolve` must bring normal service back without losing an acknowledged write.
 */
class DoubledBucketTest {
    private static final int BUCKETS = 300;

    @TempDir
    Path dir;

    @Test
    void aRestoredOldBackupIsContainedAlertedAndResolvedWithRouterVerification() throws Exception {
        Timings t = runScenario(true, 1, true);
        t.print("router verification, 1 bucket");
    }

    @Test
    void theStorageSelfCheckAloneContainsTheDoubleWhenRouterVerificationIsOff() throws Exception {
        Timings t = runScenario(false, 1, false);
        t.print("self-check only, 1 bucket");
    }

    @Test
    void aHundredDoubledBucketsAreContained() throws Exception {
        Timings t = runScenario(true, 100, false);
        t.print("router verification, 100 buckets");
    }

    @Test
    void aHundredDoubledBucketsAreContainedByTheSelfCheckAlone() throws Exception {
        Timings t = runScenario(false, 100, false);
        t.print("self-check only, 100 buckets");
    }

    record Timings(long leaderMs, long refusedMs, long storageAlertMs, long routerAlertMs) {
        void print(String what) {
            System.out.printf("doubled buckets (%s): from the restored node's start: leader %d ms, writes refused %d ms, storage alert %d ms, router alert %d ms%n",
                    what, leaderMs, refusedMs, storageAlertMs, routerAlertMs);
        }
    }

    private Timings runScenario(boolean routerVerification, int doubledCount, boolean resolve) throws Exception {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("rebalancer", Map.of("auto", false, "maxSendingPerReplicaset", 16, "maxReceivingPerReplicaset", 16));
        extra.put("router", Map.of("verifyDoubled", routerVerification, "discoveryIntervalMs", 200));
        // With router verification on, the self-check is off, so the test shows the router path works alone.
        extra.put("storage", Map.of("doubledSelfCheckBucketsPerSecond", routerVerification ? 0 : 100));
        ClusterConfig config = TestClusters.config(dir, 2, 1, BUCKETS, extra);
        Path backup = dir.resolve("s1-1-backup");
        try (LocalCluster cluster = new LocalCluster(config).start();
             MoveFaultSupport.Records records = new MoveFaultSupport.Records(config.topology())) {
            assertThat(cluster.awaitReady(Duration.ofSeconds(60))).isTrue();
            List<Integer> moved = bucketsOwnedBy(cluster, "rs1", doubledCount);
            Map<Integer, List<String>> keys = keysOf(moved, BUCKETS, 3);
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                keys.values().forEach(ks -> ks.forEach(k -> jedis.set(k, "before")));
            }

            // The "backup": rs1's only node stopped, its folder copied, started again.
            cluster.stopNode("s1-1");
            copyTree(config.nodeDir("s1-1"), backup);
            cluster.startNode("s1-1");
            MoveFaultSupport.leaderOf(cluster, "rs1");

            for (int b : moved) assertThat(cluster.coordinator().mover().requestMove(b, "rs2")).isTrue();
            await().atMost(Duration.ofSeconds(40)).until(() -> moved.stream().allMatch(b -> "rs2".equals(cluster.router().router().ownerOf(b))));
            Map<String, String> acknowledged = new HashMap<>();
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                for (List<String> ks : keys.values()) {
                    for (String k : ks) {
                        assertThat(jedis.set(k, "after-move")).isEqualTo("OK");
                        acknowledged.put(k, "after-move");
                    }
                }
            }

            // The restore: rs1 comes back from the copy taken before the move.
            cluster.stopNode("s1-1");
            deleteTree(config.nodeDir("s1-1"));
            copyTree(backup, config.nodeDir("s1-1"));
            long start = System.nanoTime();
            cluster.startNode("s1-1");
            int storageAdmin = config.topology().storageNode("s1-1").orElseThrow().adminPort();
            int routerAdmin = cluster.router().admin().port();

            long[] when = new long[4];
            await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(20)).until(() -> {
                long now = (System.nanoTime() - start) / 1_000_000;
                if (when[3] == 0 && cluster.storage("s1-1").node().isLeader()) when[3] = now;
                if (when[0] == 0 && moved.stream().allMatch(b -> isContained(cluster, b))) when[0] = now;
                if (when[1] == 0 && alerts(storageAdmin).contains("\"DOUBLED_BUCKETS:")) when[1] = now;
                if (when[2] == 0 && alerts(routerAdmin).contains("\"DOUBLED_BUCKETS:")) when[2] = now;
                return when[0] > 0 && when[1] > 0 && when[2] > 0;
            });
            String storageAlert = alerts(storageAdmin);
            assertThat(storageAlert).contains("rs1").contains(Integer.toString(moved.get(0))).contains("also on rs2");
            assertThat(alerts(routerAdmin)).contains(moved.get(0) + " {rs1=READONLY@1, rs2=writable@2}");
            assertThat(metrics(storageAdmin)).containsPattern("cairn_storage_doubled_buckets\\{replicaset=\"rs1\",?\\} " + doubledCount + "\\.0");
            await().atMost(Duration.ofSeconds(10)).until(() -> metrics(routerAdmin).matches("(?s).*cairn_router_doubled_buckets " + doubledCount + "\\.0.*"));

            int b0 = moved.get(0);
            String k0 = keys.get(b0).get(0);
            // A write that reaches the stale copy (a router that only knows rs1) is refused; its reads are served.
            assertThat(writeDirect(config, "rs1", b0, k0, "stale-write")).isEqualTo(ErrorCode.BUCKET_READONLY);
            assertThat(readDirect(config, "rs1", b0, k0)).isEqualTo("before");
            // The router sends the bucket's writes to the legitimate copy (higher generation).
            try (Jedis jedis = TestClusters.jedis(cluster)) {
                assertThat(jedis.set(k0, "after-restore")).isEqualTo("OK");
                acknowledged.put(k0, "after-restore");
                for (var e : acknowledged.entrySet()) assertThat(jedis.get(e.getKey())).isEqualTo(e.getValue());
            }
            // No write landed on the stale copy: it still holds exactly the pre-move values.
            assertThat(exportValues(cluster, b0, "rs1")).containsOnlyKeys(keys.get(b0)).allSatisfy((k, v) -> assertThat(v).isEqualTo("before"));

            if (resolve) {
                resolveAndCheck(cluster, records, moved, keys, acknowledged, routerAdmin, storageAdmin);
            } else if (doubledCount == 1) {
                // FLUSHALL deletes what the cluster serves, but a contained copy refuses writes: its data stays for the operator.
                try (Jedis jedis = TestClusters.jedis(cluster)) {
                    assertThat(jedis.flushAll()).isEqualTo("OK");
                    assertThat(jedis.get(k0)).isNull();
                }
                assertThat(exportValues(cluster, b0, "rs1")).hasSize(3);
            }
            return new Timings(when[3], when[0], when[1], when[2]);
        }
    }

    private void resolveAndCheck(LocalCluster cluster, MoveFaultSupport.Records records, List<Integer> moved,
                                 Map<Integer, List<String>> keys, Map<String, String> acknowledged, int routerAdmin, int storageAdmin)
            throws Exception {
        Map<String, Object> doubled = AdminClient.getJson(CliTestAccess.coordinatorLeader(cluster.config()) + "/doubled");
        assertThat(doubled).containsKeys(moved.stream().map(String::valueOf).toArray(String[]::new));
        assertThat(doubled.get(Integer.toString(moved.get(0))).toString()).contains("rs1").contains("rs2").contains("keys=3");

        String file = cluster.config().source().toString();
        String listing = cli("bucket", "doubled", "--config", file);
        assertThat(listing).contains("bucket " + moved.get(0) + ":").contains("rs1").contains("READONLY").contains("rs2").contains("ACTIVE");
        for (int b : moved) {
            assertThat(cli("bucket", "resolve", Integer.toString(b), "--keep", "rs2", "--config", file))
                    .as("resolve %s", b).contains("is ACTIVE on rs2 at generation 3");
        }
        for (int b : moved) {
            BucketDigest kept = records.digest("rs2", b);
            BucketDigest loser = records.digest("rs1", b);
            assertThat(kept.record().state()).isEqualTo(BucketState.ACTIVE);
            assertThat(kept.record().generation()).isEqualTo(3);
            assertThat(loser.record().state()).isEqualTo(BucketState.GARBAGE);
            assertThat(loser.record().has(BucketRecord.FLAG_QUARANTINED)).isTrue();
            assertThat(loser.keyCount()).as("quarantined data is kept").isEqualTo(3);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> !alerts(routerAdmin).contains("DOUBLED") && !alerts(storageAdmin).contains("DOUBLED"));
        try (Jedis jedis = TestClusters.jedis(cluster)) {
            for (var e : acknowledged.entrySet()) assertThat(jedis.get(e.getKey())).isEqualTo(e.getValue());
            for (int b : moved) assertThat(jedis.set(keys.get(b).get(1), "after-resolve")).isEqualTo("OK");
        }
        assertThat(exportValues(cluster, moved.get(0), "rs1")).hasSize(3);
        Path exported = dir.resolve("export.tsv");
        cli("bucket", "export", Integer.toString(moved.get(0)), "--from", "rs1", "--out", exported.toString(), "--config", file);
        assertThat(java.nio.file.Files.readAllLines(exported)).hasSize(3);
    }

    /** Runs the `cairn` command line in process; returns what it printed; fails on a non-zero exit. */
    private static String cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            exit = new picocli.CommandLine(new CairnCommand()).execute(args);
        } finally {
            System.setOut(saved);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(exit).as("cairn %s printed %s", String.join(" ", args), printed).isZero();
        return printed;
    }

    private static boolean isContained(LocalCluster cluster, int bucket) {
        StorageProcess p = cluster.storage("s1-1");
        if (p == null) return false;
        return p.node().bucketRecords().stream().anyMatch(r -> r.id() == bucket && r.isContainedDouble());
    }

    /** Key -> value of a doubled copy, through `cairn bucket export`'s HTTP pages. */
    private static Map<String, String> exportValues(LocalCluster cluster, int bucket, String from) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String base = CliTestAccess.coordinatorLeader(cluster.config()) + "/buckets/" + bucket + "/export?from=" + from + "&max=2";
        try (PrintStream sink = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            CliTestAccess.exportAll(base, sink);
        }
        Map<String, String> values = new HashMap<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (line.isEmpty()) continue;
            String[] f = line.split("\t");
            values.put(new String(Base64.getUrlDecoder().decode(f[0]), StandardCharsets.UTF_8),
                    new String(Base64.getUrlDecoder().decode(f[1]), StandardCharsets.UTF_8));
        }
        return values;
    }

    private static List<Integer> bucketsOwnedBy(LocalCluster cluster, String rs, int n) {
        List<Integer> out = new ArrayList<>();
        for (int b = 1; b <= BUCKETS && out.size() < n; b++) if (rs.equals(cluster.router().router().ownerOf(b))) out.add(b);
        assertThat(out).hasSize(n);
        return out;
    }

    /** {@code perBucket} keys hashing into each bucket. */
    static Map<Integer, List<String>> keysOf(List<Integer> buckets, int bucketCount, int perBucket) {
        Map<Integer, List<String>> out = new LinkedHashMap<>();
        for (int b : buckets) out.put(b, new ArrayList<>());
        for (int i = 0; out.values().stream().anyMatch(l -> l.size() < perBucket); i++) {
            String k = "key-" + i;
            List<String> l = out.get(BucketHasher.bucketOf(k.getBytes(StandardCharsets.UTF_8), bucketCount));
            if (l != null && l.size() < perBucket) l.add(k);
        }
        return out;
    }
}
