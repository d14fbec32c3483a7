package io.cairn.storage;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.BucketLedger;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.ReceiveProgress;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;

/** {@link BucketLedger}'s view of one replicaset member while a MOVE entry is applied: every change lands in the entry's batch. */
final class MoveLedgerStore implements BucketLedger.Store {
    private static final byte[] PROGRESS_PREFIX = RocksStore.bytes("receive-progress/");

    private final ReplicasetState state;
    private final WriteBatch batch;
    private final BatchView view;

    MoveLedgerStore(ReplicasetState state, WriteBatch batch, BatchView view) {
        this.state = state;
        this.batch = batch;
        this.view = view;
    }

    @Override
    public BucketRecord record(int bucket) {
        return state.record(bucket);
    }

    @Override
    public BucketRecord put(BucketRecord withoutBsn) {
        return state.putWithNextBsn(batch, withoutBsn);
    }

    @Override
    public ReceiveProgress progress(int bucket) {
        byte[] v = state.store().get(state.store().system, progressKey(bucket));
        return v == null ? null : ReceiveProgress.decode(v);
    }

    @Override
    public void putProgress(int bucket, ReceiveProgress progress) {
        try {
            batch.put(state.store().system, progressKey(bucket), progress.encode());
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
    }

    @Override
    public void clearProgress(int bucket) {
        try {
            batch.delete(state.store().system, progressKey(bucket));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch delete failed", e);
        }
    }

    @Override
    public void putData(int bucket, ChunkEntry entry) {
        view.put(bucket, entry.key(), entry.stored());
    }

    @Override
    public void dropData(int bucket) {
        view.dropBucket(bucket);
    }

    @Override
    public boolean mapReduceRefsHeld() {
        return state.mapReduceRefsHeld();
    }

    @Override
    public long nowMs() {
        return state.applyingStampMs();
    }

    @Override
    public long quarantinedAtMs(int bucket) {
        return state.quarantinedAtMs(bucket);
    }

    @Override
    public void putQuarantinedAt(int bucket, long stampMs) {
        try {
            batch.put(state.store().system, ReplicasetState.quarantinedAtKey(bucket), RocksStore.longKey(stampMs));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
    }

    private static byte[] progressKey(int bucket) {
        return ByteBuffer.allocate(PROGRESS_PREFIX.length + 4).put(PROGRESS_PREFIX).putInt(bucket).array();
    }
}
