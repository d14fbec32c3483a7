package io.cairn.raftbench;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Raft engines side by side (issue 20): for each engine and each placement (one JVM, three
 * processes), a fresh three-member group, a warm-up, then one cell per (writes per entry,
 * proposers): entries/s, writes/s, CPU per entry and per write summed over the members, and
 * p50/p99 commit latency. Run it with {@code bench/raft-compare.sh}; options:
 * <pre>
 *   --engines ratis,sofajraft,microraft   --placements jvm,processes   --writes 1,20,200
 *   --proposers 1,64   --seconds 10   --warmup-seconds 10   --dir target/raftbench
 * </pre>
 */
public final class RaftBench {
    private RaftBench() {
    }

    record Options(List<String> engines, List<String> placements, int[] writes, int[] proposers, Duration cell, Duration warmup, Path dir,
                   List<String> jvmFlags) {
        static Options parse(String[] args) {
            List<String> engines = new ArrayList<>();
            Engines.names().forEach(engines::add);
            List<String> placements = List.of("jvm", "processes");
            int[] writes = {1, 20, 200};
            int[] proposers = {1, 64};
            Duration cell = Duration.ofSeconds(10);
            Duration warmup = Duration.ofSeconds(10);
            Path dir = Path.of("target", "raftbench");
            for (int i = 0; i < args.length; i++) {
                String value = i + 1 < args.length ? args[i + 1] : null;
                if (value == null) throw new IllegalArgumentException(args[i] + " needs a value");
                switch (args[i++]) {
                    case "--engines" -> engines = List.of(value.split(","));
                    case "--placements" -> placements = List.of(value.split(","));
                    case "--writes" -> writes = ints(value);
                    case "--proposers" -> proposers = ints(value);
                    case "--seconds" -> cell = Duration.ofMillis((long) (Double.parseDouble(value) * 1000));
                    case "--warmup-seconds" -> warmup = Duration.ofMillis((long) (Double.parseDouble(value) * 1000));
                    case "--dir" -> dir = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + args[i - 1]);
                }
            }
            for (String p : placements) {
                if (!p.equals("jvm") && !p.equals("processes")) throw new IllegalArgumentException("placement is jvm or processes, not " + p);
            }
            List<String> flags = List.of("-Xmx2g", "-Djava.util.concurrent.ForkJoinPool.common.parallelism=4");
            return new Options(engines, placements, writes, proposers, cell, warmup, dir, flags);
        }

        private static int[] ints(String csv) {
            return Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
        }
    }

    /** One measured cell, with the CPU its members used. */
    record Row(String engine, String placement, Load.Result result, Duration cpu) {
        double cpuMicrosPerEntry() {
            return result.entries() == 0 ? Double.NaN : cpu.toNanos() / 1e3 / result.entries();
        }

        double cpuMicrosPerWrite() {
            return cpuMicrosPerEntry() / result.writesPerEntry();
        }

        String markdown() {
            return String.format(Locale.ROOT, "| %s | %s | %d | %d | %,.0f | %,.0f | %,.0f | %,.1f | %.2f | %.2f | %s |", engine, placement,
                    result.writesPerEntry(), result.proposers(), result.entriesPerSecond(), result.writesPerSecond(), cpuMicrosPerEntry(),
                    cpuMicrosPerWrite(), result.p50Nanos() / 1e6, result.p99Nanos() / 1e6, result.errors() == 0 ? "" : result.errors()
                            + " (" + result.firstError() + ")");
        }
    }

    /** How long the idle group's CPU is measured (heartbeats and timers: a cost every cell also pays). */
    private static final Duration IDLE = Duration.ofSeconds(3);
    /** Longest the followers get to apply the last cell's entries before the members' counts are compared. */
    private static final Duration CATCH_UP = Duration.ofSeconds(30);

    static final String HEADER = "| engine | placement | writes/entry | proposers | entries/s | writes/s | CPU µs/entry | CPU µs/write | p50 ms | p99 ms | errors |\n"
            + "|---|---|---|---|---|---|---|---|---|---|---|";

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("raftbench: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.out.printf("raftbench: engines %s, placements %s, writes per entry %s, proposers %s, %s per cell after %s of warm-up, %d cores%n",
                options.engines(), options.placements(), Arrays.toString(options.writes()), Arrays.toString(options.proposers()),
                options.cell(), options.warmup(), Runtime.getRuntime().availableProcessors());
        List<ApplyFloor.Row> floor = ApplyFloor.measure(options.dir().resolve("floor"), options.writes(), options.cell());
        floor.forEach(r -> System.out.println(r.line()));
        List<Row> rows = new ArrayList<>();
        for (String placement : options.placements()) {
            for (String engine : options.engines()) {
                rows.addAll(measure(engine, placement, options));
            }
        }
        System.out.println();
        System.out.println(HEADER);
        rows.forEach(r -> System.out.println(r.markdown()));
        System.out.println();
        System.out.println("| baseline | writes/entry | entries | CPU µs/write |\n|---|---|---|---|");
        floor.forEach(r -> System.out.println(r.line()));
    }

    static List<Row> measure(String engine, String placement, Options options) throws Exception {
        Path dir = options.dir().resolve(engine + "-" + placement);
        deleteTree(dir);
        List<Row> rows = new ArrayList<>();
        System.out.printf("%s in %s: starting%n", engine, placement);
        try (Group group = placement.equals("jvm") ? new InJvmGroup(Engines.byName(engine), dir) : new ProcessGroup(engine, dir, options.jvmFlags())) {
            if (!options.warmup().isZero()) {
                Load.Result w = group.run(20, 64, options.warmup());
                System.out.printf("%s in %s: warm-up %,.0f entries/s%n", engine, placement, w.entriesPerSecond());
            }
            Duration idleBefore = group.cpu();
            Thread.sleep(IDLE.toMillis());
            double idleCores = (group.cpu().minus(idleBefore)).toNanos() / (double) IDLE.toNanos();
            System.out.printf(Locale.ROOT, "%s in %s: idle group uses %.3f cores%n", engine, placement, idleCores);
            for (int writes : options.writes()) {
                for (int proposers : options.proposers()) {
                    Duration before = group.cpu();
                    Load.Result r = group.run(writes, proposers, options.cell());
                    Row row = new Row(engine, placement, r, group.cpu().minus(before));
                    rows.add(row);
                    System.out.println(row.markdown());
                }
            }
            long[] applied = converged(group);
            System.out.printf("%s in %s: writes applied per member %s%s%n", engine, placement, Arrays.toString(applied),
                    Arrays.stream(applied).distinct().count() == 1 ? "" : " (NOT EQUAL after " + CATCH_UP + ")");
        } finally {
            deleteTree(dir);
        }
        return rows;
    }

    /** Each member's applied writes once all agree (followers catch up after the last cell), or as they stand after {@link #CATCH_UP}. */
    private static long[] converged(Group group) throws Exception {
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        long[] applied = group.appliedWrites();
        while (Arrays.stream(applied).distinct().count() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            applied = group.appliedWrites();
        }
        return applied;
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
