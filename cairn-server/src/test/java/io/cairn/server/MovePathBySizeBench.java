package io.cairn.server;

import io.cairn.archive.S3ObjectStore;
import io.cairn.archive.S3Settings;
import io.cairn.core.BucketHasher;
import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.ArchivePointer;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.StorageProcess;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.cairn.server.ArchiveMoveLiveTest.owner;
import static io.cairn.server.ArchiveScenarios.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 23 item 2's choice of path for a LIVE bucket, measured by bucket size: streaming (copy
 * ahead, chunks through the mover) against the archive path (archive a snapshot on the source, move
 * the object by server-side copy, restore it on the destination), on the folder store with the
 * adaptive copy rate on and off (the archive path has no such rate) and on s3proxy, in one run. At
 * the same rate control streaming is as fast or faster, so live buckets always stream (docs/archive.md,
 * "What is not built"). Run with {@code -Dcairn.archive.bench=true -Dtest=MovePathBySizeBench};
 * figures in docs/benchmarks.md.
 */
@EnabledIfSystemProperty(named = "cairn.archive.bench", matches = "true")
class MovePathBySizeBench {
    private static final int BUCKETS = 64;
    private static final int[] SIZES = {1_000, 10_000, 50_000, 200_000};
    private static final String VALUE = "v".repeat(100);

    @TempDir
    Path dir;

    @Test
    void streamingAndArchivePathsByBucketSizeOnBothStores() throws Exception {
        List<String> rows = new ArrayList<>();
        rows.addAll(run("folder", Map.of(), Map.of()));
        // the same with the adaptive copy rate off: streaming as fast as the chunks go (the store path has no such rate)
        rows.addAll(run("folder, rate off", Map.of(), Map.of("stepLatencyTargetMs", 0)));
        // and with chunks of up to 8,000 keys (chunkBytes, 1 MiB, still bounds them): fewer, bigger log entries
        rows.addAll(run("folder, rate off, 8k-key chunks", Map.of(), Map.of("stepLatencyTargetMs", 0, "chunkKeys", 8_000)));
        S3Proxy proxy = S3Proxy.builder().blobStore(new TransientNio2BlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "cairn-bench", "cairn-bench-secret").build();
        proxy.start();
        try {
            URI endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
            try (S3ObjectStore store = new S3ObjectStore(S3Settings.at(endpoint, "us-east-1", "cairn-archive", "cairn-bench", "cairn-bench-secret"))) {
                store.createBucketIfMissing();
            }
            rows.addAll(run("s3proxy", Map.of("store", "s3", "s3Endpoint", endpoint.toString(), "s3Bucket", "cairn-archive",
                    "s3AccessKeyId", "cairn-bench", "s3SecretAccessKey", "cairn-bench-secret"), Map.of()));
        } finally {
            proxy.stop();
        }
        System.out.println("| store | keys | MB | streaming move ms | archive ms | archived move ms | restore ms | archive path total ms | archive path / streaming |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
    }

    private List<String> run(String storeName, Map<String, Object> archive, Map<String, Object> rebalancer) throws Exception {
        Map<String, Object> settings = new LinkedHashMap<>(Map.of("auto", false, "roundIntervalMs", 20));
        settings.putAll(rebalancer);
        Map<String, Object> extra = new LinkedHashMap<>(Map.of("rebalancer", settings));
        if (!archive.isEmpty()) extra.put("archive", archive);
        ClusterConfig config = TestClusters.config(dir.resolve(storeName.replaceAll("[^a-z0-9]", "-")), 2, 3, BUCKETS, extra);
        List<String> rows = new ArrayList<>();
        try (LocalCluster cluster = new LocalCluster(config).start(); Jedis jedis = TestClusters.jedis(cluster)) {
            assertThat(cluster.awaitReady(WAIT)).isTrue();
            for (int keys : SIZES) {
                String tag = "{size" + keys + "}";
                int bucket = BucketHasher.bucketOf(tag.getBytes(StandardCharsets.UTF_8), BUCKETS);
                var load = jedis.pipelined();
                for (int i = 0; i < keys; i++) load.set(tag + "k" + i, VALUE);
                load.sync();
                String a = owner(cluster, bucket), b = a.equals("rs1") ? "rs2" : "rs1";
                long streamMs = timeMove(cluster, bucket, a, b, false);

                long t0 = System.nanoTime();
                ArchivePointer p = leaderOf(cluster, b).archives().archive(bucket);
                long archiveMs = (System.nanoTime() - t0) / 1_000_000;
                long movedMs = timeMove(cluster, bucket, b, a, true);
                long t1 = System.nanoTime();
                assertThat(leaderOf(cluster, a).archives().restore(bucket).get()).isTrue();
                long restoreMs = (System.nanoTime() - t1) / 1_000_000;
                long total = archiveMs + movedMs + restoreMs;
                assertThat(jedis.get(tag + "k" + (keys - 1))).isEqualTo(VALUE);
                rows.add(String.format("| %s | %,d | %.2f | %,d | %,d | %,d | %,d | %,d | %.2f |", storeName, keys, p.byteCount() / 1e6, streamMs,
                        archiveMs, movedMs, restoreMs, total, (double) total / streamMs));
                System.out.println(rows.get(rows.size() - 1));
            }
        }
        return rows;
    }

    /** From the request to every member of {@code from} SENT with its data dropped and every member of {@code to} ACTIVE. */
    private static long timeMove(LocalCluster cluster, int bucket, String from, String to, boolean archived) {
        long startNs = System.nanoTime();
        assertThat(cluster.coordinator().mover().requestMove(bucket, to)).isTrue();
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(5)).until(() -> {
            for (StorageProcess m : members(cluster, to)) {
                BucketRecord r = record(m, bucket);
                if (r == null || r.state() != BucketState.ACTIVE || r.isArchived() != archived) return false;
            }
            for (StorageProcess m : members(cluster, from)) {
                BucketRecord r = record(m, bucket);
                if (r == null || r.state() != BucketState.SENT || !r.has(BucketRecord.FLAG_DATA_DROPPED)) return false;
            }
            return true;
        });
        return (System.nanoTime() - startNs) / 1_000_000;
    }
}
