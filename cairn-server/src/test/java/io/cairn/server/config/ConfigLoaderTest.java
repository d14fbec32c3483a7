package io.cairn.server.config;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.Topology;
import io.cairn.storage.StorageConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** A good file loads with every default filled in; every kind of bad file is refused with its name and the problem. */
class ConfigLoaderTest {
    @TempDir
    Path dir;

    static String minimalYaml() throws IOException {
        try (InputStream in = ConfigLoaderTest.class.getResourceAsStream("/config/minimal.yaml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private Path write(String yaml) throws IOException {
        Path file = dir.resolve("cluster.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    /** The minimal file with {@code extra} appended (more top-level keys). */
    private Path minimalPlus(String extra) throws IOException {
        return write(minimalYaml() + extra);
    }

    private static void assertRefused(Path file, String... fragments) {
        assertThatThrownBy(() -> ConfigLoader.load(file))
                .isInstanceOfSatisfying(CairnException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_CONFIG))
                .hasMessageContaining(file.toString())
                .hasMessageContainingAll(fragments);
    }

    @Test
    void minimalFileLoadsWithDefaults() throws IOException {
        Path file = minimalPlus("");
        ClusterConfig config = ConfigLoader.load(file);

        assertThat(config.source()).isEqualTo(file.toAbsolutePath());
        assertThat(config.dataDir()).isEqualTo(dir.toAbsolutePath().resolve("cairn-data"));
        Topology t = config.topology();
        assertThat(t.epoch()).isEqualTo(1);
        assertThat(t.bucketCount()).isEqualTo(Topology.DEFAULT_BUCKET_COUNT);
        assertThat(t.coordinators()).containsExactly(new NodeAddress("c1", "127.0.0.1", 7000, 7001));
        assertThat(t.replicasets()).singleElement().satisfies(rs -> {
            assertThat(rs.id()).isEqualTo("rs1");
            assertThat(rs.weight()).isEqualTo(1);
            assertThat(rs.nodes()).containsExactly(new NodeAddress("s1", "127.0.0.1", 7010, 7011, 7012));
        });
        assertThat(t.routers()).singleElement().satisfies(r -> assertThat(r.respPort()).isEqualTo(6379));

        assertThat(config.storage()).isEqualTo(new ClusterConfig.StorageSettings(
                StorageConfig.DEFAULT_MAX_VALUE_BYTES, 1000L, StorageConfig.DEFAULT_SNAPSHOT_EVERY_ENTRIES,
                ClusterConfig.StorageSettings.DEFAULT_TOMBSTONE_RETENTION_MS, 100, 168L,
                io.cairn.storage.ReplicationEngine.defaultEngine().configName()));
        assertThat(config.router()).isEqualTo(new ClusterConfig.RouterSettings(
                10_000L, 1_000L, 1024, 4 << 20, 1, false, StorageConfig.DEFAULT_MAX_VALUE_BYTES, 64 << 10, true,
                10_000, 0L, 64L << 20, 256 << 10, 64L << 20, 16L << 20, 60_000L, 25));
        assertThat(config.rebalancer()).isEqualTo(new ClusterConfig.RebalancerSettings(
                true, 1.0, 32, 64, 128, 1_000, 1 << 20, 1_000L, true, 0L, 10L, 2, 512, 1 << 20));
        assertThat(config.nodeDir("s1")).isEqualTo(config.dataDir().resolve("s1"));
    }

    @Test
    void clientLimitsAreReadIntoTheRespConfigAndBadOnesRefusedByName() throws IOException {
        ClusterConfig config = ConfigLoader.load(minimalPlus(
                "router: {maxClients: 50, idleTimeoutMs: 30000, outputHardLimitBytes: 33554432, outputSoftLimitBytes: 0, clientMemoryHeapPercent: 10}\n"));
        var resp = config.router().respConfig("127.0.0.1", 6379);
        assertThat(resp.maxClients()).isEqualTo(50);
        assertThat(resp.idleTimeout()).isEqualTo(java.time.Duration.ofSeconds(30));
        assertThat(resp.outputHardLimitBytes()).isEqualTo(32L << 20);
        assertThat(resp.outputSoftLimitBytes()).isZero();
        assertThat(resp.maxMemoryClientsBytes()).isEqualTo(Runtime.getRuntime().maxMemory() / 100 * 10);
        assertRefused(minimalPlus("router: {outputHardLimitBytes: 1000}\n"), "router.outputHardLimitBytes");
        assertRefused(minimalPlus("router: {maxClients: 0}\n"), "router.maxClients");
        assertRefused(minimalPlus("router: {clientMemoryHeapPercent: 95}\n"), "router.clientMemoryHeapPercent must be 0..90");
        assertRefused(minimalPlus("router: {queryBufferLimitBytes: 1024}\n"), "router.queryBufferLimitBytes");
    }

    @Test
    void aStorageNodesDataPortIsRead() throws IOException {
        NodeAddress s1 = ConfigLoader.load(minimalPlus("")).topology().replicasets().get(0).nodes().get(0);
        assertThat(s1.dataPort()).isEqualTo(7012);
        assertThat(s1.dataAddress()).isEqualTo("127.0.0.1:7012");
        assertRefused(write(minimalYaml().replace("dataPort: 7012}", "dataPort: 7011}")), "dataPort", "used twice");
    }

    /** A config from before dataPort existed: its cluster runs Ratis, which finds the port itself; MicroRaft needs it named. */
    @Test
    void aStorageNodeWithoutDataPortNeedsTheRatisEngine() throws IOException {
        String old = minimalYaml().replace(", dataPort: 7012}", "}");
        assertRefused(write(old + "storage:\n  engine: microraft\n"), "storage node s1 names no dataPort", "storage.engine: ratis");
        NodeAddress s1 = ConfigLoader.load(write(old + "storage:\n  engine: ratis\n")).topology().replicasets().get(0).nodes().get(0);
        assertThat(s1.dataAddress()).as("unnamed: found through Ratis").isNull();
        assertRefused(write(minimalYaml() + "storage:\n  engine: paxos\n"), "storage.engine must be ratis or microraft", "paxos");
    }

    /** docs/operations.md shows every optional section "with its defaults": it must load, and say the truth. */
    @Test
    void theOperationsGuidesExampleLoadsWithExactlyTheDefaults() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "operations.md"));
        int start = doc.indexOf("```yaml\n") + "```yaml\n".length();
        String yaml = doc.substring(start, doc.indexOf("```", start));
        ClusterConfig documented = ConfigLoader.load(write(yaml));
        ClusterConfig defaults = ConfigLoader.load(minimalPlus(""));

        assertThat(documented.topology().replicasets()).singleElement().satisfies(rs -> assertThat(rs.nodes()).hasSize(3));
        // The guide shows the built-in engine; a test run may pick another (-Dcairn.storage.engine).
        assertThat(documented.storage().engine()).isEqualTo(io.cairn.storage.ReplicationEngine.BUILT_IN_DEFAULT.configName());
        ClusterConfig.StorageSettings d = defaults.storage();
        assertThat(documented.storage()).isEqualTo(new ClusterConfig.StorageSettings(d.maxValueBytes(), d.electionTimeoutMs(), d.snapshotEveryEntries(),
                d.tombstoneRetentionMs(), d.doubledSelfCheckBucketsPerSecond(), d.quarantineRetentionHours(), documented.storage().engine()));
        assertThat(documented.router()).isEqualTo(defaults.router());
        assertThat(documented.rebalancer()).isEqualTo(defaults.rebalancer());
        assertThat(documented.archive()).isEqualTo(defaults.archive());
    }

