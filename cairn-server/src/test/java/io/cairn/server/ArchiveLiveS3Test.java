package io.cairn.server;

import io.cairn.archive.S3ObjectStore;
import io.cairn.archive.S3Settings;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.process.LocalCluster;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The folder-store scenario of {@link ArchiveLiveTest} against a real S3 server: s3proxy (in-memory
 * NIO2 store) on 127.0.0.1, started here as cairn-archive's tests start it.
 */
class ArchiveLiveS3Test {
    private static final String ACCESS_KEY = "cairn-test";
    private static final String SECRET_KEY = "cairn-test-secret";
    private static final String STORE_BUCKET = "cairn-archive";

    @TempDir
    Path dir;
    private S3Proxy proxy;
    private URI endpoint;

    @BeforeEach
    void startS3() throws Exception {
        proxy = S3Proxy.builder().blobStore(new TransientNio2BlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY).build();
        proxy.start();
        assertThat(proxy.getState()).isEqualTo("STARTED");
        endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
        try (S3ObjectStore store = new S3ObjectStore(S3Settings.at(endpoint, "us-east-1", STORE_BUCKET, ACCESS_KEY, SECRET_KEY))) {
            store.createBucketIfMissing();
        }
    }

    @AfterEach
    void stopS3() throws Exception {
        if (proxy != null) proxy.stop();
    }

    @Test
    void aBucketIsArchivedToS3ReadBackWrittenAndArchivedAgainWithoutLosingAKey() throws Exception {
        Map<String, Object> archive = Map.of("store", "s3", "s3Endpoint", endpoint.toString(), "s3Bucket", STORE_BUCKET,
                "s3AccessKeyId", ACCESS_KEY, "s3SecretAccessKey", SECRET_KEY, "callsPerSecond", 1_000, "bytesPerSecond", 64L << 20);
        ClusterConfig config = TestClusters.config(dir, 1, 3, 64, Map.of("archive", archive));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(ArchiveScenarios.WAIT)).isTrue();
            ArchiveScenarios.archiveReadWriteReArchive(cluster);
            var store = ArchiveScenarios.leaderOf(cluster, "rs1").archiveStore();
            assertThat(store.bytesWritten()).as("archives went to S3").isPositive();
            assertThat(store.throttle().stats().calls()).as("through the process's throttle").isPositive();
        }
    }

    /** An archived bucket moved by S3's CopyObject between the replicasets' prefixes (ArchiveMoveLiveTest on s3proxy). */
    @Test
    void anArchivedBucketMovesByCopyObjectWithNoBucketBytesThroughAnyNode() throws Exception {
        Map<String, Object> archive = Map.of("store", "s3", "s3Endpoint", endpoint.toString(), "s3Bucket", STORE_BUCKET,
                "s3AccessKeyId", ACCESS_KEY, "s3SecretAccessKey", SECRET_KEY);
        ClusterConfig config = TestClusters.config(dir, 2, 1, 64, Map.of("archive", archive, "rebalancer", Map.of("auto", false)));
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            assertThat(cluster.awaitReady(ArchiveScenarios.WAIT)).isTrue();
            ArchiveMoveLiveTest.moveByServerSideCopy(cluster);
        }
    }

    /** {@code cairn backup create} on one cluster, {@code restore} into a fresh one, both on s3proxy (issue 23 item 6). */
    @Test
    void aBackupOnS3IsRestoredIntoAFreshClusterWithEveryKey() throws Exception {
        Map<String, Object> archiveA = Map.of("store", "s3", "s3Endpoint", endpoint.toString(), "s3Bucket", STORE_BUCKET,
                "s3AccessKeyId", ACCESS_KEY, "s3SecretAccessKey", SECRET_KEY);
        Map<String, Object> archiveB = new java.util.HashMap<>(archiveA);
        archiveB.put("prefix", "cairn-b");
        ClusterConfig a = TestClusters.config(java.nio.file.Files.createDirectories(dir.resolve("a")), 2, 1, 64, Map.of("archive", archiveA));
        ClusterConfig b = TestClusters.config(java.nio.file.Files.createDirectories(dir.resolve("b")), 2, 1, 64, Map.of("archive", archiveB));
        try (LocalCluster ca = new LocalCluster(a).start(); redis.clients.jedis.Jedis ja = TestClusters.jedis(ca)) {
            assertThat(ca.awaitReady(ArchiveScenarios.WAIT)).isTrue();
            for (int i = 0; i < 300; i++) ja.setex("s3-" + i, 3_600, "v" + i);
            Cli created = Cli.run("backup", "create", "--config", a.source().toString());
            assertThat(created.exitCode()).as(created.err()).isZero();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("backup (\\S+): 64 buckets, 300 keys").matcher(created.out());
            assertThat(m.find()).as(created.out()).isTrue();
            try (LocalCluster cb = new LocalCluster(b).start(); redis.clients.jedis.Jedis jb = TestClusters.jedis(cb)) {
                assertThat(cb.awaitReady(ArchiveScenarios.WAIT)).isTrue();
                Cli restored = Cli.run("backup", "restore", m.group(1), "--config", b.source().toString());
                assertThat(restored.exitCode()).as(restored.err()).isZero();
                for (int i = 0; i < 300; i++) assertThat(jb.get("s3-" + i)).isEqualTo("v" + i);
                assertThat(jb.ttl("s3-0")).isBetween(1L, 3_600L);
            }
        }
    }
}
