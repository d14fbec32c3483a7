package io.cairn.replication.microraft;

import org.openjdk.jmh.annotations.AuxCounters;
import io.cairn.jmh.BenchDirs;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What a Raft member does per entry to its log: append one record of an entry's size, write it and force it
 * ({@link SegmentedLog}), written past the page cache into zeros laid down ahead ({@code direct=true}) or
 * appended through it ({@code direct=false}), in the same run. Reports the time per entry and the calling
 * thread's CPU per entry ({@code cpuNanos / ops}, kernel time of the write and the force included; work the
 * kernel does on its own threads, such as the journal's, is not in it).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class LogForceBenchmark {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Param({"true", "false"})
    public boolean direct;

    /** An entry of 14 SETs of 100-byte values is about 2 KB. */
    @Param({"2000"})
    public int entryBytes;

    private Path dir;
    private SegmentedLog log;
    private byte[] entry;
    private long index;

    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Cpu {
        public long cpuNanos;
        public long ops;
    }

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = Files.createTempDirectory(Path.of(System.getProperty("cairn.bench.dir", "target")).toAbsolutePath(), "cairn-log-bench");
        log = new SegmentedLog(dir, FileRaftStore.SEGMENT_BYTES, direct);
        log.replay(body -> { }, body -> 0);
        if (log.direct() != direct) throw new IllegalStateException("this file system takes no direct writes: " + dir);
        entry = new byte[entryBytes];
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        log.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    public void appendWriteForce(Cpu cpu) throws IOException {
        long before = THREADS.getCurrentThreadCpuTime();
        int at = log.begin();
        log.buffer().writeBytes(entry);
        log.end(at, ++index);
        log.write();
        log.force();
        cpu.cpuNanos += THREADS.getCurrentThreadCpuTime() - before;
        cpu.ops++;
    }
}