    @Test
    void theArchiveTierDefaultsToAFolderUnderTheDataFolderWithIdleArchivingOff() throws IOException {
        ClusterConfig config = ConfigLoader.load(minimalPlus(""));
        ArchiveSettings a = config.archive();
        assertThat(a.store()).isEqualTo(ArchiveSettings.FOLDER);
        assertThat(a.afterIdleMs()).isZero();
        assertThat(a.replicasetPrefix("rs1")).isEqualTo("cairn/rs1");
        ClusterConfig built = new ClusterConfig(config.source(), config.dataDir(), config.topology(), config.storage(), config.router(), config.rebalancer());
        assertThat(built.archive()).as("the in-code defaults are the loader's").isEqualTo(a);
    }

    @Test
    void idleArchivingIsOnByDefaultOnlyWithAnObjectStore() throws IOException {
        String s3 = "archive:\n  store: s3\n  s3Bucket: b\n";
        assertThat(ConfigLoader.load(minimalPlus(s3)).archive().afterIdleMs())
                .as("an object store archives buckets idle a day").isEqualTo(ArchiveSettings.DEFAULT_S3_AFTER_IDLE_MS).isEqualTo(86_400_000L);
        assertThat(ConfigLoader.load(minimalPlus(s3 + "  afterIdleMs: 0\n")).archive().afterIdleMs()).as("off when asked").isZero();
        assertThat(ConfigLoader.load(minimalPlus(s3 + "  afterIdleMs: 60000\n")).archive().afterIdleMs()).isEqualTo(60_000L);
        assertThat(ConfigLoader.load(minimalPlus("archive:\n  store: folder\n")).archive().afterIdleMs()).as("the folder store: off").isZero();
        assertThat(ConfigLoader.load(minimalPlus("archive:\n  store: folder\n  afterIdleMs: 5000\n")).archive().afterIdleMs())
                .as("the folder store: on when asked").isEqualTo(5_000L);
        assertThat(ConfigLoader.load(minimalPlus("archive:\n  prefix: other\n")).archive().afterIdleMs()).as("no store named: the folder").isZero();
    }

