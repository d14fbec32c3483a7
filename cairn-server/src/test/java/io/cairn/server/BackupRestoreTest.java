package io.cairn.server;

import io.cairn.archive.ObjectStore;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.server.ArchiveScenarios.Loaded;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.cairn.server.ArchiveScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code cairn backup create|list|restore} on real local clusters sharing one folder store (issue 23
 * item 6): a loaded cluster (live and archived buckets, strings with and without a time to live, a
 * hash) backed up while it stays writable, restored into a fresh cluster where every key, value and
 * TTL reads back as it was at the backup; a restore into a cluster that holds data is refused with
 * nothing changed (the single-owner invariant: see docs/archive.md, "Backup and restore").
 */
class BackupRestoreTest {
    private static final int BUCKETS = 64;

    @TempDir
    Path dir;

    private LocalCluster start(String name, int replicas, Map<String, Object> archive) throws Exception {
        Path d = Files.createDirectories(dir.resolve(name));
        Map<String, Object> extra = new LinkedHashMap<>(Map.of("rebalancer", Map.of("auto", false)));
        if (!archive.isEmpty()) extra.put("archive", archive);
        ClusterConfig config = TestClusters.config(d, 2, replicas, BUCKETS, extra);
        LocalCluster cluster = new LocalCluster(config).start();
        assertThat(cluster.awaitReady(WAIT)).isTrue();
        return cluster;
    }

    /** Keys spread over every bucket, one in three with a TTL; the seed is printed so a failure replays. */
    private static Map<String, String> loadSpread(Jedis jedis, long seed, int keys) {
        System.out.println("BackupRestoreTest seed " + seed);
        Random random = new Random(seed);
        Map<String, String> written = new LinkedHashMap<>();
        for (int i = 0; i < keys; i++) {
            String k = "spread-" + i, v = "v" + random.nextInt(1_000_000) + "-" + "y".repeat(random.nextInt(40));
            if (i % 3 == 0) jedis.setex(k, 7_200, v);
            else jedis.set(k, v);
            written.put(k, v);
        }
        return written;
    }

