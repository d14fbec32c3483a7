package io.cairn.storage.raft;

import io.cairn.replication.ReplicaStateMachine;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.state.ArchivedAccess;
import io.cairn.storage.state.MoveQueries;
import io.cairn.storage.state.ReplicasetState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * A replicaset member's state behind the replication port ({@code cairn-replication}): the same
 * {@link ReplicasetState} that {@link StorageStateMachine} drives for Ratis, with the engine's
 * calls mapped onto it ({@link MicroRaftEngine}).
 *
 * <p>The database writes every applied entry with its index in the same batch, so after a crash
 * it may be ahead of the engine's latest snapshot: entries at or below its applied index are
 * already in it and are skipped when the engine replays them.
 */
final class ReplicasetStateMachine implements ReplicaStateMachine, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReplicasetStateMachine.class);
    private static final byte[] REPLAYED = new byte[0];

    private final Path dbDir;
    private final int maxValueBytes;
    private final LongSupplier clock;
    private volatile ReplicasetState state;
    private final AtomicLong snapshotInstalls = new AtomicLong();
    private volatile Consumer<List<Integer>> verifyRequests = b -> { };

    ReplicasetStateMachine(Path dbDir, int maxValueBytes, LongSupplier clock) throws IOException {
        this.dbDir = dbDir;
        this.maxValueBytes = maxValueBytes;
        this.clock = clock;
        this.state = new ReplicasetState(new RocksStore(dbDir), maxValueBytes);
    }

    ReplicasetState state() {
        return state;
    }

    @Override
    public byte[] apply(long index, long term, ByteBuffer command) {
        ReplicasetState s = state;
        if (index <= s.appliedIndex()) return REPLAYED;
        return s.apply(command, term, index);
    }

    /** Receives the buckets of every Verify query this member answers (a router asking to check suspected doubles). */
    void onVerifyRequest(Consumer<List<Integer>> hook) {
        this.verifyRequests = hook;
    }

    private volatile ArchivedAccess archivedAccess = ArchivedAccess.NONE;

    /** Told of requests refused because their bucket is archived; kept across snapshot installs. */
    void onArchivedAccess(ArchivedAccess hook) {
        this.archivedAccess = hook;
        state.archivedAccess(hook);
    }

    long snapshotInstalls() {
        return snapshotInstalls.get();
    }

    @Override
    public byte[] query(ByteBuffer query) {
        List<Integer> verify = MoveQueries.verifyRequest(query);
        if (verify != null) verifyRequests.accept(verify);
        return state.query(query, clock.getAsLong());
    }

    @Override
    public long appliedIndex() {
        return state.appliedIndex();
    }

    @Override
    public List<Path> checkpoint(Path dir, long index) throws IOException {
        // entries since the last apply (membership changes) changed nothing: the state is the state at index
        if (state.appliedIndex() < index) state.markApplied(state.appliedTerm(), index);
        // RocksDB creates the checkpoint's folder itself and refuses one that exists.
        Files.deleteIfExists(dir);
        state.store().checkpoint(dir);
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(dir::relativize).sorted().toList();
        }
    }

    @Override
    public void restore(Path dir, long index) throws IOException {
        ReplicasetState old = state;
        old.store().close();
        CheckpointStorage.replaceDatabase(dbDir, dir);
        ReplicasetState restored = new ReplicasetState(new RocksStore(dbDir), maxValueBytes);
        restored.archivedAccess(archivedAccess);
        state = restored;
        if (restored.appliedIndex() != index) {
            throw new IOException("the checkpoint in " + dir + " is at index " + restored.appliedIndex() + ", not " + index);
        }
        snapshotInstalls.incrementAndGet();
        log.info("installed a snapshot at index {} from the leader", index);
    }

    @Override
    public void close() {
        state.store().close();
    }
}