    @Test
    void badArchiveSettingsAreRefusedByName() throws IOException {
        assertRefused(minimalPlus("archive:\n  store: tape\n"), "archive.store must be folder, s3 or none");
        assertRefused(minimalPlus("archive:\n  store: s3\n"), "archive.s3Bucket is required");
        assertRefused(minimalPlus("archive:\n  s3AccessKeyId: k\n"), "archive.s3AccessKeyId and archive.s3SecretAccessKey go together");
        assertRefused(minimalPlus("archive:\n  prefix: /abs\n"), "archive.prefix");
        assertRefused(minimalPlus("archive:\n  afterIdleMs: -1\n"), "archive.afterIdleMs must be >= 0");
        assertRefused(minimalPlus("archive:\n  maxQueuedRestores: 0\n"), "archive.maxQueuedRestores must be 1..100000");
        assertRefused(minimalPlus("archive:\n  bogus: 1\n"), "unknown key 'archive.bogus'");
    }

    @Test
    void theS3SecretIsNeverPrinted() throws IOException {
        ClusterConfig config = ConfigLoader.load(minimalPlus(
                "archive:\n  store: s3\n  s3Bucket: b\n  s3AccessKeyId: id\n  s3SecretAccessKey: very-secret\n"));
        assertThat(config.archive().toString()).doesNotContain("very-secret");
        assertThat(config.toString()).doesNotContain("very-secret");
    }

    @Test
    void settingsOverrideOnlyTheirOwnKey() throws IOException {
        ClusterConfig config = ConfigLoader.load(minimalPlus("""
                bucketCount: 64
                dataDir: data/here
                storage:
                  maxValueBytes: 1024
                router:
                  followerReads: true
                  maxInflightBatches: 64
                """));
        assertThat(config.topology().bucketCount()).isEqualTo(64);
        assertThat(config.dataDir()).isEqualTo(dir.toAbsolutePath().resolve("data/here"));
        assertThat(config.storage().maxValueBytes()).isEqualTo(1024);
        assertThat(config.storage().electionTimeoutMs()).isEqualTo(1000L);
        assertThat(config.router().followerReads()).isTrue();
        assertThat(config.router().maxInflightBatches()).isEqualTo(64);
        assertThat(config.router().maxBatchOps()).isEqualTo(1024);
    }