    @Test
    void aBackupRestoredIntoAFreshClusterReadsBackEveryKeyAndTtlAsAtTheBackup() throws Exception {
        long seed = System.nanoTime();
        try (LocalCluster a = start("a", 1, Map.of()); Jedis ja = TestClusters.jedis(a)) {
            Map<String, String> spread = loadSpread(ja, seed, 3_000);
            Loaded cold = load(ja, a, "cold", 500);
            String coldOwner = a.router().router().ownerOf(cold.bucket());
            // its bucket holds spread keys too: all of them go into the object, backed up by server-side copy
            assertThat(leaderOf(a, coldOwner).archives().archive(cold.bucket()).keyCount()).isGreaterThan(cold.strings().size());
            String fileA = a.config().source().toString();

            assertThat(io.cairn.core.BucketHasher.bucketOf("{hot}".getBytes(java.nio.charset.StandardCharsets.UTF_8), BUCKETS)).isNotEqualTo(cold.bucket());
            Map<String, String> during = new java.util.concurrent.ConcurrentHashMap<>();
            java.util.concurrent.atomic.AtomicReference<Throwable> writeFailure = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicBoolean backingUp = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread writer = new Thread(() -> { // no write lock: writes keep being acknowledged while every bucket is backed up
                try (Jedis jw = TestClusters.jedis(a)) {
                    for (int i = 0; backingUp.get(); i++) {
                        jw.set("{hot}during-" + i, "d" + i); // one live bucket: a write to the archived one would restore it
                        during.put("{hot}during-" + i, "d" + i);
                    }
                } catch (Throwable t) {
                    writeFailure.set(t);
                }
            });
            writer.start();
            Cli created = Cli.run("backup", "create", "--config", fileA);
            backingUp.set(false);
            writer.join(WAIT.toMillis());
            assertThat(writeFailure.get()).as("a write during the backup").isNull();
            assertThat(during).as("writes acknowledged during the backup").isNotEmpty();
            assertThat(created.exitCode()).as(created.err()).isZero();
            Matcher m = Pattern.compile("backup (\\S+): " + BUCKETS + " buckets, (\\d+) keys").matcher(created.out());
            assertThat(m.find()).as(created.out()).isTrue();
            String id = m.group(1);
            long backedUp = Long.parseLong(m.group(2));
            assertThat(backedUp).isBetween((long) spread.size() + cold.strings().size() + 1, (long) spread.size() + cold.strings().size() + 1 + during.size());
            assertThat(record(leaderOf(a, coldOwner), cold.bucket()).isArchived()).as("backing up does not restore an archived bucket").isTrue();
            assertThat(Cli.run("backup", "list", "--config", fileA).out()).contains(id);

            // written after the backup: not in it
            ja.set("spread-1", "after-the-backup");
            ja.set("only-after", "x");

            Map<String, Object> sameStore = Map.of("folder", dir.resolve("a").resolve("archive").toString(), "prefix", "cairn-b");
            try (LocalCluster b = start("b", 3, sameStore); Jedis jb = TestClusters.jedis(b)) {
                String fileB = b.config().source().toString();
                Cli restored = Cli.run("backup", "restore", id, "--config", fileB);
                assertThat(restored.exitCode()).as(restored.err()).isZero();
                for (String rs : List.of("rs1", "rs2")) {
                    for (StorageProcess member : members(b, rs)) { // every bucket held keys: each one is adopted, on every replica
                        await().atMost(WAIT).untilAsserted(() -> assertThat(member.node().bucketRecords().stream()
                                .filter(r -> r.state() == BucketState.ACTIVE).allMatch(BucketRecord::isArchived)).as(member.node().id()).isTrue());
                    }
                }
                assertThat(ownedBy(b, "rs1") + ownedBy(b, "rs2")).isEqualTo(BUCKETS);
                for (Map.Entry<String, String> e : spread.entrySet()) assertThat(jb.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
                assertThat(jb.ttl("spread-0")).as("a TTL survives").isBetween(1L, 7_200L);
                assertThat(jb.ttl("spread-3")).isBetween(1L, 7_200L);
                assertThat(jb.ttl("spread-1")).as("no TTL stays none").isEqualTo(-1L);
                assertThat(jb.exists("only-after")).isFalse();
                for (Map.Entry<String, String> e : during.entrySet()) { // in the backup or not, by its bucket's moment; never another value
                    String got = jb.get(e.getKey());
                    if (got != null) assertThat(got).as(e.getKey()).isEqualTo(e.getValue());
                }
                assertServed(jb, cold);

                Cli again = Cli.run("backup", "restore", id, "--config", fileB);
                assertThat(again.exitCode()).as("a second restore into a cluster that now holds data").isNotZero();
                assertThat(again.err()).contains("not empty");
                assertThat(jb.get("spread-2")).isEqualTo(spread.get("spread-2"));
            }
        }
    }

    @Test
    void anOldBackupRestoredIntoTheLiveClusterIsRefusedAndChangesNothing() throws Exception {
        try (LocalCluster a = start("a", 1, Map.of()); Jedis ja = TestClusters.jedis(a)) {
            ja.set("k", "old");
            String file = a.config().source().toString();
            Cli created = Cli.run("backup", "create", "--config", file);
            assertThat(created.exitCode()).as(created.err()).isZero();
            Matcher m = Pattern.compile("backup (\\S+):").matcher(created.out());
            assertThat(m.find()).isTrue();
            ja.set("k", "new");

            Cli restored = Cli.run("backup", "restore", m.group(1), "--config", file);
            assertThat(restored.exitCode()).isNotZero();
            assertThat(restored.err()).contains("not empty").contains("nothing was changed");
            assertThat(ja.get("k")).isEqualTo("new");
            for (String rs : List.of("rs1", "rs2")) {
                assertThat(leaderOf(a, rs).node().bucketRecords().stream().noneMatch(BucketRecord::isArchived)).as(rs).isTrue();
            }
            assertThat(Cli.run("backup", "restore", "no-such-id", "--config", file).err()).contains("no backup no-such-id");

            // delete: manifest and objects gone, the cluster's data untouched, a second delete finds nothing
            Cli deleted = Cli.run("backup", "delete", m.group(1), "--config", file);
            assertThat(deleted.exitCode()).as(deleted.err()).isZero();
            assertThat(deleted.out()).contains("backup " + m.group(1) + " deleted: " + BUCKETS + " objects");
            assertThat(Cli.run("backup", "list", "--config", file).out()).doesNotContain(m.group(1));
            try (ObjectStore store = a.config().archive().open(a.config().dataDir())) {
                assertThat(store.list("cairn-backups/", null, 10).objects()).as("nothing left under the default backup prefix").isEmpty();
            }
            assertThat(Cli.run("backup", "restore", m.group(1), "--config", file).err()).contains("no backup " + m.group(1));
            Cli again = Cli.run("backup", "delete", m.group(1), "--config", file);
            assertThat(again.exitCode()).isNotZero();
            assertThat(again.err()).contains("no backup " + m.group(1));
            assertThat(Cli.run("backup", "delete", "../cairn", "--config", file).err()).contains("not a backup id");
            assertThat(ja.get("k")).isEqualTo("new");
        }
    }

    private static long ownedBy(LocalCluster cluster, String rs) {
        return leaderOf(cluster, rs).node().bucketRecords().stream().filter(r -> r.state().servesWrites()).count();
    }
}
