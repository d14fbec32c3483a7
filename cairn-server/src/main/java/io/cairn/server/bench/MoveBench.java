package io.cairn.server.bench;

import com.sun.management.OperatingSystemMXBean;
import io.cairn.coordinator.CoordinatorClient;
import io.cairn.core.BucketHasher;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.router.Router;
import io.cairn.server.process.LocalCluster;
import io.cairn.server.process.Ports;
import io.cairn.server.cli.ProgressLine;
import io.cairn.server.config.ClusterConfig;
import io.cairn.server.config.ConfigLoader;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;

/**
 * {@code cairn bench moves}: loads N keys into two replicasets, gives a third one its share and
 * measures the move (keys/s, buckets/s) and the foreground traffic during it (p50, p99, worst
 * stall), next to the same foreground traffic measured just before the move in the same run.
 * Everything runs in this JVM on loopback, like {@code cairn up}. With {@code warmupRounds}, the
 * third replicaset first receives its share and gives it back that many times, so the measured
 * move runs on compiled code (in a young JVM the JIT takes about a third of the CPU during the
 * first move); the JIT time during the move is printed.
 */
public final class MoveBench {
    public record Options(int keys, int buckets, int replicas, int valueBytes, int chunkKeys, int maxSending, int maxReceiving,
                          Duration timeout, int warmupRounds, boolean copyAhead, long maxBytesPerSecond, long stepLatencyTargetMs) {
        public Options {
            if (warmupRounds < 0) throw new IllegalArgumentException("warm-up rounds must be >= 0, was " + warmupRounds);
        }
    }

    private MoveBench() {}

    public static void run(Options o, Path dir) throws Exception {
        ClusterConfig config = prepare(o, dir);
        try (LocalCluster cluster = new LocalCluster(config).start()) {
            if (!cluster.awaitReady(Duration.ofSeconds(120))) throw new IllegalStateException("cluster not ready");
            Router router = cluster.router().router();
            long t0 = System.nanoTime();
            load(router, o.keys(), o.buckets(), o.valueBytes(), ProgressLine.stdout());
            double loadSeconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("loaded %,d keys of %d bytes in %.1f s (%,.0f keys/s)%n", o.keys(), o.valueBytes(), loadSeconds, o.keys() / loadSeconds);
            for (int round = 1; round <= o.warmupRounds(); round++) {
                long w0 = System.nanoTime();
                long jit0 = jitMs();
                // The foreground loop runs during the warm-up too: writes meeting moving buckets take
                // paths that would otherwise be compiled (and others deoptimised) during the measured move.
                AtomicBoolean warming = new AtomicBoolean(true);
                Thread foreground = new Thread(() -> Foreground.measure(router, o.keys(), o.buckets(), o.valueBytes(), o.timeout(), warming), "bench-warm-up-foreground");
                foreground.start();
                boolean warm;
                try {
                    warm = awaitBalanced(cluster, setWeight(config, "rs3", 1), o.timeout())
                            && awaitBalanced(cluster, setWeight(config, "rs3", 0), o.timeout());
                } finally {
                    warming.set(false);
                    foreground.join();
                }
                if (!warm) throw new IllegalStateException("warm-up moves did not finish within " + o.timeout());
                System.out.printf("warm-up %d: rs3 received its share and gave it back in %.1f s (JIT compiled for %,d ms)%n",
                        round, (System.nanoTime() - w0) / 1e9, jitMs() - jit0);
            }
            Map<String, Object> p0 = cluster.coordinator().mover().progress();

            Foreground before = Foreground.measure(router, o.keys(), o.buckets(), o.valueBytes(), Duration.ofSeconds(5), null);
            System.out.printf("foreground before the move: %s%n", before.summary());

            AtomicBoolean moving = new AtomicBoolean(true);
            Foreground[] during = new Foreground[1];
            Thread fg = new Thread(() -> during[0] = Foreground.measure(router, o.keys(), o.buckets(), o.valueBytes(), o.timeout(), moving), "bench-foreground");
            fg.start();
            long moveStart = System.nanoTime();
            long jitBefore = jitMs();
            long cpuBefore = cpuNanos();
            long epoch = setWeight(config, "rs3", 1);
            List<Long> copyRates = new ArrayList<>();
            boolean done = awaitBalanced(cluster, epoch, o.timeout(), copyRates::add);
            double moveSeconds = (System.nanoTime() - moveStart) / 1e9;
            moving.set(false);
            long jitDuring = jitMs() - jitBefore;
            double cpuSeconds = (cpuNanos() - cpuBefore) / 1e9;
            fg.join();
            Map<String, Object> p = cluster.coordinator().mover().progress();
            long moved = since(p0, p, "moved");
            long keysMoved = since(p0, p, "keysMoved");
            System.out.printf("%nmove %s in %.1f s: %,d buckets (%.1f buckets/s, %.1f ms each), %,d keys (%,.0f keys/s), %s rolled back, %s steps retried%n",
                    done ? "finished" : "NOT finished", moveSeconds, moved, moved / moveSeconds, 1000 * moveSeconds / Math.max(1, moved),
                    keysMoved, keysMoved / moveSeconds, since(p0, p, "rolledBack"), since(p0, p, "stepRetries"));
            System.out.printf("JIT compiled for %,d ms during the move (CPU the move did not get; more --warmup-rounds lower it)%n", jitDuring);
            // CPU per key varies less than keys/s on a shared machine: compare builds by it.
            System.out.printf("the JVM (cluster and client) used %.1f s of CPU during the move (%.2f of %d cores), %.1f µs per key moved%n",
                    cpuSeconds, cpuSeconds / moveSeconds, Runtime.getRuntime().availableProcessors(), 1e6 * cpuSeconds / Math.max(1, keysMoved));
            System.out.printf("copy ahead paced at (MB/s, as published every 100 ms; 0: not limited): %s%n", rateSummary(copyRates));
            System.out.printf("writes held per moved bucket (SENDING until activated, driver's view, last 1,024 moves): %s%n", p.get("writesHeldMs"));
            System.out.printf("foreground during the move: %s%n", during[0].summary());
            System.out.printf("ratios during/before: p50 %.2fx, p99 %.2fx, ops/s %.2fx%n",
                    during[0].p(50) / before.p(50), during[0].p(99) / before.p(99), during[0].opsPerSecond() / before.opsPerSecond());
            verify(router, o.keys(), o.buckets());
        }
    }