    @Test
    void emptySectionsMeanDefaults() throws IOException {
        ClusterConfig config = ConfigLoader.load(minimalPlus("storage:\nrouter:\n"));
        assertThat(config.storage().maxValueBytes()).isEqualTo(StorageConfig.DEFAULT_MAX_VALUE_BYTES);
        assertThat(config.router().requestTimeoutMs()).isEqualTo(10_000L);
    }

    @Test
    void missingFileIsRefused() {
        assertRefused(dir.resolve("absent.yaml"), "file not found");
    }

    @Test
    void directoryIsRefused() {
        assertRefused(dir, "file not found");
    }

    @Test
    void fileThatIsNotYamlIsRefused() throws IOException {
        assertRefused(write("coordinators: [ {id: c1\nreplicasets: ]]\n"), "not valid YAML");
    }

    @Test
    void fileWithoutAMappingIsRefused() throws IOException {
        assertRefused(write("just a sentence\n"), "expected a mapping at the top level");
        assertRefused(write("- a\n- b\n"), "expected a mapping at the top level");
        assertRefused(write(""), "expected a mapping at the top level");
    }

    @Test
    void unknownTopLevelKeyIsRefused() throws IOException {
        assertRefused(minimalPlus("bucketcount: 10\n"), "unknown key 'bucketcount'", "bucketCount");
    }

    @Test
    void unknownStorageKeyIsRefused() throws IOException {
        assertRefused(minimalPlus("storage:\n  maxValueByte: 10\n"), "unknown key 'storage.maxValueByte'", "maxValueBytes");
    }

    @Test
    void unknownRouterKeyIsRefused() throws IOException {
        assertRefused(minimalPlus("router:\n  timeoutMs: 10\n"), "unknown key 'router.timeoutMs'", "requestTimeoutMs");
    }

    @Test
    void unknownNodeFieldIsRefused() throws IOException {
        assertRefused(write(minimalYaml().replace("raftPort: 7010", "raftport: 7010")), "raftport");
    }

    @Test
    void nonIntegerBucketCountIsRefused() throws IOException {
        assertRefused(minimalPlus("bucketCount: abc\n"), "bucketCount must be an integer");
        assertRefused(minimalPlus("bucketCount: 12.5\n"), "bucketCount must be an integer");
        assertRefused(minimalPlus("bucketCount: '3000'\n"), "bucketCount must be an integer");
        assertRefused(minimalPlus("bucketCount: 99999999999\n"), "bucketCount must be an integer");
    }

    @Test
    void wrongTypeInASectionIsRefused() throws IOException {
        assertRefused(minimalPlus("storage:\n  maxValueBytes: abc\n"), "abc");
        assertRefused(minimalPlus("router:\n  followerReads: [1, 2]\n"), "boolean");
    }

    @Test
    void sectionThatIsNotAMappingIsRefused() throws IOException {
        assertRefused(minimalPlus("storage: 5\n"), "storage must be a mapping");
        assertRefused(write(minimalYaml().replace("coordinators:\n  - {id: c1, host: 127.0.0.1, raftPort: 7000, adminPort: 7001}",
                "coordinators: c1")), "coordinators must be a list");
    }

    @Test
    void invalidTopologyIsRefused() throws IOException {
        Path file = write(minimalYaml().replace("{id: s1,", "{id: c1,"));
        assertRefused(file, "duplicate node id 'c1'");
    }

    @Test
    void bucketCountOutOfRangeIsRefused() throws IOException {
        assertRefused(minimalPlus("bucketCount: 0\n"), "bucketCount must be between 1 and");
    }

