package io.cairn.server;

import io.cairn.core.BucketHasher;
import io.cairn.core.BucketRecord;
import io.cairn.core.move.ArchivePointer;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import io.cairn.storage.BucketArchives;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The archive tier's scenarios on a running local cluster, shared by the folder-store and S3 tests. */
final class ArchiveScenarios {
    static final Duration WAIT = Duration.ofSeconds(60);

    private ArchiveScenarios() {}

    /** A bucket loaded with string keys (some with a time to live) and one hash, and what a client reads back. */
    record Loaded(String tag, int bucket, Map<String, String> strings, Map<String, String> hash) {
        String hashKey() {
            return "{" + tag + "}h";
        }
    }

    static Loaded load(Jedis jedis, LocalCluster cluster, String tag, int keys) {
        Map<String, String> strings = new LinkedHashMap<>();
        for (int i = 0; i < keys; i++) {
            String k = "{" + tag + "}k" + i, v = "value-" + i + "-" + "x".repeat(i % 50);
            if (i % 10 == 0) jedis.setex(k, 3_600, v);
            else jedis.set(k, v);
            strings.put(k, v);
        }
        Map<String, String> hash = new LinkedHashMap<>();
        for (int f = 0; f < 20; f++) hash.put("field" + f, "hv" + f);
        Loaded loaded = new Loaded(tag, BucketHasher.bucketOf(("{" + tag + "}").getBytes(StandardCharsets.UTF_8),
                cluster.config().topology().bucketCount()), strings, hash);
        jedis.hset(loaded.hashKey(), hash);
        return loaded;
    }

    /** Everything a client reads back equals what was written (each read restores the bucket if it is archived). */
    static void assertServed(Jedis jedis, Loaded l) {
        for (Map.Entry<String, String> e : l.strings().entrySet()) assertThat(jedis.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
        assertThat(jedis.hgetAll(l.hashKey())).isEqualTo(l.hash());
        assertThat(jedis.hget(l.hashKey(), "field7")).isEqualTo("hv7");
        assertThat(jedis.ttl(l.strings().keySet().iterator().next())).as("the time to live survives").isBetween(1L, 3_600L);
    }

    static StorageProcess leaderOf(LocalCluster cluster, String replicaset) {
        await().atMost(WAIT).until(() -> leaderOrNull(cluster, replicaset) != null);
        return leaderOrNull(cluster, replicaset);
    }

    private static StorageProcess leaderOrNull(LocalCluster cluster, String replicaset) {
        for (String id : cluster.nodes().keySet()) {
            StorageProcess p = cluster.storage(id);
            if (p != null && p.node().replicaset().id().equals(replicaset) && p.node().isLeader()) return p;
        }
        return null;
    }

    static List<StorageProcess> members(LocalCluster cluster, String replicaset) {
        return cluster.nodes().keySet().stream().map(cluster::storage)
                .filter(p -> p != null && p.node().replicaset().id().equals(replicaset)).toList();
    }

    static BucketRecord record(StorageProcess p, int bucket) {
        return p.node().bucketRecords().stream().filter(r -> r.id() == bucket).findFirst().orElse(null);
    }

    /**
     * Archives the loaded bucket on {@code replicaset}'s leader and checks, on every member, that the
     * record says ARCHIVED (still ACTIVE, same generation) and the bucket's keys are gone from RocksDB,
     * and that the object is in the store.
     */
    static ArchivePointer archiveAndCheck(LocalCluster cluster, String replicaset, Loaded l) {
        return archiveAndCheck(cluster, replicaset, l, 0);
    }

    /** As above, with {@code keysLeft} keys of other buckets still on the replicaset. */
    static ArchivePointer archiveAndCheck(LocalCluster cluster, String replicaset, Loaded l, long keysLeft) {
        StorageProcess leader = leaderOf(cluster, replicaset);
        long generation = record(leader, l.bucket()).generation();
        ArchivePointer p = leader.archives().archive(l.bucket());
        assertThat(p.keyCount()).isEqualTo(l.strings().size() + 1);
        assertThat(p.generation()).isEqualTo(generation);
        for (StorageProcess member : members(cluster, replicaset)) {
            await().atMost(WAIT).untilAsserted(() -> {
                BucketRecord r = record(member, l.bucket());
                assertThat(r).as("record on " + member.node().id()).isNotNull();
                assertThat(r.isArchived()).as(member.node().id()).isTrue();
                assertThat(r.state()).isEqualTo(io.cairn.core.BucketState.ACTIVE);
                assertThat(r.generation()).isEqualTo(generation);
                assertThat(member.node().localStats().keyCount()).as("keys left on " + member.node().id()).isEqualTo(keysLeft);
            });
        }
        assertThat(leader.archiveStore().head(p.objectKey())).as("the object is in the store").isPresent();
        return p;
    }

    /** The whole life of one bucket: archived, read back (lazy restore), archived, written (restore first), archived again. */
    static void archiveReadWriteReArchive(LocalCluster cluster) {
        try (Jedis jedis = TestClusters.jedis(cluster)) {
            Loaded l = load(jedis, cluster, "cold", 300);
            ArchivePointer first = archiveAndCheck(cluster, "rs1", l);
            StorageProcess leader = leaderOf(cluster, "rs1");
            long restoredBefore = leader.archives().counts().restored();

            String firstKey = l.strings().keySet().iterator().next();
            long startNs = System.nanoTime();
            assertThat(jedis.get(firstKey)).isEqualTo(l.strings().get(firstKey));
            System.out.printf("first read of an archived bucket (%d keys, %d bytes): answered in %d ms (restore, router retries included)%n",
                    first.keyCount(), first.sizeBytes(), (System.nanoTime() - startNs) / 1_000_000);
            assertServed(jedis, l);
            assertThat(record(leader, l.bucket()).isArchived()).isFalse();
            assertThat(leader.archives().counts().restored()).isEqualTo(restoredBefore + 1);
            assertThat(leader.archiveStore().head(first.objectKey())).as("a restore copies: the object stays").isPresent();
            for (StorageProcess member : members(cluster, "rs1")) {
                await().atMost(WAIT).until(() -> member.node().localStats().keyCount() == l.strings().size() + 1);
            }

            // The same contents archive to the same content-addressed key: nothing to replace.
            assertThat(archiveAndCheck(cluster, "rs1", l).objectKey()).isEqualTo(first.objectKey());

            // A write to an archived bucket restores it first, then lands next to every restored key.
            String written = "{cold}k1"; // not k0: its time to live is checked, and SET would clear it
            assertThat(jedis.set(written, "after-archive")).isEqualTo("OK");
            assertThat(jedis.incr("{cold}counter")).isEqualTo(1);
            l.strings().put(written, "after-archive");
            assertThat(record(leader, l.bucket()).isArchived()).isFalse();
            for (Map.Entry<String, String> e : l.strings().entrySet()) assertThat(jedis.get(e.getKey())).isEqualTo(e.getValue());

            // New contents: a new object; the replaced one is deleted only after the new one is recorded.
            StorageProcess now = leaderOf(cluster, "rs1");
            ArchivePointer second = now.archives().archive(l.bucket());
            assertThat(second.objectKey()).isNotEqualTo(first.objectKey());
            assertThat(now.archiveStore().head(second.objectKey())).isPresent();
            assertThat(now.archiveStore().head(first.objectKey())).as("the replaced object is gone").isEmpty();
            assertThat(jedis.get("{cold}counter")).isEqualTo("1");
            assertServed(jedis, l);
        }
    }

    static BucketArchives.Counts counts(StorageProcess p) {
        return p.archives().counts();
    }
}
