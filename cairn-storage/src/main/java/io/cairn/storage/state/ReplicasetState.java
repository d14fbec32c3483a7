package io.cairn.storage.state;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvApplier;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.KvView;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.move.ArchivePointer;
import io.cairn.core.move.BucketLedger;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.DiscoveryCursor;
import io.cairn.core.wire.DiscoveryPage;
import io.cairn.core.wire.StorageRequest;
import io.cairn.core.wire.StorageStats;
import io.cairn.storage.DiscoveryServed;
import io.cairn.storage.StorageConfig;
import io.cairn.storage.rocks.BatchView;
import io.cairn.storage.rocks.ReadOnlyView;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The replicated state of one replicaset member: key-value data, bucket records and the BSN
 * counter, applied entry by entry from the Raft log.
 *
 * <p>Determinism: {@link #apply} reads no clock; "now" is the leader's stamp inside the
 * entry. Every entry becomes one atomic RocksDB WriteBatch that also stores the applied index,
 * so the database is always a consistent prefix of the log.
 *
 * <p>Concurrency: one writer (the Raft apply thread) and many readers (queries). Bucket
 * records are mirrored in a concurrent map; readers of data go straight to RocksDB. A read
 * holds its bucket's read lock from the state check to the last key it reads, and an entry that
 * deletes a bucket's data writes it under the write lock: these are the "read refs" that keep
 * the garbage collector from deleting data under a reader that saw the bucket as readable.
 */
public final class ReplicasetState {
    private final RocksStore store;
    private final KvApplier applier;
    private final Map<Integer, BucketRecord> buckets = new ConcurrentHashMap<>();
    private volatile long lastBsn;
    private volatile long keyCount;
    private volatile long incarnation;
    private volatile boolean bootstrapped;
    private volatile long appliedTerm;
    private volatile long appliedIndex;
    private final ReadWriteLock[] bucketLocks = new ReadWriteLock[64];
    /** Storage refs of map-reduce calls (StorageRefs explains them). */
    private final StorageRefs refs;
    private final BucketHistory history;
    private final MoveTally tally = new MoveTally();
    private final CallReplies callReplies;
    private final BucketStamps stamps;
    /** The stamp of the entry being applied (apply thread only): "now" for the ledger's ref check. */
    private long applyingStampMs;
    /**
     * When each bucket was last read here (the query's clock), for the archive tier's idle check; lossy
     * on purpose (buckets share a slot modulo its size), which can only make a bucket look busier.
     */
    private final AtomicLongArray lastReadMs = new AtomicLongArray(1 << 16);
    /** Told of every request refused because its bucket is archived (the leader restores it). */
    private volatile ArchivedAccess archivedAccess = ArchivedAccess.NONE;

    public ReplicasetState(RocksStore store, int maxValueBytes) {
        this.store = store;
        this.applier = new KvApplier(maxValueBytes);
        for (BucketRecord r : store.allBuckets()) {
            buckets.put(r.id(), r);
            tally.changed(null, r);
        }
        lastBsn = store.getLong(RocksStore.LAST_BSN);
        keyCount = store.getLong(RocksStore.KEY_COUNT);
        incarnation = store.getLong(RocksStore.INCARNATION);
        bootstrapped = store.getLong(RocksStore.BOOTSTRAPPED) != 0;
        appliedTerm = store.getLong(RocksStore.APPLIED_TERM);
        appliedIndex = store.getLong(RocksStore.APPLIED_INDEX);
        for (int i = 0; i < bucketLocks.length; i++) bucketLocks[i] = new ReentrantReadWriteLock();
        refs = StorageRefs.load(store);
        callReplies = new CallReplies(store);
        history = new BucketHistory(store);
        stamps = new BucketStamps(store);
    }

    StorageRefs refs() {
        return refs;
    }

    public void archivedAccess(ArchivedAccess hook) {
        this.archivedAccess = hook;
    }

    private static final byte[] ARCHIVE_POINTER_PREFIX = RocksStore.bytes("archive-pointer/");

    public static byte[] archivePointerKey(int bucket) {
        return ByteBuffer.allocate(ARCHIVE_POINTER_PREFIX.length + 4).put(ARCHIVE_POINTER_PREFIX).putInt(bucket).array();
    }

    private static final byte[] ADOPTED_PREFIX = RocksStore.bytes("adopted-archive/");

    /** Marks a bucket adopted archived (AdoptArchive, AdoptBackup) until it is restored, archived again or dropped. */
    static byte[] adoptedKey(int bucket) {
        return ByteBuffer.allocate(ADOPTED_PREFIX.length + 4).put(ADOPTED_PREFIX).putInt(bucket).array();
    }

    private static final byte[] REBUILT_PREFIX = RocksStore.bytes("rebuilt-unconfirmed/");

    /** Marks a bucket rebuilt from a backup (AdoptRestored) until it is restored, archived again or dropped. */
    static byte[] rebuiltKey(int bucket) {
        return ByteBuffer.allocate(REBUILT_PREFIX.length + 4).put(REBUILT_PREFIX).putInt(bucket).array();
    }

    /** Whether {@code bucket} was rebuilt from a backup and not restored since: its restore waits for the doubled-bucket check. */
    public boolean rebuiltFromBackup(int bucket) {
        return store.get(store.system, rebuiltKey(bucket)) != null;
    }

    /**
     * Buckets adopted archived here and still archived (the eager-restore list, docs/archive.md): read
     * from the replicated state, so a restarted member or one that installed a snapshot knows them too.
     * At most one key per bucket.
     */
    public List<Integer> adoptedArchived() {
        List<Integer> out = new ArrayList<>();
        try (StoreIterator it = store.newIterator(store.system)) {
            for (it.seek(ADOPTED_PREFIX); it.isValid(); it.next()) {
                byte[] key = it.key();
                if (key.length != ADOPTED_PREFIX.length + 4 || !Arrays.equals(key, 0, ADOPTED_PREFIX.length, ADOPTED_PREFIX, 0, ADOPTED_PREFIX.length)) break;
                int bucket = ByteBuffer.wrap(key, ADOPTED_PREFIX.length, 4).getInt();
                BucketRecord r = buckets.get(bucket);
                if (r != null && r.isArchived()) out.add(bucket); // a FLUSHALL may have emptied it since: then nothing is owed
            }
        }
        return out;
    }

    /** The bucket's archive object: the current one while it is archived, else the last one (or null). */
    public ArchivePointer archivePointer(int bucket) {
        byte[] v = store.get(store.system, archivePointerKey(bucket));
        return v == null ? null : ArchivePointer.decode(v);
    }

    /** The read ref of {@code bucket}: held from a reader's state check to its last key (see the class comment). */
    Lock readRef(int bucket) {
        return lockOf(bucket).readLock();
    }

    long keyCount() {
        return keyCount;
    }

    /** The stamp of the entry being applied (apply thread only). */
    long applyingStampMs() {
        return applyingStampMs;
    }

    private static final byte[] QUARANTINED_AT_PREFIX = RocksStore.bytes("quarantined-at/");

    static byte[] quarantinedAtKey(int bucket) {
        return ByteBuffer.allocate(QUARANTINED_AT_PREFIX.length + 4).put(QUARANTINED_AT_PREFIX).putInt(bucket).array();
    }

    /** When {@code bucket}'s copy was quarantined here (the Quarantine entry's stamp), or -1. */
    public long quarantinedAtMs(int bucket) {
        byte[] v = store.get(store.system, quarantinedAtKey(bucket));
        return v == null ? -1 : ByteBuffer.wrap(v).getLong();
    }

    /** The disk this member's copy of the replicated state records for {@code node} (see {@link DiskRecords}), or null. */
    public String recordedDisk(String node) {
        return DiskRecords.recorded(store, node);
    }

    /** The leader stamp of the last entry that wrote to {@code bucket}, or -1 when none since this was tracked. */
    public long lastWriteMs(int bucket) {
        BucketStamps.Stamp stamp = stamps.of(bucket);
        return stamp == null ? -1 : stamp.ms();
    }

    /** When {@code bucket} was last read on this member (0: not since it started); may be later than the truth, never earlier. */
    public long lastReadMs(int bucket) {
        return lastReadMs.get(bucket & (lastReadMs.length() - 1));
    }

    /** Whether storage refs keep buckets from leaving, at the stamp of the entry being applied. */
    boolean mapReduceRefsHeld() {
        return refs.blockMoves(applyingStampMs);
    }

    private ReadWriteLock lockOf(int bucket) {
        return bucketLocks[Math.floorMod(bucket, bucketLocks.length)];
    }

    public BucketRecord record(int bucket) {
        return buckets.get(bucket);
    }

    private boolean marksChanges(int bucket) {
        BucketRecord r = buckets.get(bucket);
        return r != null && r.marksChanges();
    }

    /** The rebalancer's status of this replicaset, without a walk over the records. */
    MoveQuery.MoveStatus moveStatus(int maxCandidates) {
        return tally.status(maxCandidates);
    }

    public Collection<BucketRecord> records() {
        return buckets.values();
    }

    public long appliedTerm() {
        return appliedTerm;
    }

    public long appliedIndex() {
        return appliedIndex;
    }

    public RocksStore store() {
        return store;
    }

    /** Applies one committed log entry; returns the encoded reply for the client. */
    public byte[] apply(ByteBuffer entry, long term, long index) {
        try (WriteBatch batch = new WriteBatch()) {
            byte[] reply;
            StorageRequest.Kind kind = StorageRequest.kindOf(entry);
            long stampMs = entry.getLong(StorageRequest.STAMP_OFFSET);
            if (incarnation == 0 && stampMs != 0) {
                // The first entry of a new replicaset fixes its incarnation, the same on every replica.
                incarnation = Math.max(1, (stampMs << 12) ^ index);
                putLong(batch, RocksStore.INCARNATION, incarnation);
            }
            entry.position(1 + 8);
            applyingStampMs = stampMs;
            BatchView view = new BatchView(store, batch, this::marksChanges);
            reply = kind == StorageRequest.Kind.ONCE ? applyOnce(entry, batch, view, stampMs) : applyKind(kind, entry, batch, view, stampMs);
            if (!view.stamped().isEmpty()) stamps.record(batch, view.stamped(), stampMs, index);
            putLong(batch, RocksStore.APPLIED_TERM, term);
            putLong(batch, RocksStore.APPLIED_INDEX, index);
            writeLockingDroppedBuckets(batch, view);
            appliedTerm = term;
            appliedIndex = index;
            return reply;
        }
    }

    /** Applies the body of an entry of {@code kind} (positioned after its stamp) into {@code batch}. */
    private byte[] applyKind(StorageRequest.Kind kind, ByteBuffer entry, WriteBatch batch, BatchView view, long stampMs) {
        return switch (kind) {
            case WRITE -> applyWrites(OpCodec.readOps(entry), view, stampMs);
            case BOOTSTRAP -> applyBootstrap(entry.getInt(), entry.getInt(), batch);
            case MOVE -> applyMove(entry, new MoveLedgerStore(this, batch, view));
            case MOVE_BATCH -> applyMoveBatch(entry, new MoveLedgerStore(this, batch, view));
            case REF -> OpCodec.encodeResults(List.of(refs.take(entry.getLong(), entry.getLong(), stampMs, buckets.values(), batch)));
            case UNREF -> OpCodec.encodeResults(List.of(refs.release(entry.getLong(), stampMs, batch)));
            case FLUSH -> applyFlush(entry.getLong(), stampMs, view, batch);
            case COLLECT -> applyCollect(entry, batch, stampMs);
            case DISK -> DiskRecords.apply(store, entry, batch);
            default -> OpCodec.encodeResults(List.of(OpResult.error(ErrorCode.PROTOCOL, "not a log entry: " + kind)));
        };
    }

    /**
     * A ONCE entry: the entry it wraps is applied (with the ONCE entry's stamp) unless its
     * (client, call) was applied before, in which case the first reply is returned again.
     */
    private byte[] applyOnce(ByteBuffer entry, WriteBatch batch, BatchView view, long stampMs) {
        UUID client = new UUID(entry.getLong(), entry.getLong());
        long callId = entry.getLong();
        byte[] reply = callReplies.replyOf(client, callId);
        if (reply == null) {
            StorageRequest.Kind inner = StorageRequest.kindAt(entry.get());
            entry.getLong(); // the wrapped entry's own stamp: the ONCE entry's is the leader's
            reply = inner == StorageRequest.Kind.ONCE
                    ? OpCodec.encodeResults(List.of(OpResult.error(ErrorCode.PROTOCOL, "ONCE inside ONCE")))
                    : applyKind(inner, entry, batch, view, stampMs);
            callReplies.record(batch, client, callId, stampMs, reply);
        }
        callReplies.collect(batch, stampMs);
        return reply;
    }

    /** Records that an entry carrying no state change was applied (e.g. a leader's no-op). */
    public void markApplied(long term, long index) {
        try (WriteBatch batch = new WriteBatch()) {
            putLong(batch, RocksStore.APPLIED_TERM, term);
            putLong(batch, RocksStore.APPLIED_INDEX, index);
            store.write(batch);
            appliedTerm = term;
            appliedIndex = index;
        }
    }

    private byte[] applyWrites(List<KvOp> ops, BatchView view, long nowMs) {
        List<OpResult> results = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) {
            KvOp op = ops.get(i);
            OpResult refusal = refusal(op);
            if (op.type() == KvOp.Type.TX_GUARD && refusal == null && !guardHolds(op, view.stamped())) {
                // A watched bucket was written since WATCH: the transaction's operations are skipped, each answered nil.
                int skipped = Math.min(KvOp.txGuarded(op), ops.size() - i - 1);
                for (int j = 0; j <= skipped; j++) results.add(OpResult.NIL);
                i += skipped;
                continue;
            }
            OpResult result = refusal != null ? refusal
                    : op.type() == KvOp.Type.TX_GUARD ? OpResult.OK
                    : op.type() == KvOp.Type.BUCKET_VERSION ? OpResult.integer(bucketVersion(op.bucket()))
                    : applier.apply(op, view, nowMs);
            results.add(result);
            if (op.type() == KvOp.Type.DEL_IF_EXPIRED && !result.isError() && result.number() == 1) expiredKeys.increment();
            // the entry's stamp dates the bucket's copy (doubled buckets) and versions it for WATCH
            if (!op.readOnly() && !result.isError() && op.type() != KvOp.Type.TX_GUARD) view.stampLastWrite(op.bucket());
        }
        return OpCodec.encodeResults(results);
    }

    /** Whether the guarded bucket is still at the version its EXEC was watching (nothing earlier in this entry wrote it either). */
    private boolean guardHolds(KvOp guard, Set<Integer> writtenInThisEntry) {
        return !writtenInThisEntry.contains(guard.bucket()) && bucketVersion(guard.bucket()) == guard.arg();
    }

    /**
     * The version of {@code bucket} on this replicaset (WATCH): the index of the last entry that wrote to it,
     * mixed with the replicaset's incarnation so that the same index on another replicaset (the bucket moved
     * since) never matches. The same on every replica at the same applied index.
     */
    long bucketVersion(int bucket) {
        BucketStamps.Stamp stamp = stamps.of(bucket);
        return Long.rotateLeft(incarnation, 29) ^ (stamp == null ? 0 : stamp.index());
    }

    private byte[] applyMove(ByteBuffer entry, MoveLedgerStore ledgerStore) {
        MoveCommand command = MoveCodec.decodeCommand(entry);
        MoveReply reply = BucketLedger.apply(command, ledgerStore);
        if (command.takesTurnsWithRefs()) {
            if (reply.isOk()) refs.moveStarted(ledgerStore.batch());
            else if (reply.refusedByRefs()) refs.moveRefused(applyingStampMs, ledgerStore.batch());
        }
        boolean adopts = command instanceof MoveCommand.AdoptArchive || command instanceof MoveCommand.AdoptBackup;
        boolean accepted = reply.isOk() || reply.outcome() == MoveReply.Outcome.COMPLETE;
        if (adopts && accepted && reply.record() != null && reply.record().isArchived()) {
            ledgerStore.markAdopted(command.bucket(), true); // replicated, so eager restore survives restarts and snapshots
            archivedAccess.adopted(command.bucket());
        } else if (command instanceof MoveCommand.AdoptRestored && reply.isOk() && reply.record().state().servesWrites()) {
            ledgerStore.markRebuilt(command.bucket(), true); // restored only once the doubled-bucket check confirms this copy
        } else if (accepted && endsAdoption(command)) {
            ledgerStore.markAdopted(command.bucket(), false);
            ledgerStore.markRebuilt(command.bucket(), false);
        }
        return MoveCodec.encode(reply);
    }

    /** A restore that served the bucket, a new archive of it, or its data dropped after a move: no eager restore is owed any more. */
    private static boolean endsAdoption(MoveCommand command) {
        return command instanceof MoveCommand.FinishRestore || command instanceof MoveCommand.FinishArchive || command instanceof MoveCommand.DropData;
    }

    /** Several move commands, applied in order into the same batch, each seeing what the earlier ones wrote, as if each were its own entry. */
    private byte[] applyMoveBatch(ByteBuffer entry, MoveLedgerStore ledgerStore) {
        int n = entry.getInt();
        OpCodec.checkCount(n, entry);
        List<byte[]> replies = new ArrayList<>(n);
        for (int i = 0; i < n; i++) replies.add(applyMove(entry, ledgerStore));
        return StorageRequest.moveBatchReplies(replies);
    }

    /** FLUSHALL on this replicaset, under storage ref {@code refId}: deletes every key of the buckets it serves. */
    private byte[] applyFlush(long refId, long stampMs, BatchView view, WriteBatch batch) {
        if (!refs.held(refId, stampMs)) {
            return OpCodec.encodeResults(List.of(OpResult.error(ErrorCode.REF_NOT_HELD, "storage ref " + refId + " is not held")));
        }
        for (BucketRecord r : new TreeMap<>(buckets).values()) {
            // A contained doubled copy refuses writes, FLUSHALL included: its data stays for the operator to compare and export.
            boolean flushable = r.state().isRoutable() && r.state() != BucketState.READONLY;
            if (flushable && (r.flags() & BucketRecord.FLAG_DATA_DROPPED) == 0) {
                view.dropBucket(r.id());
                view.stampLastWrite(r.id()); // a flush changes every watched key
            }
            // An archived bucket is emptied by forgetting its archive (never restored again: no resurrection);
            // one being archived loses its archive in progress (its FinishArchive finds the record changed).
            if (flushable && r.isArchivedOrArchiving()) {
                putWithNextBsn(batch, new BucketRecord(r.id(), r.state(), r.generation(), 0, r.peer(),
                        r.flags() & ~(BucketRecord.FLAG_ARCHIVED | BucketRecord.FLAG_ARCHIVING)));
            }
            if (flushable) releaseArchive(batch, r.id());
        }
        return OpCodec.encodeResults(List.of(OpResult.integer(-view.keyCountDelta())));
    }

    /** Forgets an emptied bucket's archive object (current or last) and has the leader delete it: its contents are gone. */
    private void releaseArchive(WriteBatch batch, int bucket) {
        ArchivePointer p = archivePointer(bucket);
        if (p == null) return;
        try {
            batch.delete(store.system, archivePointerKey(bucket));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch write failed", e);
        }
        archivedAccess.released(bucket, p.objectKey());
    }

    private void writeLockingDroppedBuckets(WriteBatch batch, BatchView view) {
        if (view.keyCountDelta() != 0) {
            keyCount += view.keyCountDelta();
            putLong(batch, RocksStore.KEY_COUNT, keyCount);
        }
        List<Lock> held = new ArrayList<>();
        for (int bucket : new TreeSet<>(view.droppedBuckets())) {
            Lock l = lockOf(bucket).writeLock();
            if (held.contains(l)) continue;
            l.lock();
            held.add(l);
        }
        try {
            store.write(batch);
            stamps.written();
        } finally {
            held.forEach(Lock::unlock);
        }
    }

    /** Stores {@code r} under the replicaset's next BSN (every change of a record takes one). */
    BucketRecord putWithNextBsn(WriteBatch batch, BucketRecord r) {
        BucketRecord numbered = new BucketRecord(r.id(), r.state(), r.generation(), ++lastBsn, r.peer(), r.flags());
        putRecord(batch, numbered);
        putLong(batch, RocksStore.LAST_BSN, lastBsn);
        return numbered;
    }

    /**
     * COLLECT: deletes the listed tombstones whose BSN is below the bound (anything that changed
     * since the leader chose them is left alone) and whose change is older than the entry's stamp by
     * the retention (at least {@link StorageConfig#MIN_TOMBSTONE_RETENTION_MS}), then raises the horizon
     * to the highest collected. The age is judged here from replicated stamps, not by the leader's
     * choice alone; an entry written before it carried a retention is applied as it was then.
     */
    private byte[] applyCollect(ByteBuffer entry, WriteBatch batch, long stampMs) {
        long belowBsn = entry.getLong();
        int n = entry.getInt();
        OpCodec.checkCount(n, entry);
        int[] listed = new int[n];
        for (int i = 0; i < n; i++) listed[i] = entry.getInt();
        long bornBefore = entry.remaining() >= 8 ? stampMs - Math.max(entry.getLong(), StorageConfig.MIN_TOMBSTONE_RETENTION_MS) : Long.MAX_VALUE;
        long highest = 0;
        int collected = 0;
        for (int bucket : listed) {
            BucketRecord r = buckets.get(bucket);
            if (r == null || !BucketHistory.collectable(r) || r.bsn() >= belowBsn || history.stampAt(r.bsn()) > bornBefore) continue;
            try {
                batch.delete(store.buckets, RocksStore.bucketKey(r.id()));
                batch.delete(store.bsnIndex, RocksStore.longKey(r.bsn()));
            } catch (RocksDBException e) {
                throw new RocksStore.StorageFailure("batch delete failed", e);
            }
            buckets.remove(r.id());
            tally.changed(r, null);
            highest = Math.max(highest, r.bsn());
            collected++;
        }
        history.collected(batch, highest);
        return OpCodec.encodeResults(List.of(OpResult.integer(collected)));
    }

    /** Leader side: tombstones older than {@code cutoffStampMs}, oldest first, at most {@code limit}. */
    public List<BucketRecord> expiredTombstones(long cutoffStampMs, int limit) {
        return history.expiredTombstones(buckets.values(), cutoffStampMs, limit);
    }

    public long horizonBsn() {
        return history.horizonBsn();
    }

    private byte[] applyBootstrap(int first, int last, WriteBatch batch) {
        if (bootstrapped) return OpCodec.encodeResults(List.of(OpResult.integer(0)));
        int created = 0;
        for (int id = first; id <= last; id++) {
            if (buckets.containsKey(id)) continue;
            BucketRecord r = new BucketRecord(id, BucketState.ACTIVE, 1, ++lastBsn, "", 0);
            putRecord(batch, r);
            created++;
        }
        bootstrapped = true;
        putLong(batch, RocksStore.BOOTSTRAPPED, 1);
        putLong(batch, RocksStore.LAST_BSN, lastBsn);
        return OpCodec.encodeResults(List.of(OpResult.integer(created)));
    }

    private void putRecord(WriteBatch batch, BucketRecord r) {
        try {
            BucketRecord old = buckets.get(r.id());
            if (old != null) batch.delete(store.bsnIndex, RocksStore.longKey(old.bsn()));
            byte[] encoded = DiscoveryPage.encodeRecord(r);
            batch.put(store.buckets, RocksStore.bucketKey(r.id()), encoded);
            // The index holds the whole record, so a discovery page is one sequential scan.
            batch.put(store.bsnIndex, RocksStore.longKey(r.bsn()), encoded);
            history.append(batch, r, applyingStampMs);
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
        tally.changed(buckets.put(r.id(), r), r);
    }

    /** Null when this replicaset may apply {@code op} to its bucket, else the error to answer ({@link BucketAdmission}). */
    private OpResult refusal(KvOp op) {
        return BucketAdmission.refusal(op, buckets.get(op.bucket()), archivedAccess);
    }

    /** Answers a read-only request against the current state. */
    public byte[] query(ByteBuffer request, long nowMs) {
        StorageRequest.Kind kind = StorageRequest.kindOf(request);
        request.position(1);
        return switch (kind) {
            case READ -> read(OpCodec.readOps(request), nowMs);
            case DISCOVER -> history.answer(StorageRequest.discoverCursor(request), request.getInt(), incarnation);
            case STATS -> stats().encode();
            case MOVE_QUERY -> MoveQueries.answer(request, this);
            case KEY_QUERY -> KeyQueries.answer(request, this, nowMs);
            case DISK_QUERY -> DiskRecords.query(store, request);
            default -> OpCodec.encodeResults(List.of(OpResult.error(ErrorCode.PROTOCOL, kind + " is not a query")));
        };
    }

    private byte[] read(List<KvOp> ops, long nowMs) {
        KvView direct = new ReadOnlyView(store, null);
        List<OpResult> results = new ArrayList<>(ops.size());
        for (KvOp op : ops) {
            if (!op.readOnly()) {
                results.add(OpResult.error(ErrorCode.PROTOCOL, op.type() + " is not a read"));
                continue;
            }
            lastReadMs.lazySet(op.bucket() & (lastReadMs.length() - 1), nowMs);
            Lock ref = lockOf(op.bucket()).readLock();
            ref.lock();
            try {
                OpResult refusal = refusal(op);
                if (refusal != null) results.add(refusal);
                else if (op.type() == KvOp.Type.BUCKET_VERSION) results.add(OpResult.integer(bucketVersion(op.bucket())));
                else if (KvOp.HASH_TYPES.contains(op.type())) results.add(store.consistent(o -> applyCounted(op, new ReadOnlyView(store, o), nowMs)));
                else results.add(applyCounted(op, direct, nowMs));
            } finally {
                ref.unlock();
            }
        }
        return OpCodec.encodeResults(results);
    }

    /** A read of one key, counted as a keyspace hit or miss as Redis counts its lookups (INFO stats; not replicated state). */
    private OpResult applyCounted(KvOp op, KvView view, long nowMs) {
        if (!KeyspaceLookups.counts(op)) return applier.apply(op, view, nowMs);
        LookupView lookup = new LookupView(view);
        OpResult result = applier.apply(op, lookup, nowMs);
        if (!result.isError() || result.error() == ErrorCode.WRONG_TYPE) {
            if (lookup.foundLive(nowMs)) keyspaceHits.increment();
            else keyspaceMisses.increment();
        }
        return result;
    }

    /** Discovery answers served by this member. */
    public DiscoveryServed discoveryServed() {
        return history.served();
    }

    DiscoveryPage discover(DiscoveryCursor after, int limit) {
        return history.discover(after, limit, incarnation);
    }

    public StorageStats stats() {
        int owned = 0, held = 0;
        for (BucketRecord r : buckets.values()) {
            if (r.state().isOwned()) owned++;
            if (r.isHeld()) held++;
        }
        ExpiryScanner.Tally expiry = expiryTally;
        return new StorageStats(keyCount, owned, lastBsn, appliedIndex, incarnation, bootstrapped, held, expiry.expiringKeys(), expiry.avgTtlMs(),
                keyspaceHits.sum(), keyspaceMisses.sum(), expiredKeys.sum());
    }

    /**
     * INFO stats' keyspace_hits and keyspace_misses (reads this member served) and expired_keys (expired keys its
     * applied entries deleted): since this process started, not replicated state; INFO sums the leaders'.
     */
    private final LongAdder keyspaceHits = new LongAdder();
    private final LongAdder keyspaceMisses = new LongAdder();
    private final LongAdder expiredKeys = new LongAdder();

    /** Keys with a TTL and their average TTL in ms, from the leader's expiry sweeper (not replicated state: INFO only). */
    private volatile ExpiryScanner.Tally expiryTally = new ExpiryScanner.Tally(0, 0);

    public void expiryTally(ExpiryScanner.Tally tally) {
        expiryTally = tally;
    }

    private void putLong(WriteBatch batch, byte[] key, long value) {
        try {
            batch.put(store.system, key, RocksStore.longKey(value));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
    }
}
