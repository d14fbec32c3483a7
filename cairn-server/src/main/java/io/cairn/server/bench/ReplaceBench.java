package io.cairn.server.bench;

import io.cairn.router.Router;
import io.cairn.server.cli.ProgressLine;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.Ports;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code cairn bench replace}: the time to replace a storage node of a loaded replicaset (issue 21:
 * added, caught up, promoted, the old one removed) and what one client saw meanwhile, against the
 * same client before the replace, in one run. The replace is {@code cairn node replace}'s own code, which the
 * command passes in ({@link NodeReplace}).
 */
public final class ReplaceBench {
    /** @param wipe wipe a follower's folder and restart it instead of replacing it ({@link WipedFollowerBench}) */
    public record Options(int keys, int valueBytes, Duration timeout, boolean wipe) {}

    /** Replaces storage node {@code node} of the local cluster in {@code dir} by its next free node, as {@code cairn node replace} does. */
    @FunctionalInterface
    public interface NodeReplace {
        void replace(Path dir, String node, Duration timeout) throws Exception;
    }

    private static final int BUCKETS = 3_000;

    private ReplaceBench() {}

    public static void run(Options o, Path dir, NodeReplace nodeReplace) throws Exception {
        Files.createDirectories(dir);
        ClusterConfig config = prepare(dir);
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            if (!cluster.awaitReady(Duration.ofSeconds(120))) throw new IllegalStateException("cluster not ready");
            Router router = cluster.router().router();
            long t0 = System.nanoTime();
            MoveBench.load(router, o.keys(), BUCKETS, o.valueBytes(), ProgressLine.stdout());
            System.out.printf("loaded %,d keys of %d bytes into rs1 (3 nodes) in %.1f s%n", o.keys(), o.valueBytes(), (System.nanoTime() - t0) / 1e9);
            Foreground before = Foreground.measure(router, o.keys(), BUCKETS, o.valueBytes(), Duration.ofSeconds(5), null);
            System.out.printf("foreground before the replace: %s%n", before.summary());
            if (o.wipe()) {
                WipedFollowerBench.run(cluster, config, o.keys(), o.timeout());
                MoveBench.verify(router, o.keys(), BUCKETS);
                return;
            }

            String old = "s1-2";
            AtomicBoolean replacing = new AtomicBoolean(true);
            Foreground[] during = new Foreground[1];
            Thread fg = new Thread(() -> during[0] = Foreground.measure(router, o.keys(), BUCKETS, o.valueBytes(), o.timeout(), replacing),
                    "bench-foreground");
            fg.start();
            long start = System.nanoTime();
            try {
                nodeReplace.replace(dir, old, o.timeout());
            } finally {
                replacing.set(false);
                fg.join();
            }
            System.out.printf("%nreplaced %s holding %,d keys in %.1f s (added, caught up, promoted, removed)%n", old, o.keys(),
                    (System.nanoTime() - start) / 1e9);
            System.out.printf("foreground during the replace: %s%n", during[0].summary());
            System.out.printf("ratios during/before: p50 %.2fx, p99 %.2fx, ops/s %.2fx%n",
                    during[0].p(50) / before.p(50), during[0].p(99) / before.p(99), during[0].opsPerSecond() / before.opsPerSecond());
            MoveBench.verify(router, o.keys(), BUCKETS);
        }
    }

    private static ClusterConfig prepare(Path dir) throws IOException {
        int base = Ports.freeRange(60);
        Map<String, Object> tree = new LinkedHashMap<>(LocalCluster.configTree(new LocalCluster.Shape(1, 3, BUCKETS, base + 59, base)));
        Path file = dir.resolve(LocalCluster.CONFIG_FILE);
        ConfigLoader.write(file, tree);
        return ConfigLoader.load(file);
    }
}
