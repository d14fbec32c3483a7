package io.cairn.storage.state;

import io.cairn.core.BucketRecord;
import io.cairn.core.kv.CollectionMeta;
import io.cairn.core.kv.KvView;
import io.cairn.core.move.ArchivePointer;
import io.cairn.core.move.BucketLedger;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.ReceiveProgress;
import io.cairn.storage.rocks.BatchView;
import io.cairn.storage.rocks.RocksStore;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link BucketLedger}'s view of one replicaset member while a MOVE or MOVE_BATCH entry is
 * applied: every change lands in the entry's batch, and a later command of the same entry reads
 * what an earlier one wrote (records through the member's map, data through the {@link BatchView},
 * receive progress and quarantine stamps through {@link #pending}).
 */
final class MoveLedgerStore implements BucketLedger.Store {
    private static final byte[] PROGRESS_PREFIX = RocksStore.bytes("receive-progress/");

    private final ReplicasetState state;
    private final WriteBatch batch;
    private final BatchView view;
    /** System keys written by this entry (an empty array: deleted), not yet in RocksDB. */
    private final Map<ByteBuffer, byte[]> pending = new HashMap<>();

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

    WriteBatch batch() {
        return batch;
    }

    @Override
    public ReceiveProgress progress(int bucket) {
        byte[] v = systemValue(progressKey(bucket));
        return v == null ? null : ReceiveProgress.decode(v);
    }

    @Override
    public void putProgress(int bucket, ReceiveProgress progress) {
        putSystem(progressKey(bucket), progress.encode());
    }

    @Override
    public void clearProgress(int bucket) {
        putSystem(progressKey(bucket), null);
    }

    private byte[] systemValue(byte[] key) {
        byte[] written = pending.get(ByteBuffer.wrap(key));
        if (written != null) return written.length == 0 ? null : written;
        return state.store().get(state.store().system, key);
    }

    /** Puts (or, with null, deletes) a system key in the entry's batch. */
    private void putSystem(byte[] key, byte[] value) {
        try {
            if (value == null) batch.delete(state.store().system, key);
            else batch.put(state.store().system, key, value);
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch write failed", e);
        }
        pending.put(ByteBuffer.wrap(key), value == null ? new byte[0] : value);
    }

    /** Stores a received key in its move form (a collection: metadata and elements); returns what it replaced, in move form. */
    @Override
    public byte[] putData(int bucket, ChunkEntry entry) {
        byte[] old = clearOld(bucket, entry.key());
        if (CollectionMeta.isCollection(entry.stored())) {
            view.replace(bucket, entry.key(), CollectionMeta.metaOfMoveForm(entry.stored()));
            for (KvView.Field f : CollectionMeta.fieldsOfMoveForm(entry.stored())) view.putField(bucket, entry.key(), f.name(), f.value());
        } else {
            view.replace(bucket, entry.key(), entry.stored());
        }
        return old;
    }

    @Override
    public void putPiece(int bucket, byte[] key, List<KvView.Field> fields) {
        for (KvView.Field f : fields) view.putField(bucket, key, f.name(), f.value());
    }

    @Override
    public byte[] deleteData(int bucket, byte[] key) {
        byte[] old = clearOld(bucket, key);
        view.remove(bucket, key);
        return old;
    }

    /** The key's current move form (null when absent), its fields already cleared when it is a hash. */
    private byte[] clearOld(int bucket, byte[] key) {
        byte[] stored = view.get(bucket, key);
        if (!CollectionMeta.isCollection(stored)) return stored;
        byte[] old = CollectionMeta.packForMove(stored, view.fields(bucket, key));
        view.clearFields(bucket, key, CollectionMeta.entryCount(stored));
        return old;
    }

    /** Marks are written by WRITE (and FLUSH) entries only, so RocksDB holds all of them. */
    @Override
    public void clearChanges(int bucket) {
        RocksStore store = state.store();
        store.forEachChanged(bucket, new byte[0], key -> {
            try {
                batch.delete(store.system, RocksStore.changedKey(bucket, key));
            } catch (RocksDBException e) {
                throw new RocksStore.StorageFailure("batch delete failed", e);
            }
            return true;
        });
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
    public MoveQuery.ChangesPage changes(int bucket, long generation) {
        // Earlier entries are in RocksDB, and no command before this one in the entry wrote the bucket.
        return MoveQueries.readChanges(MoveQuery.ReadChanges.first(bucket, generation), state);
    }

    @Override
    public long quarantinedAtMs(int bucket) {
        byte[] v = systemValue(ReplicasetState.quarantinedAtKey(bucket));
        return v == null ? -1 : ByteBuffer.wrap(v).getLong();
    }

    @Override
    public void putQuarantinedAt(int bucket, long stampMs) {
        putSystem(ReplicasetState.quarantinedAtKey(bucket), RocksStore.longKey(stampMs));
    }

    @Override
    public ArchivePointer archivePointer(int bucket) {
        byte[] v = systemValue(ReplicasetState.archivePointerKey(bucket));
        return v == null ? null : ArchivePointer.decode(v);
    }

    @Override
    public void putArchivePointer(int bucket, ArchivePointer pointer) {
        putSystem(ReplicasetState.archivePointerKey(bucket), pointer.encode());
    }

    /** Notes (or forgets) in this entry's batch that {@code bucket} was adopted archived and owes an eager restore. */
    void markAdopted(int bucket, boolean adopted) {
        putSystem(ReplicasetState.adoptedKey(bucket), adopted ? new byte[] {1} : null);
    }

    /** Notes (or forgets) in this entry's batch that {@code bucket} was rebuilt from a backup and awaits the doubled-bucket check. */
    void markRebuilt(int bucket, boolean rebuilt) {
        putSystem(ReplicasetState.rebuiltKey(bucket), rebuilt ? new byte[] {1} : null);
    }

    @Override
    public void clearArchivePointer(int bucket) {
        putSystem(ReplicasetState.archivePointerKey(bucket), null);
    }

    /** From RocksDB: FinishArchive, the one caller, is never preceded by a write to its bucket in the same entry. */
    @Override
    public MoveQuery.BucketDigest digest(int bucket) {
        return MoveQueries.digest(bucket, state);
    }

    private static byte[] progressKey(int bucket) {
        return ByteBuffer.allocate(PROGRESS_PREFIX.length + 4).put(PROGRESS_PREFIX).putInt(bucket).array();
    }
}
