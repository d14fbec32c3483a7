package io.cairn.server;

import io.cairn.archive.ObjectStore;
import io.cairn.server.cli.CliTestAccess;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.cairn.server.ArchiveScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Backup and restore throughput (issue 23's figures): a cluster of 2 replicasets x 3 members with
 * the default 3000 buckets loaded with {@code cairn.backup.bench.keys} 100-byte values, backed up to
 * the folder store, restored into a fresh cluster of the same shape (adopt), then every bucket
 * restored eagerly through the log. Run with {@code -Dcairn.archive.bench=true -Dtest=BackupBench};
 * figures in docs/benchmarks.md.
 */
@EnabledIfSystemProperty(named = "cairn.archive.bench", matches = "true")
class BackupBench {
    private static final int BUCKETS = 3000;
    private static final int KEYS = Integer.getInteger("cairn.backup.bench.keys", 100_000);
    private static final int MAX_PENDING_RESTORES = 128;

    @TempDir
    Path dir;

    private LocalCluster start(String name, Map<String, Object> extra) throws Exception {
        ClusterConfig config = TestClusters.config(Files.createDirectories(dir.resolve(name)), 2, 3, BUCKETS, extra);
        LocalCluster cluster = new LocalCluster(config).start();
        assertThat(cluster.awaitReady(WAIT)).isTrue();
        return cluster;
    }

    @Test
    void backupAndRestoreOfALoadedCluster() throws Exception {
        String value = "v".repeat(100);
        try (LocalCluster a = start("a", Map.of("rebalancer", Map.of("auto", false))); Jedis ja = TestClusters.jedis(a)) {
            var load = ja.pipelined();
            for (int i = 0; i < KEYS; i++) {
                load.set("bench-" + i, value);
                if (i % 10_000 == 9_999) load.sync();
            }
            load.sync();
            CliTestAccess.BackupFigures m;
            long backupNs;
            try (ObjectStore store = a.config().archive().open(a.config().dataDir())) {
                long start = System.nanoTime();
                m = CliTestAccess.createBackup(a.config(), store, "bench", 1);
                backupNs = System.nanoTime() - start;
            }
            assertThat(m.keys()).isEqualTo(KEYS);
            report("backup create", m, backupNs);

            Map<String, Object> sameStore = Map.of("folder", dir.resolve("a").resolve("archive").toString(), "prefix", "cairn-b");
            try (LocalCluster b = start("b", Map.of("rebalancer", Map.of("auto", false), "archive", sameStore)); Jedis jb = TestClusters.jedis(b)) {
                long start = System.nanoTime();
                try (ObjectStore store = b.config().archive().open(b.config().dataDir())) {
                    CliTestAccess.restoreBackup(b.config(), store, "bench");
                }
                report("backup restore (adopt, every bucket archived)", m, System.nanoTime() - start);
                start = System.nanoTime();
                restoreEverything(b, "rs1");
                restoreEverything(b, "rs2");
                report("eager restore of every bucket through the log", m, System.nanoTime() - start);
                assertThat(jb.get("bench-7")).isEqualTo(value);
                assertThat(jb.get("bench-" + (KEYS - 1))).isEqualTo(value);
            }
        }
    }

    /** Every archived bucket of {@code rs} restored on its leader, at most {@link #MAX_PENDING_RESTORES} queued at once. */
    private static void restoreEverything(LocalCluster cluster, String rs) throws Exception {
        StorageProcess leader = leaderOf(cluster, rs);
        Deque<CompletableFuture<Boolean>> pending = new ArrayDeque<>();
        for (var r : leader.node().bucketRecords()) {
            if (!r.isArchived()) continue;
            if (pending.size() >= MAX_PENDING_RESTORES) assertThat(pending.poll().get(60, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Boolean> f = leader.archives().restore(r.id());
            assertThat(f).as("restore queue admission").isNotNull();
            pending.add(f);
        }
        while (!pending.isEmpty()) assertThat(pending.poll().get(60, TimeUnit.SECONDS)).isTrue();
    }

    private static void report(String what, CliTestAccess.BackupFigures m, long ns) {
        double s = ns / 1e9;
        System.out.printf("BENCH %s: %d buckets, %d keys, %.1f MB of objects in %.1f s: %.0f keys/s, %.2f MB/s%n", what, m.bucketCount(), m.keys(),
                m.sizeBytes() / 1e6, s, m.keys() / s, m.sizeBytes() / 1e6 / s);
    }
}
