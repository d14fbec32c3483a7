package io.cairn.raftbench;

import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The state machine every engine applies to, as Cairn's storage does: one RocksDB write batch per
 * entry holding its writes and the applied index, with the WAL on and no sync (the Raft log is the
 * durable copy). Not thread-safe: engines apply in log order from one thread.
 */
public final class RocksApplier implements AutoCloseable {
    static {
        RocksDB.loadLibrary();
    }

    private static final byte[] APPLIED_KEY = "applied-index".getBytes(StandardCharsets.US_ASCII);

    private final Options options;
    private final RocksDB db;
    private final WriteOptions writeOptions = new WriteOptions();
    private volatile long appliedIndex;
    private volatile long appliedWrites;

    public RocksApplier(Path dir) throws IOException {
        Files.createDirectories(dir);
        options = new Options().setCreateIfMissing(true).setWriteBufferSize(32L << 20).setMaxOpenFiles(256).setKeepLogFileNum(2);
        try {
            db = RocksDB.open(options, dir.toString());
            byte[] applied = db.get(APPLIED_KEY);
            appliedIndex = applied == null ? 0 : ByteBuffer.wrap(applied).getLong();
        } catch (RocksDBException e) {
            throw new IOException("cannot open RocksDB at " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Applies one committed entry at log {@code index}; an index at or below the applied one is skipped (replay after restart). */
    public void apply(long index, byte[] entry) {
        apply(index, entry, 0, entry.length);
    }

    public void apply(long index, byte[] buf, int offset, int length) {
        if (index <= appliedIndex) return;
        if (length % Workload.RECORD_BYTES != 0) throw new IllegalArgumentException("entry of " + length + " bytes is not whole records");
        try (WriteBatch batch = new WriteBatch()) {
            for (int at = offset; at < offset + length; at += Workload.RECORD_BYTES) {
                batch.put(Arrays.copyOfRange(buf, at, at + Workload.KEY_BYTES),
                        Arrays.copyOfRange(buf, at + Workload.KEY_BYTES, at + Workload.RECORD_BYTES));
            }
            batch.put(APPLIED_KEY, ByteBuffer.allocate(8).putLong(index).array());
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new IllegalStateException("apply of entry " + index + " failed: " + e.getMessage(), e);
        }
        appliedIndex = index;
        appliedWrites += length / Workload.RECORD_BYTES;
    }

    public long appliedIndex() {
        return appliedIndex;
    }

    /** Writes applied since this applier opened (a check that an engine really applied what it acknowledged). */
    public long appliedWrites() {
        return appliedWrites;
    }

    @Override
    public void close() {
        db.close();
        writeOptions.close();
        options.close();
    }
}
