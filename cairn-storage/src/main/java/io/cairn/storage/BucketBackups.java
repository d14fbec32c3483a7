package io.cairn.storage;

import io.cairn.archive.ArchiveEntry;
import io.cairn.archive.ArchiveRef;
import io.cairn.archive.BucketArchiver;
import io.cairn.core.BucketRecord;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.CollectionMeta;
import io.cairn.core.kv.StoredValue;
import io.cairn.core.move.ArchivePointer;
import io.cairn.core.move.MoveCommand.AdoptBackup;
import io.cairn.core.move.MoveCommand.AdoptRestored;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.DiscoveryPage;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;
import io.cairn.storage.state.ReplicasetState;
import org.rocksdb.ReadOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * Backup and restore of one replicaset's buckets, on its leader (issue 23 item 6; docs/archive.md,
 * "Backup and restore"). The cluster-wide driver (cairn-server's ClusterBackup) calls these per bucket.
 *
 * <p><b>Backup without holding writes.</b> A live bucket is read under one RocksDB snapshot taken on
 * the leader's applied state: its record, its keys and every hash field come from the same point of
 * the replicated log, so the object is the bucket exactly as it was at one generation and one applied
 * index, while writes keep landing (they are simply not in it). Unlike an archive nothing is dropped
 * afterwards, so nothing needs the ARCHIVING write lock: the lock exists in archive only so that
 * FinishArchive can prove the replicas' copies equal the object before dropping them. An archived
 * bucket is backed up by a server-side copy of its object (no bytes through this node).
 *
 * <p><b>Restore never overwrites.</b> {@link #adoptBackup} copies the backup's object into this
 * replicaset's prefix and replicates {@link AdoptBackup}, which the ledger applies only to an empty,
 * unarchived bucket owned here. The bucket keeps owner, state and generation (so no second writer can
 * appear) and is restored on first access like any archived bucket.
 */
public final class BucketBackups {
    private static final Logger log = LoggerFactory.getLogger(BucketBackups.class);

    private final StorageNode node;
    private final String prefix;
    private final BucketArchiver archiver;
    private final Function<MoveCommand, MoveReply> replicate;

    /**
     * @param prefix    this replicaset's prefix in the object store (where adopted objects go)
     * @param archiver  over the process's throttled store: backups obey the store's rates
     * @param replicate proposes one command through the replicaset's log and returns the ledger's reply
     */
    public BucketBackups(StorageNode node, String prefix, BucketArchiver archiver, Function<MoveCommand, MoveReply> replicate) {
        this.node = node;
        this.prefix = prefix;
        this.archiver = archiver;
        this.replicate = replicate;
    }

    /**
     * Writes {@code bucket} as an archive object under {@code backupPrefix}, verified by HEAD.
     *
     * @throws CairnException WRONG_BUCKET when this replicaset does not own the bucket (the caller asks
     *                        another), NOT_LEADER on a follower, or a store error
     */
    public ArchiveRef backup(int bucket, String backupPrefix) {
        ReplicasetState state = leaderState();
        RocksStore store = state.store();
        return store.consistent(options -> {
            byte[] v = store.get(store.buckets, RocksStore.bucketKey(bucket), options);
            BucketRecord r = v == null ? null : DiscoveryPage.decodeRecord(ByteBuffer.wrap(v));
            if (r == null || !r.state().servesWrites()) {
                throw new CairnException(ErrorCode.WRONG_BUCKET, "replicaset " + node.replicaset().id() + " does not own bucket " + bucket);
            }
            if (r.isArchived()) {
                byte[] p = store.get(store.system, ReplicasetState.archivePointerKey(bucket), options);
                if (p == null) throw new CairnException(ErrorCode.ARCHIVE_CORRUPT, "archived bucket " + bucket + " has no archive pointer");
                return archiver.copyTo(ref(bucket, ArchivePointer.decode(p)), backupPrefix);
            }
            try (SnapshotEntries entries = new SnapshotEntries(store, bucket, options)) {
                return archiver.archive(backupPrefix, bucket, r.generation(), entries);
            }
        });
    }

    /**
     * Copies a backup's object into this replicaset's prefix and records it as the data of the empty
     * {@code bucket} owned here; the recorded pointer.
     *
     * @throws CairnException WRONG_BUCKET when not owned here; ILLEGAL_TRANSITION when the bucket holds
     *                        keys or an archive (nothing is changed); a store error
     */
    public ArchivePointer adoptBackup(int bucket, ArchiveRef backupObject) {
        ReplicasetState state = leaderState();
        BucketRecord r = state.record(bucket);
        if (r == null || !r.state().servesWrites()) {
            throw new CairnException(ErrorCode.WRONG_BUCKET, "replicaset " + node.replicaset().id() + " does not own bucket " + bucket);
        }
        if (r.isArchivedOrArchiving() || state.store().countKeys(bucket) > 0) { // checked again in the ledger, on every replica
            throw new CairnException(ErrorCode.ILLEGAL_TRANSITION, "bucket " + bucket + " on " + node.replicaset().id()
                    + " is not empty; a backup is restored only into an empty cluster");
        }
        ArchiveRef copied = archiver.copyTo(backupObject, prefix);
        ArchivePointer pointer = new ArchivePointer(copied.objectKey(), copied.generation(), copied.keyCount(), copied.byteCount(),
                copied.sizeBytes(), copied.contentHash());
        MoveReply reply = replicate.apply(new AdoptBackup(bucket, r.generation(), pointer));
        if (!reply.isOk()) {
            // the copy in our prefix is named by no record: the sweeper removes it after its age guard
            ErrorCode code = reply.outcome() == MoveReply.Outcome.UNAVAILABLE ? ErrorCode.UNAVAILABLE : ErrorCode.ILLEGAL_TRANSITION;
            throw new CairnException(code, "bucket " + bucket + " not adopted: " + reply.outcome() + " " + reply.message());
        }
        log.debug("replicaset {} adopted bucket {} from backup object {}", node.replicaset().id(), bucket, backupObject.objectKey());
        return pointer;
    }

    /**
     * Rebuilds {@code bucket} on this wiped replicaset from a backup's object: copied into this
     * replicaset's prefix, then {@link AdoptRestored} at the backup's generation (ACTIVE and archived).
     * Only where this replicaset holds no record of the bucket; a bucket that moved away since the
     * backup is then held twice and the doubled-bucket check contains this copy.
     *
     * @throws CairnException ILLEGAL_TRANSITION when a record of the bucket exists here (nothing is
     *                        changed); a store error
     */
    public ArchivePointer adoptRestored(int bucket, ArchiveRef backupObject) {
        ReplicasetState state = leaderState();
        BucketRecord r = state.record(bucket);
        ArchivePointer had = state.archivePointer(bucket);
        if (r != null && r.generation() == backupObject.generation() && had != null && had.contentHash().equals(backupObject.contentHash())) {
            return had; // rebuilt by an earlier run of the same restore (contained since, perhaps)
        }
        if (r != null) { // checked again in the ledger, on every replica
            throw new CairnException(ErrorCode.ILLEGAL_TRANSITION, "replicaset " + node.replicaset().id() + " holds bucket " + bucket
                    + " already (" + r.state() + " at generation " + r.generation() + "); a backup rebuilds only a wiped replicaset");
        }
        ArchiveRef copied = archiver.copyTo(backupObject, prefix);
        ArchivePointer pointer = new ArchivePointer(copied.objectKey(), copied.generation(), copied.keyCount(), copied.byteCount(),
                copied.sizeBytes(), copied.contentHash());
        MoveReply reply = replicate.apply(new AdoptRestored(bucket, backupObject.generation(), pointer));
        if (!reply.isOk()) {
            ErrorCode code = reply.outcome() == MoveReply.Outcome.UNAVAILABLE ? ErrorCode.UNAVAILABLE : ErrorCode.ILLEGAL_TRANSITION;
            throw new CairnException(code, "bucket " + bucket + " not rebuilt: " + reply.outcome() + " " + reply.message());
        }
        return pointer;
    }

    static ArchiveRef ref(int bucket, ArchivePointer p) {
        return new ArchiveRef(p.objectKey(), bucket, p.generation(), p.keyCount(), p.byteCount(), p.sizeBytes(), p.contentHash());
    }

    private ReplicasetState leaderState() {
        ReplicasetState s = node.state();
        if (s == null) throw new CairnException(ErrorCode.UNAVAILABLE, "storage node " + node.id() + " is closed");
        if (!node.isLeader()) throw new CairnException(ErrorCode.NOT_LEADER, "storage node " + node.id() + " does not lead " + node.replicaset().id());
        return s;
    }

    /** The bucket's keys as an archive stores them (a hash in its move form), all read at one snapshot. */
    private static final class SnapshotEntries implements Iterator<ArchiveEntry>, AutoCloseable {
        private final RocksStore store;
        private final int bucket;
        private final ReadOptions options;
        private final StoreIterator it;
        private boolean done;

        SnapshotEntries(RocksStore store, int bucket, ReadOptions options) {
            this.store = store;
            this.bucket = bucket;
            this.options = options;
            this.it = store.newIterator(store.data, options);
            it.seek(RocksStore.dataKey(bucket, new byte[0]));
        }

        @Override
        public boolean hasNext() {
            if (done) return false;
            if (it.isValid() && RocksStore.bucketOf(it.key()) == bucket) return true;
            close();
            return false;
        }

        /** Before the snapshot is released, also when the upload failed half-way. */
        @Override
        public void close() {
            if (done) return;
            done = true;
            it.close();
        }

        @Override
        public ArchiveEntry next() {
            if (!hasNext()) throw new NoSuchElementException();
            byte[] key = RocksStore.userKey(it.key());
            byte[] stored = it.value();
            if (CollectionMeta.isCollection(stored)) stored = CollectionMeta.packForMove(stored, store.fields(bucket, key, options));
            it.next();
            return new ArchiveEntry(key, stored, Math.max(ArchiveEntry.NO_EXPIRY, StoredValue.expireAtMs(stored)));
        }
    }
}
