package io.cairn.server.cli;

import io.cairn.core.CairnException;
import io.cairn.server.admin.AdminHttps;
import io.cairn.server.admin.AdminServer;
import io.cairn.server.bench.DiscoveryBench;
import io.cairn.server.bench.MoveBench;
import io.cairn.server.bench.ReplaceBench;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.CoordinatorProcess;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.RouterProcess;
import io.cairn.server.process.StorageProcess;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** The {@code cairn} command and its subcommands: one artifact for every role ({@link io.cairn.server.Main} runs it). */
@Command(name = "cairn", mixinStandardHelpOptions = true, version = "cairn 0.1.0",
        description = "Cairn: a sharded, replicated key-value store that speaks the Redis protocol.",
        subcommands = {CairnCommand.Up.class, CairnCommand.Storage.class, CairnCommand.RouterCmd.class, CairnCommand.CoordinatorCmd.class,
                CairnCommand.Status.class, NodeCommand.class, TopologyCommand.class, BucketCommand.class, ConfigCommand.class, BackupCommand.class, CairnCommand.Bench.class})
public final class CairnCommand implements Runnable {
    /** The command line as a user runs it: a {@link CairnException} is one line on stderr and exit code 2. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new CairnCommand());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof CairnException ce) {
                cmd.getErr().println("cairn: " + ce.getMessage());
                return 2;
            }
            throw e;
        });
        return cli;
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /** Blocks until Ctrl-C (or SIGTERM), then closes {@code resource}. */
    static void runUntilStopped(AutoCloseable resource) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                resource.close();
            } catch (Exception e) {
                System.err.println("cairn: error while stopping: " + e.getMessage());
            }
            stopped.countDown();
        }, "cairn-shutdown"));
        stopped.await();
    }

    /** The cluster CA (internal TLS on). */
    private static Path caFile(ClusterConfig config) {
        return config.source().getParent().resolve(config.security().internalTls().caFile());
    }

    @Command(name = "up", mixinStandardHelpOptions = true, description = "Start a local cluster (coordinator, replicasets, router) with data under one folder.")
    static final class Up implements Callable<Integer> {
        @Option(names = "--dir", defaultValue = "cairn-data", description = "data folder (default: ${DEFAULT-VALUE})")
        Path dir;
        @Option(names = "--replicasets", defaultValue = "2", description = "replicasets of a new cluster (default: ${DEFAULT-VALUE})")
        int replicasets;
        @Option(names = "--replicas", defaultValue = "3", description = "nodes per replicaset: 1, 3 or 5 (default: ${DEFAULT-VALUE})")
        int replicas;
        @Option(names = "--buckets", defaultValue = "3000", description = "bucket count of a new cluster (default: ${DEFAULT-VALUE})")
        int buckets;
        @Option(names = "--port", defaultValue = "7379", description = "RESP port of the router (default: ${DEFAULT-VALUE})")
        int port;
        @Option(names = "--base-port", defaultValue = "7400", description = "first of the internal ports (default: ${DEFAULT-VALUE})")
        int basePort;
        @Option(names = "--admin-token", description = "a new cluster's admin ports need a token, generated into <dir>/"
                + LocalCluster.ADMIN_TOKEN_FILE + " (the cairn command reads it from the config)")
        boolean adminToken;
        @Option(names = "--tls", description = "a new cluster speaks TLS on every port, with a local CA and certificate generated into <dir>/"
                + LocalCluster.TLS_DIR + " (no openssl needed)")
        boolean tls;

        @Override
        public Integer call() throws Exception {
            FolderLock lock = FolderLock.acquire(dir);
            ClusterConfig config = LocalCluster.prepare(dir, new LocalCluster.Shape(replicasets, replicas, buckets, port, basePort), adminToken, tls);
            LocalCluster cluster = new LocalCluster(config);
            try {
                cluster.start();
            } catch (Exception e) {
                cluster.close();
                throw e;
            }
            if (!cluster.awaitReady(Duration.ofSeconds(120))) {
                System.err.println("cairn: the cluster did not become ready within 120 s; see the log above");
            }
            var r = config.topology().routers().get(0);
            boolean internalTls = config.security().internalTls().enabled();
            String redisCli = config.security().tlsCertFile().isEmpty() ? "redis-cli -p " + r.respPort()
                    : "redis-cli --tls" + (internalTls ? " --cacert " + caFile(config) : "") + " -p " + r.respPort();
            String admin = AdminHttps.base(r.host(), r.adminPort());
            System.out.printf("cairn is up: %s | console %s/console/ | admin %s/info | data %s | Ctrl-C to stop%n",
                    redisCli, admin, admin, config.dataDir());
            if (internalTls) {
                System.out.printf("TLS on every port; the cluster CA is %s (trust it in a browser for the console)%n", caFile(config));
            }
            if (config.security().adminAccess().tokenRequired()) {
                System.out.printf("admin changes need the token in %s (the cairn command reads it from %s)%n",
                        config.security().adminTokenFile().isEmpty() ? "security.adminToken" : config.source().getParent().resolve(config.security().adminTokenFile()),
                        config.source());
            }
            System.out.flush();
            runUntilStopped(() -> {
                cluster.close();
                lock.close();
            });
            return 0;
        }
    }

    /** A single process of a multi-host deployment, started from the shared config file. */
    abstract static class FromConfig implements Callable<Integer> {
        @Option(names = "--config", required = true, description = "cluster config file") Path config;
        @Option(names = "--node", required = true, description = "this process's id in the config") String node;

        abstract AutoCloseable start(ClusterConfig config, String node) throws Exception;

        @Override
        public Integer call() throws Exception {
            runUntilStopped(start(ConfigLoader.load(config), node));
            return 0;
        }
    }

    @Command(name = "storage", mixinStandardHelpOptions = true, description = "Run one storage node from a cluster config file.")
    static final class Storage extends FromConfig {
        @Override
        AutoCloseable start(ClusterConfig config, String node) throws Exception {
            StorageProcess process = new StorageProcess(config, node).start();
            return process::stop;
        }
    }

    @Command(name = "router", mixinStandardHelpOptions = true, description = "Run one router from a cluster config file.")
    static final class RouterCmd extends FromConfig {
        @Override
        AutoCloseable start(ClusterConfig config, String node) throws Exception {
            RouterProcess p = new RouterProcess(config, node).start();
            System.out.printf("router %s serving RESP on port %d%n", node, p.respPort());
            return p;
        }
    }

    @Command(name = "coordinator", mixinStandardHelpOptions = true, description = "Run one coordinator node from a cluster config file.")
    static final class CoordinatorCmd extends FromConfig {
        @Override
        AutoCloseable start(ClusterConfig config, String node) throws Exception {
            return new CoordinatorProcess(config, node).start();
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Show what needs attention first, then replicasets, members, leaders, bucket counts and the epoch.",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {"0:healthy", "3:degraded: every bucket served, something needs attention", "4:unavailable: some buckets are not served",
                    "5:unreachable: no process of the cluster answers", "2:bad config file or options"})
    static final class Status implements Callable<Integer> {
        @Option(names = "--dir", defaultValue = "cairn-data", description = "local cluster folder (default: ${DEFAULT-VALUE})") Path dir;
        @Option(names = "--config", description = "cluster config file (instead of --dir)") Path config;
        @Option(names = "--json", description = "print JSON") boolean json;
        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            ClusterConfig c = ConfigLoader.load(config != null ? config : dir.resolve(LocalCluster.CONFIG_FILE));
            var status = StatusReport.collect(c);
            spec.commandLine().getOut().print(json ? AdminServer.JSON.writeValueAsString(status) + "\n" : StatusReport.render(status));
            spec.commandLine().getOut().flush();
            // 0 healthy, 3 degraded, 4 some buckets unavailable, 5 nothing answers (StatusHealth; docs/operations.md)
            return ((Number) status.get("exitCode")).intValue();
        }
    }

    @Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks that start their own cluster in this JVM.",
            subcommands = {CairnCommand.BenchMoves.class, CairnCommand.BenchDiscovery.class, CairnCommand.BenchReplace.class})
    static final class Bench implements Runnable {
        @Override
        public void run() {
            new CommandLine(this).usage(System.out);
        }
    }

    @Command(name = "moves", mixinStandardHelpOptions = true,
            description = "Load keys into two replicasets, give a third its share, and measure the move and the foreground traffic.")
    static final class BenchMoves implements Callable<Integer> {
        @Option(names = "--keys", defaultValue = "100000", description = "keys to load (default: ${DEFAULT-VALUE})") int keys;
        @Option(names = "--value-bytes", defaultValue = "100", description = "value size (default: ${DEFAULT-VALUE})") int valueBytes;
        @Option(names = "--buckets", defaultValue = "3000", description = "bucket count (default: ${DEFAULT-VALUE})") int buckets;
        @Option(names = "--replicas", defaultValue = "3", description = "nodes per replicaset (default: ${DEFAULT-VALUE})") int replicas;
        @Option(names = "--chunk-keys", defaultValue = "1000", description = "keys per transfer chunk (default: ${DEFAULT-VALUE})") int chunkKeys;
        @Option(names = "--max-sending", defaultValue = "32", description = "concurrent sends per replicaset (default: ${DEFAULT-VALUE})") int maxSending;
        @Option(names = "--max-receiving", defaultValue = "64", description = "concurrent receives per replicaset (default: ${DEFAULT-VALUE})") int maxReceiving;
        @Option(names = "--timeout-seconds", defaultValue = "900", description = "give up after (default: ${DEFAULT-VALUE})") long timeoutSeconds;
        @Option(names = "--dir", description = "data folder (default: a new temporary folder, deleted afterwards)") Path dir;
        @Option(names = "--warmup", description = "move the share to the third replicaset and back first, so the measured move runs on JIT-compiled code")
        boolean warmup;
        @Option(names = "--warmup-rounds", defaultValue = "1",
                description = "with --warmup: how many times the share goes there and back (default: ${DEFAULT-VALUE})")
        int warmupRounds;
        @Option(names = "--copy-ahead", negatable = true, defaultValue = "true", fallbackValue = "true",
                description = "copy data while buckets still serve writes (default: ${DEFAULT-VALUE}); --no-copy-ahead for an A/B run")
        boolean copyAhead;
        @Option(names = "--max-bytes-per-second", defaultValue = "0",
                description = "rebalancer.maxBytesPerSecond: bucket data copied per second over all moves, 0 for no limit (default: ${DEFAULT-VALUE})")
        long maxBytesPerSecond;
        @Option(names = "--step-latency-target-ms", defaultValue = "10",
                description = "rebalancer.stepLatencyTargetMs: the copy slows down while move steps take longer to commit, 0 for a fixed budget (default: ${DEFAULT-VALUE})")
        long stepLatencyTargetMs;

        @Override
        public Integer call() throws Exception {
            Path d = dir != null ? dir : Files.createTempDirectory("cairn-bench-moves");
            try {
                MoveBench.run(new MoveBench.Options(keys, buckets, replicas, valueBytes, chunkKeys,
                        maxSending, maxReceiving, Duration.ofSeconds(timeoutSeconds), warmup ? warmupRounds : 0, copyAhead, maxBytesPerSecond, stepLatencyTargetMs), d);
            } finally {
                if (dir == null) LocalCluster.deleteTree(d);
            }
            return 0;
        }
    }

    @Command(name = "replace", mixinStandardHelpOptions = true,
            description = "Replace a storage node of a loaded replicaset (cairn node replace) and time it, with one client's latency before and during.")
    static final class BenchReplace implements Callable<Integer> {
        @Option(names = "--keys", defaultValue = "1000000", description = "keys loaded first (default: ${DEFAULT-VALUE})") int keys;
        @Option(names = "--value-bytes", defaultValue = "100", description = "value size (default: ${DEFAULT-VALUE})") int valueBytes;
        @Option(names = "--timeout-seconds", defaultValue = "1800", description = "bound on the replace (default: ${DEFAULT-VALUE})") long timeoutSeconds;
        @Option(names = "--dir", description = "data folder (default: a new temporary folder, deleted afterwards)") Path dir;
        @Option(names = "--wipe", description = "instead: wipe a follower's folder and restart it, timing it from restart to voter") boolean wipe;

        @Override
        public Integer call() throws Exception {
            Path d = dir != null ? dir : Files.createTempDirectory("cairn-bench-replace");
            try {
                ReplaceBench.run(new ReplaceBench.Options(keys, valueBytes, Duration.ofSeconds(timeoutSeconds), wipe), d, NodeChanges::replaceLocal);
            } finally {
                if (dir == null) LocalCluster.deleteTree(d);
            }
            return 0;
        }
    }

    @Command(name = "discovery", mixinStandardHelpOptions = true,
            description = "Per bucket count: a new router's first discovery, its idle discovery cost, and its cost while buckets move.")
    static final class BenchDiscovery implements Callable<Integer> {
        @Option(names = "--buckets", split = ",", defaultValue = "3000,30000,300000", description = "bucket counts, one cluster each (default: ${DEFAULT-VALUE})") List<Integer> buckets;
        @Option(names = "--replicasets", defaultValue = "2", description = "replicasets (default: ${DEFAULT-VALUE})") int replicasets;
        @Option(names = "--replicas", defaultValue = "1", description = "nodes per replicaset (default: ${DEFAULT-VALUE})") int replicas;
        @Option(names = "--idle-seconds", defaultValue = "20", description = "idle measurement window (default: ${DEFAULT-VALUE})") long idleSeconds;
        @Option(names = "--move-percent", defaultValue = "1", description = "share of the buckets to move (default: ${DEFAULT-VALUE})") double movePercent;
        @Option(names = "--discovery-runs", defaultValue = "5", description = "new routers timed per bucket count: the first cold, the median of the rest warm (default: ${DEFAULT-VALUE})") int discoveryRuns;
        @Option(names = "--timeout-seconds", defaultValue = "1200", description = "bound on each wait (default: ${DEFAULT-VALUE})") long timeoutSeconds;
        @Option(names = "--dir", description = "data folder (default: a new temporary folder, deleted afterwards)") Path dir;

        @Override
        public Integer call() throws Exception {
            DiscoveryBench.run(new DiscoveryBench.Options(buckets, replicasets, replicas,
                    Duration.ofSeconds(idleSeconds), movePercent, discoveryRuns, Duration.ofSeconds(timeoutSeconds)), dir);
            return 0;
        }
    }
}
