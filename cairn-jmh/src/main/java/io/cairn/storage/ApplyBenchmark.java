package io.cairn.storage;

import io.cairn.core.kv.KvOp;
import io.cairn.core.wire.StorageRequest;
import io.cairn.jmh.BenchDirs;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.state.ReplicasetState;
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
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One member applying a committed entry of SETs, as `bench/redis-compare.sh` sends them (100-byte
 * values, 100,000 random keys, buckets of a 3,000-bucket cluster's replicaset): {@link ReplicasetState}'s
 * apply against the floor of the same puts written to RocksDB as one batch with the applied index,
 * without any of Cairn's logic (no read first, no bucket stamp, no ONCE record). The keys exist after
 * the warm-up, as in the cluster benchmark. Per entry; divide by {@code writesPerEntry} for a SET.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 4, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class ApplyBenchmark {
    private static final int BUCKETS = 1_500;
    private static final int KEYS = 100_000;

    @Param({"14"})
    public int writesPerEntry;

    private Path dir;
    private RocksStore store;
    private ReplicasetState state;
    private static final UUID ROUTER = new UUID(7, 7);
    private long index;
    private long callId;
    private final SplittableRandom random = new SplittableRandom(42);
    private final byte[][] keys = new byte[KEYS][];
    private final byte[] value = "x".repeat(100).getBytes(StandardCharsets.US_ASCII);

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = Files.createTempDirectory("cairn-apply-bench");
        store = new RocksStore(dir);
        state = new ReplicasetState(store, 1 << 20);
        apply(StorageRequest.bootstrap(1, BUCKETS));
        for (int i = 0; i < KEYS; i++) keys[i] = ("key:" + String.format("%012d", i)).getBytes(StandardCharsets.US_ASCII);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        store.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    public byte[] cairnApply() {
        return apply(StorageRequest.write(randomSets()));
    }

    /** The same entry as a router sends it: wrapped in ONCE with its call (looked up, recorded, old ones collected). */
    @Benchmark
    public byte[] cairnApplyOnce() {
        return apply(StorageRequest.once(ROUTER, ++callId, StorageRequest.write(randomSets())));
    }

    private List<KvOp> randomSets() {
        List<KvOp> ops = new ArrayList<>(writesPerEntry);
        for (int i = 0; i < writesPerEntry; i++) {
            int k = random.nextInt(KEYS);
            ops.add(new KvOp(KvOp.Type.SET, 1 + k % BUCKETS, keys[k], value, 0, 0));
        }
        return ops;
    }

    @Benchmark
    public long rocksBatchFloor() throws RocksDBException {
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < writesPerEntry; i++) {
                int k = random.nextInt(KEYS);
                batch.put(store.data, RocksStore.dataKey(1 + k % BUCKETS, keys[k]), value);
            }
            batch.put(store.system, RocksStore.APPLIED_INDEX, ByteBuffer.allocate(8).putLong(++index).array());
            store.write(batch);
        }
        return index;
    }

    private byte[] apply(byte[] entry) {
        ByteBuffer.wrap(entry).putLong(StorageRequest.STAMP_OFFSET, 1_000 + index);
        return state.apply(ByteBuffer.wrap(entry), 1, ++index);
    }
}