    @Test
    void outOfRangeRouterSettingIsRefused() throws IOException {
        assertRefused(minimalPlus("router:\n  maxInflightBatches: 0\n"), "maxInflightBatches must be 1..64");
        assertRefused(minimalPlus("router:\n  requestTimeoutMs: 5\n"), "router.requestTimeoutMs must be at least 100 ms, was 5");
    }

    @Test
    void outOfRangeStorageSettingIsRefused() throws IOException {
        assertRefused(minimalPlus("storage:\n  electionTimeoutMs: 10\n"), "storage.electionTimeoutMs must be at least 100 ms, was 10");
        assertRefused(minimalPlus("storage:\n  maxValueBytes: 0\n"), "storage.maxValueBytes must be 1..536870912 bytes, was 0");
        assertRefused(minimalPlus("storage:\n  tombstoneRetentionMs: 10\n"), "storage.tombstoneRetentionMs must be at least 20000 ms, was 10");
    }

    /** The bounds are the settings table's: every value out of them is named at once, with its unit. */
    @Test
    void everyOutOfBoundsSettingIsListedAtOnce() throws IOException {
        assertRefused(minimalPlus("rebalancer:\n  chunkKeys: 0\n  entriesInFlight: 65\nrouter:\n  discoveryIntervalMs: 5\n"),
                "rebalancer.chunkKeys must be 1..100000 keys, was 0", "rebalancer.entriesInFlight must be 1..64 entries, was 65",
                "router.discoveryIntervalMs must be 10..3600000 ms, was 5");
        ClusterConfig.RebalancerSettings r = ConfigLoader.load(minimalPlus("rebalancer:\n  maxCommandsPerEntry: 1\n")).rebalancer();
        assertThat(r.moverSettings().entryLimits().maxCommandsPerEntry()).as("grouping off, as -Dcairn.move.maxCommandsPerEntry=1 did").isEqualTo(1);
    }

    @Test
    void outOfRangeRebalancerSettingIsRefused() throws IOException {
        assertRefused(minimalPlus("rebalancer:\n  maxBytesPerSecond: -1\n"), "rebalancer.maxBytesPerSecond must be at least 0 bytes per second, was -1");
        assertRefused(minimalPlus("rebalancer:\n  chunkKeys: 0\n"), "rebalancer.chunkKeys must be 1..100000");
        assertRefused(minimalPlus("rebalancer:\n  stepLatencyTargetMs: -5\n"),
                "rebalancer.stepLatencyTargetMs must be 0..60000 ms, was -5");
        assertThat(ConfigLoader.load(minimalPlus("rebalancer:\n  maxBytesPerSecond: 4000000\n")).rebalancer().maxBytesPerSecond())
                .isEqualTo(4_000_000L);
    }

    @Test
    void everyProblemIsListedAtOnce() throws IOException {
        Path file = write(minimalYaml().replace("{id: s1,", "{id: c1,") + "colour: blue\nstorage:\n  speed: 3\n");
        assertRefused(file, "unknown key 'colour'", "duplicate node id 'c1'", "unknown key 'storage.speed'");
        CairnException e = catchThrowableOfType(CairnException.class, () -> ConfigLoader.load(file));
        List<String> lines = e.getMessage().lines().toList();
        assertThat(lines).hasSize(4).first().asString().contains(file.toString());
    }

    @Test
    void outOfRangeRouterKeyAndValueLimitsAreRefusedBeforeAnyProcessStarts() throws IOException {
        assertRefused(minimalPlus("router:\n  maxKeyBytes: 0\n"), "router.maxKeyBytes must be 1..67108864 bytes, was 0");
        assertRefused(minimalPlus("router:\n  maxValueBytes: -1\n"), "router.maxValueBytes must be 1..536870912 bytes, was -1");
    }

    @Test
    void aWrongTypeInASectionNamesTheKey() throws IOException {
        assertRefused(minimalPlus("storage:\n  maxValueBytes: abc\n"), "storage.maxValueBytes");
    }
}