    private static ClusterConfig prepare(Options o, Path dir) throws IOException {
        Files.createDirectories(dir);
        int base = Ports.freeRange(100);
        Map<String, Object> tree = new LinkedHashMap<>(LocalCluster.configTree(new LocalCluster.Shape(3, o.replicas(), o.buckets(), base + 99, base)));
        @SuppressWarnings("unchecked") List<Map<String, Object>> sets = (List<Map<String, Object>>) tree.get("replicasets");
        List<Map<String, Object>> adjusted = new ArrayList<>();
        for (Map<String, Object> rs : sets) {
            Map<String, Object> copy = new LinkedHashMap<>(rs);
            if ("rs3".equals(rs.get("id"))) copy.put("weight", 0);
            adjusted.add(copy);
        }
        tree.put("replicasets", adjusted);
        tree.put("rebalancer", Map.of("chunkKeys", o.chunkKeys(), "maxSendingPerReplicaset", o.maxSending(),
                "maxReceivingPerReplicaset", o.maxReceiving(), "maxMovesPerRound", 4 * o.maxReceiving(), "copyAhead", o.copyAhead(),
                "maxBytesPerSecond", o.maxBytesPerSecond(), "stepLatencyTargetMs", o.stepLatencyTargetMs()));
        Path file = dir.resolve(LocalCluster.CONFIG_FILE);
        ConfigLoader.write(file, tree);
        return ConfigLoader.load(file);
    }

    /** Writes keys 0..keys-1 ({@link #key}) with values of {@code valueBytes} through the router, 8 batches of 1,000 in flight. */
    public static void load(Router router, int keys, int buckets, int valueBytes) {
        load(router, keys, buckets, valueBytes, null);
    }

    /** {@link #load}, drawing its progress on {@code progress} (null: silent). */
    public static void load(Router router, int keys, int buckets, int valueBytes, ProgressLine progress) {
        long startNanos = System.nanoTime();
        long nextPlainNanos = startNanos;
        byte[] value = new byte[valueBytes];
        Arrays.fill(value, (byte) 'x');
        int batch = 1_000;
        List<CompletableFuture<List<OpResult>>> inFlight = new ArrayList<>();
        for (int start = 0; start < keys; start += batch) {
            List<KvOp> ops = new ArrayList<>(batch);
            for (int i = start; i < Math.min(keys, start + batch); i++) {
                byte[] key = key(i);
                ops.add(KvOp.set(BucketHasher.bucketOf(key, buckets), key, value));
            }
            inFlight.add(router.execute(ops));
            if (inFlight.size() >= 8) drain(inFlight);
            // a terminal redraws at every batch; a log gets a line every 5 s
            if (progress != null && (progress.terminal() || System.nanoTime() >= nextPlainNanos)) {
                progress.progress("loading", Math.min(keys, start + batch), keys, "keys", startNanos);
                nextPlainNanos = System.nanoTime() + 5_000_000_000L;
            }
        }
        drain(inFlight);
        if (progress != null) progress.finish();
    }

