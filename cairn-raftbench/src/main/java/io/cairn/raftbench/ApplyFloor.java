package io.cairn.raftbench;

import com.sun.management.OperatingSystemMXBean;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The part of a replicated write that no engine can save: applying it to RocksDB on each of three
 * members, measured alone (no log, no network, one thread, the process's CPU including RocksDB's
 * flushes and compactions). An engine's own cost per write is its row's CPU less this.
 */
final class ApplyFloor {
    private ApplyFloor() {
    }

    record Row(int writesPerEntry, long entries, double cpuMicrosPerWrite) {
        String line() {
            return String.format(Locale.ROOT, "| apply floor (3 x RocksDB, no Raft) | %d | %,d | %.1f |", writesPerEntry, entries, cpuMicrosPerWrite);
        }
    }

    static List<Row> measure(Path dir, int[] writes, Duration each) throws Exception {
        List<Row> rows = new ArrayList<>();
        RaftBench.deleteTree(dir);
        List<RocksApplier> appliers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) appliers.add(new RocksApplier(dir.resolve("m" + i)));
            long index = 0;
            for (int w : writes) {
                byte[][] pool = new byte[256][];
                for (int i = 0; i < pool.length; i++) pool[i] = Workload.entry(w);
                long cpuBefore = processCpuNanos();
                long end = System.nanoTime() + each.toNanos();
                long entries = 0;
                while (System.nanoTime() < end && entries < Load.MAX_ENTRIES) {
                    index++;
                    for (RocksApplier a : appliers) a.apply(index, pool[(int) (index % pool.length)]);
                    entries++;
                }
                double perWrite = (processCpuNanos() - cpuBefore) / 1e3 / (entries * (double) w);
                rows.add(new Row(w, entries, perWrite));
            }
        } finally {
            for (RocksApplier a : appliers) a.close();
            RaftBench.deleteTree(dir);
        }
        return rows;
    }

    private static long processCpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
