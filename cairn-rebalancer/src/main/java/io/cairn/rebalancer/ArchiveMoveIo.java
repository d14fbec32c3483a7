package io.cairn.rebalancer;

import io.cairn.archive.ArchiveRef;
import io.cairn.archive.BucketArchiver;
import io.cairn.archive.StoreThrottle;
import io.cairn.archive.ThrottledObjectStore;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.RetryClass;
import io.cairn.core.move.ArchivePointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The object-store calls of moves of archived buckets, made by the move driver's port
 * ({@link DataPlaneMovePort}): server-side copies to a destination's prefix, the durable check (HEAD)
 * and the source object's deletion. They run on their own small pool, never on the driver thread, nor
 * on a replicaset's Raft thread (a query there must not wait for the store). No bucket data passes
 * through this process: a copy is one CopyObject (a hard link in the folder store) and one HEAD.
 */
public final class ArchiveMoveIo implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ArchiveMoveIo.class);
    /** Calls waiting for the pool at most; past it a call answers "no answer" and the driver tries again later. */
    static final int MAX_QUEUED_CALLS = 1_024;

    private final ThrottledObjectStore store;
    private final BucketArchiver archiver;
    private final Function<String, String> prefixOf;
    private final ExecutorService pool;
    private final LongAdder copies = new LongAdder(), durableChecks = new LongAdder(), missing = new LongAdder(), deletes = new LongAdder();

    /**
     * @param store    the process's throttled store (closed with this)
     * @param prefixOf a replicaset's prefix in the store ({@code archive.prefix}/replicaset)
     * @param threads  store calls at once
     */
    public ArchiveMoveIo(ThrottledObjectStore store, Path stagingDir, Function<String, String> prefixOf, int threads) {
        this.store = store;
        this.archiver = new BucketArchiver(store, stagingDir);
        this.prefixOf = prefixOf;
        this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(MAX_QUEUED_CALLS), r -> {
            Thread t = new Thread(r, "cairn-archive-moves");
            t.setDaemon(true);
            return t;
        });
    }

    /** The throttle of the store this uses (its rates change at run time: {@code cairn config set archive.bytesPerSecond}). */
    public StoreThrottle throttle() {
        return store.throttle();
    }

    /** Counters for the mover's progress and metrics. */
    /** {@code bytesRead}/{@code bytesWritten}: object bytes through this process (a server-side copy moves none). */
    public record Counts(long copies, long durableChecks, long missingObjects, long deletes, long bytesRead, long bytesWritten) {}

    public Counts counts() {
        return new Counts(copies.sum(), durableChecks.sum(), missing.sum(), deletes.sum(), store.bytesRead(), store.bytesWritten());
    }

    /** The copy's pointer at {@code destination}, or a CairnException: OBJECT_NOT_FOUND, ARCHIVE_CORRUPT (final), or the store unavailable. */
    void copy(ArchivePointer source, int bucket, String destination, Consumer<Result<ArchivePointer>> done) {
        run(done, () -> {
            ArchiveRef copied = archiver.copyTo(ref(source, bucket), prefixOf.apply(destination));
            copies.increment();
            return new ArchivePointer(copied.objectKey(), source.generation(), source.keyCount(), source.byteCount(), source.sizeBytes(),
                    source.contentHash());
        });
    }

    /** Whether the object answers HEAD with the recorded size and hash. */
    void isDurable(ArchivePointer pointer, int bucket, Consumer<Result<Boolean>> done) {
        run(done, () -> {
            durableChecks.increment();
            boolean there = archiver.isDurable(ref(pointer, bucket));
            if (!there) missing.increment();
            return there;
        });
    }

    /** Best effort: an object left behind is the sweeper's. */
    void delete(String objectKey) {
        run(r -> {
            if (r.failure() != null) log.warn("the archive object {} of a moved bucket was not deleted ({}); the sweeper will find it", objectKey,
                    r.failure().getMessage());
        }, () -> {
            archiver.delete(new ArchiveRef(objectKey, 1, 0, 0, 0, 0, "-"));
            deletes.increment();
            return Boolean.TRUE;
        });
    }

    /** A value or the store's refusal; {@code retryable} when asking again later may succeed. */
    record Result<T>(T value, CairnException failure) {
        boolean retryable() {
            return failure != null && failure.code().retry != RetryClass.FATAL;
        }
    }

    private <T> void run(Consumer<Result<T>> done, Supplier<T> call) {
        try {
            pool.execute(() -> {
                Result<T> r;
                try {
                    r = new Result<>(call.get(), null);
                } catch (CairnException e) {
                    r = new Result<>(null, e);
                } catch (RuntimeException e) {
                    r = new Result<>(null, new CairnException(ErrorCode.OBJECT_STORE_UNAVAILABLE, e.toString()));
                }
                done.accept(r);
            });
        } catch (RejectedExecutionException e) {
            done.accept(new Result<>(null, new CairnException(ErrorCode.OBJECT_STORE_UNAVAILABLE, "too many archive calls queued")));
        }
    }

    private static ArchiveRef ref(ArchivePointer p, int bucket) {
        return new ArchiveRef(p.objectKey(), bucket, p.generation(), p.keyCount(), p.byteCount(), p.sizeBytes(), p.contentHash());
    }

    @Override
    public void close() {
        pool.shutdownNow();
        try {
            store.close();
        } catch (RuntimeException e) {
            log.debug("archive store closed with {}", e.toString());
        }
    }
}