    private static void drain(List<CompletableFuture<List<OpResult>>> inFlight) {
        for (var f : inFlight) {
            for (OpResult r : f.join()) if (r.isError()) throw new IllegalStateException("load failed: " + r.message());
        }
        inFlight.clear();
    }

    public static byte[] key(int i) {
        return ("bench:" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static String rateSummary(List<Long> bytesPerSecond) {
        if (bytesPerSecond.isEmpty()) return "no samples";
        List<Long> sorted = bytesPerSecond.stream().sorted().toList();
        IntFunction<String> mb = i -> String.format("%.1f", sorted.get(i) / 1e6);
        return "min " + mb.apply(0) + ", median " + mb.apply(sorted.size() / 2) + ", max " + mb.apply(sorted.size() - 1)
                + ", last " + String.format("%.1f", bytesPerSecond.get(bytesPerSecond.size() - 1) / 1e6);
    }

    /** CPU time this JVM has used so far (all threads), in ns; 0 where the JVM cannot tell. */
    private static long cpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
                ? os.getProcessCpuTime() : 0;
    }

    /** Milliseconds this JVM's JIT compilers have spent so far. */
    private static long jitMs() {
        var jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /** How much a rebalancer counter grew between two progress readings (the warm-up's moves excluded). */
    private static long since(Map<String, Object> before, Map<String, Object> after, String counter) {
        return ((Number) after.get(counter)).longValue() - ((Number) before.get(counter)).longValue();
    }

    private static long setWeight(ClusterConfig config, String replicaset, int weight) {
        try (CoordinatorClient coordinator = new CoordinatorClient(config.topology().coordinators())) {
            Topology t = coordinator.get().topology();
            List<ReplicasetSpec> sets = new ArrayList<>();
            for (ReplicasetSpec rs : t.replicasets()) sets.add(rs.id().equals(replicaset) ? new ReplicasetSpec(rs.id(), weight, rs.nodes()) : rs);
            Topology next = new Topology(t.epoch(), t.bucketCount(), t.coordinators(), sets, t.routers());
            return coordinator.propose(t.epoch(), next, false, "bench: weight " + weight + " for " + replicaset).topology().epoch();
        }
    }

    private static boolean awaitBalanced(LocalCluster cluster, long epoch, Duration timeout) throws InterruptedException {
        return awaitBalanced(cluster, epoch, timeout, rate -> { });
    }

    /** @param copyRates gets the rebalancer's copy rate (bytes/s, 0: not limited) at every poll */
    private static boolean awaitBalanced(LocalCluster cluster, long epoch, Duration timeout, LongConsumer copyRates)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long nextReport = start;
        ProgressLine line = ProgressLine.stdout();
        long movedBefore = -1;
        try {
            while (System.nanoTime() < deadline) {
                Map<String, Object> p = cluster.coordinator().mover().progress();
                if (p.get("copyBytesPerSecond") instanceof Number rate) copyRates.accept(rate.longValue());
                long moved = p.get("moved") instanceof Number n ? n.longValue() : 0;
                if (movedBefore < 0) movedBefore = moved;
                if (line.terminal()) {
                    long toMove = p.get("bucketsToMove") instanceof Number n ? n.longValue() : 0;
                    line.progress("moving", moved - movedBefore, moved - movedBefore + toMove, "buckets", start);
                } else if (System.nanoTime() >= nextReport) {
                    System.out.printf("  %s buckets to move, %s in flight, %s moved, %s rolled back, %s keys%n",
                            p.get("bucketsToMove"), p.get("inFlight"), p.get("moved"), p.get("rolledBack"), p.get("keysMoved"));
                    nextReport = System.nanoTime() + 5_000_000_000L;
                }
                if (p.get("planEpoch") instanceof Number e && e.longValue() >= epoch && Boolean.TRUE.equals(p.get("balanced"))) {
                    return true;
                }
                Thread.sleep(50);
            }
            return false;
        } finally {
            line.finish();
        }
    }

    /** Every key reads back after the move (sampled when there are many). */
    /** Reads back every keys/20,000th loaded key; throws when one is missing. */
    public static void verify(Router router, int keys, int buckets) {
        int step = Math.max(1, keys / 20_000);
        int checked = 0;
        for (int i = 0; i < keys; i += step) {
            byte[] key = key(i);
            OpResult r = router.execute(List.of(KvOp.get(BucketHasher.bucketOf(key, buckets), key))).join().get(0);
            if (r.isError() || r.bytes() == null) throw new IllegalStateException("key " + new String(key) + " lost: " + r);
            checked++;
        }
        System.out.printf("verified %,d keys: all present%n", checked);
    }

}
