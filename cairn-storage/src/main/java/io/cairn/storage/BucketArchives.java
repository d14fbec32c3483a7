package io.cairn.storage;

import io.cairn.archive.ArchiveEntry;
import io.cairn.archive.ArchiveRef;
import io.cairn.archive.BucketArchiveReader;
import io.cairn.archive.BucketArchiver;
import io.cairn.core.BucketRecord;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.move.ArchivePointer;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCommand.*;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveReply;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.rocks.StoreIterator;
import io.cairn.storage.state.ArchivedAccess;
import io.cairn.storage.state.MoveQueries;
import io.cairn.storage.state.ReplicasetState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * The archive tier of one storage node, acting while it leads its replicaset (issue 23, seed 002;
 * docs/archive.md): archives live buckets to the object store and restores them on first access.
 * The decisions are replicated ({@link io.cairn.core.move.ArchiveLedger}); this class does the I/O
 * between them.
 *
 * <p>Archive: BeginArchive (writes held) -> the bucket's keys read here, the leader's applied copy
 * -> one content-addressed object, verified by HEAD -> FinishArchive, which every replica applies only
 * if its copy matches the archive's count and checksum -> the replaced object, if any, deleted. Any
 * failure before FinishArchive cancels and leaves the data where it was; an uploaded object no record
 * names is left for the sweeper (a later step), never deleted on a guess.
 *
 * <p>Restore: single-flight per bucket on a bounded number of workers, at most
 * {@link Settings#maxQueuedRestores} buckets waiting or running (past that, reads get
 * RESTORE_QUEUE_FULL). The object is read and sent through the log in chunks that stay invisible
 * (the bucket is still archived) until FinishRestore checks their sum against what the reader verified
 * at the end of the object. The object is never deleted by a restore.
 */
public final class BucketArchives implements ArchivedAccess, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BucketArchives.class);

    /**
     * @param afterIdle          archive a bucket neither read nor written here for this long (zero: never by itself)
     * @param maxQueuedRestores  buckets restoring or waiting to at once; past it reads are told RESTORE_QUEUE_FULL
     * @param restoreThreads     restores running at once
     * @param chunkKeys          keys per restore log entry
     * @param chunkBytes         bytes per restore log entry
     * @param idleBucketsPerTick buckets archived per idle check at most
     * @param eagerRestore       restore a bucket adopted archived (a move's AdoptArchive, a backup's AdoptBackup) in the
     *                           background as soon as it is served here, rather than on its first access
     */
    public record Settings(Duration afterIdle, int maxQueuedRestores, int restoreThreads, int chunkKeys, int chunkBytes, int idleBucketsPerTick,
                           boolean eagerRestore) {
        public static final int DEFAULT_MAX_QUEUED_RESTORES = 256;
        public static final int DEFAULT_RESTORE_THREADS = 2;

        public Settings {
            if (afterIdle.isNegative()) throw new IllegalArgumentException("archive.afterIdleMs must be >= 0 (0: off), was " + afterIdle.toMillis());
            if (maxQueuedRestores < 1 || maxQueuedRestores > 100_000) {
                throw new IllegalArgumentException("archive.maxQueuedRestores must be 1..100000, was " + maxQueuedRestores);
            }
            if (restoreThreads < 1 || restoreThreads > 64) throw new IllegalArgumentException("archive.restoreThreads must be 1..64, was " + restoreThreads);
            if (chunkKeys < 1 || chunkBytes < 1024) throw new IllegalArgumentException("restore chunks need >= 1 key and >= 1024 bytes");
        }

        public static Settings defaults(Duration afterIdle) {
            return new Settings(afterIdle, DEFAULT_MAX_QUEUED_RESTORES, DEFAULT_RESTORE_THREADS, 1_000, 1 << 20, 16, false);
        }
    }

    /** Counters for metrics and {@code /info}. */
    public record Counts(long archived, long archivedBytes, long restored, long restoredBytes, long archiveFailures,
                         long restoreFailures, long queueFullRefusals, int restoresInFlight) {}

    private final StorageNode node;
    private final String prefix;
    private final BucketArchiver archiver;
    private final Function<MoveCommand, MoveReply> replicate;
    private final Settings settings;
    private final ExecutorService workers;
    private final Map<Integer, CompletableFuture<Boolean>> restores = new ConcurrentHashMap<>();
    private final Map<Integer, Boolean> archiving = new ConcurrentHashMap<>();
    /** The last failure per bucket (restore or archive), for alerts; cleared by a success. */
    private final Map<Integer, String> failures = new ConcurrentHashMap<>();
    /**
     * Buckets adopted archived and waiting for an eager restore (every replica notes them, so a new
     * leader carries on); bounded by the bucket count. Empty unless {@link Settings#eagerRestore}.
     */
    private final java.util.Set<Integer> adoptedToRestore = ConcurrentHashMap.newKeySet();
    /** Rebuilt buckets the doubled-bucket check confirmed while this member leads (cleared at every new leadership). */
    private final Set<Integer> confirmedOwners = ConcurrentHashMap.newKeySet();
    private volatile IntConsumer ownerCheck = bucket -> {};
    private long confirmedAtLeaderSinceMs = -1;
    /** The state and leadership the list was last read from the replicated state for (the leader's tick thread only). */
    private ReplicasetState eagerListOf;
    private long eagerListAtMs = -1;
    private final LongAdder deletedDirectly = new LongAdder();
    private final LongAdder archived = new LongAdder(), archivedBytes = new LongAdder(), restored = new LongAdder(),
            restoredBytes = new LongAdder(), archiveFailures = new LongAdder(), restoreFailures = new LongAdder(), queueFull = new LongAdder();
    private volatile boolean closed;

    /**
     * @param prefix    this replicaset's prefix in the object store (its objects live under it alone)
     * @param replicate proposes one command through the replicaset's log and returns the ledger's reply
     */
    public BucketArchives(StorageNode node, String prefix, BucketArchiver archiver, Function<MoveCommand, MoveReply> replicate, Settings settings) {
        this.node = node;
        this.prefix = prefix;
        this.archiver = archiver;
        this.replicate = replicate;
        this.settings = settings;
        this.workers = Executors.newFixedThreadPool(settings.restoreThreads(), r -> {
            Thread t = new Thread(r, "cairn-restore-" + node.id());
            t.setDaemon(true);
            return t;
        });
        node.onArchivedAccess(this);
    }

    public Settings settings() {
        return settings;
    }

    public Counts counts() {
        return new Counts(archived.sum(), archivedBytes.sum(), restored.sum(), restoredBytes.sum(), archiveFailures.sum(),
                restoreFailures.sum(), queueFull.sum(), restores.size());
    }

    /** Objects this node deleted directly because FLUSHALL emptied their bucket. */
    public long deletedDirectly() {
        return deletedDirectly.sum();
    }

    /** Buckets whose last archive or restore failed, with why (cleared by a later success). */
    public Map<Integer, String> failures() {
        return Map.copyOf(failures);
    }

    @Override
    public Admission requested(int bucket) {
        if (closed || !node.isLeader()) return Admission.NOT_LEADER;
        return restore(bucket) == null ? Admission.QUEUE_FULL : Admission.QUEUED;
    }

    /** FLUSHALL emptied the bucket: its object goes now, on the leader, off the apply thread. */
    @Override
    public void released(int bucket, String objectKey) {
        if (closed || !node.isLeader()) return;
        try {
            workers.execute(() -> {
                deleteReplaced(bucket, objectKey);
                deletedDirectly.increment();
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("replicaset {}: the object {} of flushed bucket {} is left to the sweeper (closing)", node.replicaset().id(), objectKey, bucket);
        }
    }

    /**
     * Whether {@code bucket} was rebuilt from a backup (AdoptRestored) and the doubled-bucket check has not
     * confirmed this copy since this member leads: then it is not restored (it may have moved away since
     * the backup, and its stale data must never be served as writable), and the check is asked for. The
     * request is answered TRYAGAIN meanwhile, as for any restore; a contained copy is never restored.
     */
    public boolean awaitsOwnerCheck(int bucket) {
        ReplicasetState state = node.state();
        if (state == null || confirmedOwners.contains(bucket) || !state.rebuiltFromBackup(bucket)) return false;
        ownerCheck.accept(bucket);
        return true;
    }

    /** The doubled-bucket check found this copy of {@code bucket} the legitimate owner (its leader's driver thread). */
    public void confirmedOwner(int bucket) {
        ReplicasetState state = node.state();
        if (confirmedOwners.add(bucket) && state != null && state.rebuiltFromBackup(bucket)) {
            // debug: a rebuilt replicaset confirms all its buckets at once, and each restore logs its own line
            log.debug("replicaset {}: bucket {}, rebuilt from a backup, is confirmed as its owner (no newer copy elsewhere); its restore can start",
                    node.replicaset().id(), bucket);
        }
    }

    /** Who asks the doubled-bucket check about a rebuilt bucket (set once, at wiring). */
    public void ownerCheck(IntConsumer check) {
        this.ownerCheck = check;
    }

    /** A bucket was adopted archived here: with eager restore on, the leader's next ticks restore it once it is served. */
    @Override
    public void adopted(int bucket) {
        if (settings.eagerRestore() && !closed) adoptedToRestore.add(bucket);
    }

    /** Buckets adopted archived that an eager restore has not started for yet. */
    public java.util.Set<Integer> eagerRestoresPending() {
        return java.util.Set.copyOf(adoptedToRestore);
    }

    /**
     * Starts eager restores of adopted buckets, taking only idle workers: at most {@link Settings#restoreThreads}
     * restores run or wait because of it, so first accesses still find the queue open. A bucket still
     * RECEIVING (its move not activated yet) waits; one no longer archived (restored on access, flushed,
     * moved on) is forgotten.
     */
    private void restoreAdopted(ReplicasetState state) {
        for (Integer bucket : adoptedToRestore) {
            BucketRecord r = state.record(bucket);
            if (r == null || !r.isArchived() || !r.state().isRoutable() && r.state() != io.cairn.core.BucketState.RECEIVING) {
                adoptedToRestore.remove(bucket);
            } else if (r.state().servesWrites() && !r.isCopying()) {
                if (restores.size() >= settings.restoreThreads()) return;
                if (restore(bucket) != null) adoptedToRestore.remove(bucket);
            }
        }
    }

    /**
     * Restores {@code bucket} if it is archived: the running restore when there is one, else a new one,
     * or null when the queue is full. Completes with whether the bucket is served again.
     */
    public CompletableFuture<Boolean> restore(int bucket) {
        CompletableFuture<Boolean> running = restores.get(bucket);
        if (running != null) return running; // the common case while a bucket restores: no lock
        if (awaitsOwnerCheck(bucket)) return CompletableFuture.completedFuture(false);
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        synchronized (restores) { // admission: the bound holds exactly (a few callers per restore, never on a hot path)
            running = restores.get(bucket);
            if (running != null) return running;
            if (restores.size() >= settings.maxQueuedRestores()) {
                queueFull.increment();
                return null;
            }
            restores.put(bucket, mine);
        }
        try {
            workers.execute(() -> {
                try {
                    mine.complete(restoreNow(bucket));
                } catch (RuntimeException e) { // not an expected condition (those are CairnExceptions, handled inside)
                    restoreFailures.increment();
                    failures.put(bucket, "restore: " + e);
                    log.warn("replicaset {}: restore of bucket {} failed unexpectedly; it stays archived", node.replicaset().id(), bucket, e);
                    mine.complete(false);
                } finally {
                    restores.remove(bucket, mine);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) { // closed meanwhile
            restores.remove(bucket, mine);
            mine.complete(false);
        }
        return mine;
    }

    /** Archives {@code bucket} now (on the caller's thread); the pointer recorded, or a CairnException saying why not. */
    public ArchivePointer archive(int bucket) {
        if (!node.isLeader()) throw new CairnException(ErrorCode.NOT_LEADER, "storage node " + node.id() + " does not lead " + node.replicaset().id());
        if (archiving.putIfAbsent(bucket, Boolean.TRUE) != null) {
            throw new CairnException(ErrorCode.BUCKET_LOCKED, "bucket " + bucket + " is being archived already");
        }
        try {
            ArchivePointer p = archiveNow(bucket);
            failures.remove(bucket);
            return p;
        } catch (CairnException e) {
            archiveFailures.increment();
            failures.put(bucket, "archive: " + e.getMessage());
            throw e;
        } finally {
            archiving.remove(bucket);
        }
    }

    private ArchivePointer archiveNow(int bucket) {
        ReplicasetState state = requireState();
        BucketRecord r = state.record(bucket);
        if (r == null || !r.state().servesWrites() || r.isArchived() || r.isCopying()) {
            throw new CairnException(ErrorCode.ILLEGAL_TRANSITION, "bucket " + bucket + " cannot be archived here: " + r);
        }
        long startNs = System.nanoTime();
        MoveReply began = ok(replicate.apply(new BeginArchive(bucket, r.generation())), "begin the archive of bucket " + bucket);
        long generation = began.record().generation();
        try {
            awaitApplied(state, bucket, began.record().bsn());
            Snapshot snapshot = new Snapshot(state.store(), bucket);
            ArchiveRef ref;
            try {
                ref = archiver.archive(prefix, bucket, generation, snapshot);
            } finally {
                snapshot.close();
            }
            ArchivePointer pointer = new ArchivePointer(ref.objectKey(), generation, ref.keyCount(), ref.byteCount(), ref.sizeBytes(), ref.contentHash());
            MoveReply done = ok(replicate.apply(new FinishArchive(bucket, generation, began.record().bsn(), pointer, snapshot.checksum)),
                    "record the archive of bucket " + bucket);
            archived.increment();
            archivedBytes.add(ref.sizeBytes());
            log.info("replicaset {} archived bucket {} ({} keys, {} bytes) to {} in {} ms (writes held meanwhile)", node.replicaset().id(), bucket,
                    ref.keyCount(), ref.sizeBytes(), ref.objectKey(), (System.nanoTime() - startNs) / 1_000_000);
            if (!done.message().isEmpty()) deleteReplaced(bucket, done.message());
            return pointer;
        } catch (CairnException e) {
            cancel(bucket, generation);
            throw e;
        } catch (RuntimeException e) {
            cancel(bucket, generation);
            throw new CairnException(ErrorCode.INTERNAL, "archive of bucket " + bucket + " failed: " + e);
        }
    }

    /** The older object of a bucket archived again: deleted only now that the newer one is recorded (seed 002). */
    private void deleteReplaced(int bucket, String objectKey) {
        try {
            archiver.delete(new ArchiveRef(objectKey, bucket, 0, 0, 0, 0, "-"));
        } catch (CairnException e) {
            log.warn("replicaset {}: the replaced archive {} of bucket {} was not deleted ({}); the sweeper will find it",
                    node.replicaset().id(), objectKey, bucket, e.getMessage());
        }
    }

    private void cancel(int bucket, long generation) {
        try {
            replicate.apply(new CancelArchive(bucket, generation));
        } catch (RuntimeException e) {
            // the next leader's idle check or archive finds the flag and cancels it (recoverStale)
            log.warn("replicaset {}: the archive of bucket {} was not cancelled ({}); writes stay held until a leader cancels it",
                    node.replicaset().id(), bucket, e.getMessage());
        }
    }

    private boolean restoreNow(int bucket) {
        ReplicasetState state = requireState();
        BucketRecord r = state.record(bucket);
        if (r == null || !r.isArchived()) return true;
        if (!r.state().servesWrites()) return false; // moving as its object (SENDING, or received): its new owner restores it
        ArchivePointer p = state.archivePointer(bucket);
        if (p == null) {
            failures.put(bucket, "restore: no archive pointer is recorded");
            restoreFailures.increment();
            return false;
        }
        long startNs = System.nanoTime();
        int seq = 0;
        try (BucketArchiveReader reader = archiver.open(new ArchiveRef(p.objectKey(), bucket, p.generation(), p.keyCount(), p.byteCount(),
                p.sizeBytes(), p.contentHash()))) {
            long keys = 0, checksum = 0;
            List<ChunkEntry> chunk = new ArrayList<>();
            int chunkBytes = 0;
            while (reader.hasNext()) {
                ArchiveEntry e = reader.next();
                ChunkEntry c = new ChunkEntry(e.key(), e.value());
                keys++;
                checksum += c.crc();
                chunk.add(c);
                chunkBytes += c.sizeBytes();
                if (chunk.size() >= settings.chunkKeys() || chunkBytes >= settings.chunkBytes()) {
                    ok(replicate.apply(new RestoreChunk(bucket, r.generation(), seq++, List.copyOf(chunk))), "restore bucket " + bucket);
                    chunk.clear();
                    chunkBytes = 0;
                }
            }
            // hasNext() returned false without throwing: the object was verified to its end (hash, counts)
            ok(replicate.apply(new RestoreChunk(bucket, r.generation(), seq++, List.copyOf(chunk))), "restore bucket " + bucket);
            ok(replicate.apply(new FinishRestore(bucket, r.generation(), keys, checksum)), "finish the restore of bucket " + bucket);
            restored.increment();
            restoredBytes.add(p.sizeBytes());
            failures.remove(bucket);
            log.info("replicaset {} restored bucket {} ({} keys) from {} in {} ms", node.replicaset().id(), bucket, keys, p.objectKey(),
                    (System.nanoTime() - startNs) / 1_000_000);
            return true;
        } catch (CairnException e) {
            restoreFailures.increment();
            failures.put(bucket, "restore: " + e.code() + " " + e.getMessage());
            log.warn("replicaset {}: restore of bucket {} from {} failed: {} {}; it stays archived", node.replicaset().id(), bucket,
                    p.objectKey(), e.code(), e.getMessage());
            if (seq > 0) dropLeftovers(bucket, r.generation());
            return false;
        }
    }

    /** Best effort: the next restore's first chunk drops them anyway. */
    private void dropLeftovers(int bucket, long generation) {
        try {
            replicate.apply(new RestoreChunk(bucket, generation, 0, List.of()));
        } catch (RuntimeException ignored) {
            // the next restore's chunk 0 drops what this one left
        }
    }

    /**
     * The leader's periodic step: cancels archives a former leader left half-done (their flag holds
     * writes) and archives up to {@link Settings#idleBucketsPerTick} buckets idle longer than
     * {@link Settings#afterIdle} (by the last write stamp, the last read here and {@code leaderSinceMs}).
     */
    public int tick(long nowMs, long leaderSinceMs) {
        ReplicasetState state = node.state();
        if (closed || state == null || !node.isLeader()) return 0;
        if (leaderSinceMs != confirmedAtLeaderSinceMs) { // a confirmation from an earlier leadership is not trusted
            confirmedOwners.clear();
            confirmedAtLeaderSinceMs = leaderSinceMs;
        }
        if (settings.eagerRestore() && (state != eagerListOf || leaderSinceMs != eagerListAtMs)) {
            // a new leader, a restarted member or an installed snapshot: the list comes from the replicated state
            adoptedToRestore.addAll(state.adoptedArchived());
            eagerListOf = state;
            eagerListAtMs = leaderSinceMs;
        }
        for (BucketRecord r : state.records()) {
            if (r.has(BucketRecord.FLAG_ARCHIVING) && !archiving.containsKey(r.id())) cancel(r.id(), r.generation());
        }
        if (!adoptedToRestore.isEmpty()) restoreAdopted(state);
        if (settings.afterIdle().isZero()) return 0;
        long idleMs = settings.afterIdle().toMillis();
        int done = 0;
        for (BucketRecord r : new ArrayList<>(state.records())) {
            if (done >= settings.idleBucketsPerTick() || closed) break;
            if (!r.state().servesWrites() || r.isArchivedOrArchiving() || r.isCopying()) continue;
            long lastUse = Math.max(leaderSinceMs, Math.max(state.lastWriteMs(r.id()), state.lastReadMs(r.id())));
            if (nowMs - lastUse < idleMs || state.store().countKeys(r.id()) == 0) continue;
            try {
                archive(r.id());
                done++;
            } catch (CairnException e) {
                log.debug("replicaset {}: idle bucket {} not archived: {}", node.replicaset().id(), r.id(), e.getMessage());
            }
        }
        return done;
    }

    private ReplicasetState requireState() {
        ReplicasetState s = node.state();
        if (s == null || closed) throw new CairnException(ErrorCode.UNAVAILABLE, "storage node " + node.id() + " is closed");
        return s;
    }

    /** The leader answers after its own apply; a leader that just lost its role may lag: wait a little, then give up. */
    private static void awaitApplied(ReplicasetState state, int bucket, long bsn) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (true) {
            BucketRecord r = state.record(bucket);
            if (r != null && r.bsn() == bsn) return;
            if ((r != null && r.bsn() > bsn) || System.nanoTime() > deadline) {
                throw new CairnException(ErrorCode.UNAVAILABLE, "bucket " + bucket + " changed, or this member lags, since its archive began");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }

    private static MoveReply ok(MoveReply reply, String what) {
        if (reply.isOk()) return reply;
        ErrorCode code = reply.outcome() == MoveReply.Outcome.UNAVAILABLE ? ErrorCode.UNAVAILABLE : ErrorCode.ILLEGAL_TRANSITION;
        throw new CairnException(code, "could not " + what + ": " + reply.outcome() + " " + reply.message());
    }

    /** The bucket's keys as the archive stores them (a hash in its move form), with the move's checksum on the side. */
    private static final class Snapshot implements Iterator<ArchiveEntry>, AutoCloseable {
        private final RocksStore store;
        private final int bucket;
        private final StoreIterator it;
        long checksum;
        private boolean closedIt;

        Snapshot(RocksStore store, int bucket) {
            this.store = store;
            this.bucket = bucket;
            this.it = store.newIterator(store.data);
            it.seek(RocksStore.dataKey(bucket, new byte[0]));
        }

        @Override
        public boolean hasNext() {
            if (closedIt) return false;
            if (it.isValid() && RocksStore.bucketOf(it.key()) == bucket) return true;
            close();
            return false;
        }

        @Override
        public void close() {
            if (closedIt) return;
            closedIt = true;
            it.close();
        }

        @Override
        public ArchiveEntry next() {
            if (!hasNext()) throw new NoSuchElementException();
            byte[] key = RocksStore.userKey(it.key());
            byte[] stored = MoveQueries.moveForm(store, bucket, key, it.value());
            it.next();
            checksum += new ChunkEntry(key, stored).crc();
            long expiry = io.cairn.core.kv.StoredValue.expireAtMs(stored);
            return new ArchiveEntry(key, stored, Math.max(ArchiveEntry.NO_EXPIRY, expiry));
        }
    }

    @Override
    public void close() {
        closed = true;
        node.onArchivedAccess(ArchivedAccess.NONE);
        workers.shutdownNow();
    }
}
