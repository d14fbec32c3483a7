package io.cairn.storage.raft;

import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.rocks.RocksStore;
import io.cairn.storage.state.ArchivedAccess;
import io.cairn.storage.state.MoveQueries;
import io.cairn.storage.state.ReplicasetState;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.protocol.exceptions.StaleReadException;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Ratis adapter of a replicaset member: decodes entries and queries and hands them to
 * {@link ReplicasetState}. The leader stamps its clock into write entries in
 * {@link #startTransaction}, which is how expiry is "decided by the leader and replicated".
 *
 * <p>The live database lives outside Ratis's folder ({@code dbDir}); snapshots are checkpoints
 * inside it. After a snapshot install, {@link #reinitialize} replaces the live database with
 * the received checkpoint.
 */
final class StorageStateMachine extends BaseStateMachine {
    private static final Logger log = LoggerFactory.getLogger(StorageStateMachine.class);

    private final Path dbDir;
    private final int maxValueBytes;
    private final LongSupplier clock;
    private final CheckpointStorage storage = new CheckpointStorage();
    private volatile ReplicasetState state;
    private final AtomicLong snapshotInstalls = new AtomicLong();
    private volatile Supplier<String> dataPlaneEndpoint = () -> "";

    /** Longest a follower may go without hearing from its leader and still answer a follower read. */
    private final long followerReadMaxLagMs;

    StorageStateMachine(Path dbDir, int maxValueBytes, LongSupplier clock, long followerReadMaxLagMs) {
        this.dbDir = dbDir;
        this.maxValueBytes = maxValueBytes;
        this.clock = clock;
        this.followerReadMaxLagMs = followerReadMaxLagMs;
    }

    long snapshotInstalls() {
        return snapshotInstalls.get();
    }

    ReplicasetState state() {
        return state;
    }

    @Override
    public synchronized void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        getLifeCycle().startAndTransition(() -> {
            super.initialize(server, groupId, raftStorage);
            storage.init(raftStorage);
            open();
        }, IOException.class);
    }

    /** Ratis pauses the state machine before it swaps in a snapshot received from the leader. */
    @Override
    public synchronized void pause() {
        if (getLifeCycleState() == LifeCycle.State.RUNNING) {
            getLifeCycle().transition(LifeCycle.State.PAUSING);
            getLifeCycle().transition(LifeCycle.State.PAUSED);
        }
    }

    private volatile ArchivedAccess archivedAccess = ArchivedAccess.NONE;

    /** Told of requests refused because their bucket is archived; kept across snapshot installs. */
    void onArchivedAccess(ArchivedAccess hook) {
        this.archivedAccess = hook;
        ReplicasetState s = state;
        if (s != null) s.archivedAccess(hook);
    }

    private void open() throws IOException {
        state = new ReplicasetState(new RocksStore(dbDir), maxValueBytes);
        state.archivedAccess(archivedAccess);
        TermIndex applied = TermIndex.valueOf(state.appliedTerm(), state.appliedIndex());
        SnapshotInfo snap = storage.getLatestSnapshot();
        // Entries after the database's own index that are not in it changed no state (no-ops,
        // configuration), so the snapshot's index is just as valid a starting point.
        if (snap != null && snap.getIndex() > applied.getIndex()) applied = snap.getTermIndex();
        setLastAppliedTermIndex(applied.getIndex() > 0 ? applied : null);
        // Ratis applies the log from its latest snapshot on, but the database holds every entry up to
        // its own applied index (written atomically with it), which after a crash is past the snapshot.
        // Applying those again would apply them twice (Ratis stopped this replica on the first one), so
        // the database as it stands becomes the latest snapshot before Ratis reads which that is.
        if (applied.getIndex() > 0 && (snap == null || snap.getIndex() < applied.getIndex())) {
            takeSnapshot();
            log.info("the database is at index {}, past the latest snapshot ({}): checkpointed it, so the log is applied from there",
                    applied.getIndex(), snap == null ? "none" : snap.getIndex());
        }
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        ByteString content = request.getMessage().getContent();
        StorageRequest.Kind kind = StorageRequest.kindOf(content.asReadOnlyByteBuffer());
        if (!StorageRequest.isLogged(kind)) {
            throw new IOException("not a write request: " + kind);
        }
        try {
            // A malformed entry is refused here, before the log: every replica would fail to apply it.
            StorageRequest.checkEntry(content.asReadOnlyByteBuffer());
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage());
        }
        byte[] stamped = StorageRequest.stamp(content.toByteArray(), clock.getAsLong());
        return TransactionContext.newBuilder().setStateMachine(this).setClientRequest(request)
                .setLogData(ByteString.copyFrom(stamped)).build();
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        ByteBuffer data = entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer();
        try {
            byte[] reply = state.apply(data, entry.getTerm(), entry.getIndex());
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
            return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
        } catch (RuntimeException e) {
            log.error("apply of entry {} failed; this replica stops applying", entry.getIndex(), e);
            return CompletableFuture.failedFuture(e);
        }
    }

    private volatile Consumer<List<Integer>> verifyRequests = b -> { };

    /** Receives the buckets of every Verify query this member answers (a router asking to check suspected doubles). */
    void onVerifyRequest(Consumer<List<Integer>> hook) {
        this.verifyRequests = hook;
    }

    /** The data-plane address ("host:port") this member answers {@link DataPlane#ENDPOINT_QUERY} with. */
    void setDataPlaneEndpoint(Supplier<String> endpoint) {
        this.dataPlaneEndpoint = endpoint;
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        if (DataPlane.isEndpointQuery(request.getContent().asReadOnlyByteBuffer())) {
            return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(DataPlane.utf8(dataPlaneEndpoint.get()))));
        }
        try {
            List<Integer> verify = MoveQueries.verifyRequest(request.getContent().asReadOnlyByteBuffer());
            if (verify != null) verifyRequests.accept(verify);
            byte[] reply = state.query(request.getContent().asReadOnlyByteBuffer(), clock.getAsLong());
            return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A read a router sends to any member (follower reads). A follower answers only while it has
     * heard from its leader within {@code followerReadMaxLagMs}, and only after applying every entry
     * that leader told it was committed: so the answer misses at most the writes of that last
     * stretch, never the backlog of a member cut off from its group. Otherwise it refuses, and the
     * router asks the leader. The data-plane endpoint question is always answered.
     */
    @Override
    public CompletableFuture<Message> queryStale(Message request, long minIndex) {
        if (DataPlane.isEndpointQuery(request.getContent().asReadOnlyByteBuffer())) return query(request);
        RaftServer.Division division;
        try {
            division = getServer().get().getDivision(getGroupId());
        } catch (IOException | ExecutionException e) {
            return CompletableFuture.failedFuture(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(e);
        }
        if (division.getInfo().isLeader()) {
            // A leader cut off from its majority (say it won an election just before its last peer
            // stopped) is no fresher than a follower cut off from its leader: the same bound holds.
            long sinceMajorityMs = msSinceMajorityContact(division.getInfo().getRoleInfoProto());
            if (sinceMajorityMs > followerReadMaxLagMs) {
                return CompletableFuture.failedFuture(new StaleReadException(division.getId() + " leads but has not heard from a majority for "
                        + (sinceMajorityMs == Long.MAX_VALUE ? "its whole term" : sinceMajorityMs + " ms") + "; ask again"));
            }
        } else {
            long sinceLeaderMs = msSinceLeaderContact(division.getInfo().getRoleInfoProto());
            if (sinceLeaderMs > followerReadMaxLagMs) {
                return CompletableFuture.failedFuture(new StaleReadException(division.getId() + " has not heard from a leader for "
                        + (sinceLeaderMs == Long.MAX_VALUE ? "its whole term" : sinceLeaderMs + " ms") + "; ask the leader"));
            }
            minIndex = Math.max(minIndex, division.getRaftLog().getLastCommittedIndex());
        }
        return super.queryStale(request, minIndex);
    }

    /**
     * Milliseconds since this leader last heard from enough followers to make a majority with
     * itself; 0 for a group of one, MAX_VALUE when it does not lead.
     */
    static long msSinceMajorityContact(RaftProtos.RoleInfoProto role) {
        if (!role.hasLeaderInfo()) return Long.MAX_VALUE;
        long[] elapsed = role.getLeaderInfo().getFollowerInfoList().stream()
                .mapToLong(RaftProtos.ServerRpcProto::getLastRpcElapsedTimeMs).sorted().toArray();
        int followersNeeded = (elapsed.length + 1) / 2; // with the leader itself, a majority of elapsed.length + 1
        return followersNeeded == 0 ? 0 : elapsed[followersNeeded - 1];
    }

    /**
     * Milliseconds since this follower last heard from its leader; MAX_VALUE when it follows none.
     * A follower that knows no leader (back from an election it lost, say) gets an empty leader
     * entry from Ratis with 0 ms elapsed: that is no contact at all, or a member cut off from its
     * group would keep serving follower reads between its election attempts.
     */
    static long msSinceLeaderContact(RaftProtos.RoleInfoProto role) {
        if (!role.hasFollowerInfo() || !role.getFollowerInfo().hasLeaderInfo()) return Long.MAX_VALUE;
        RaftProtos.ServerRpcProto leader = role.getFollowerInfo().getLeaderInfo();
        if (!leader.hasId() || leader.getId().getId().isEmpty()) return Long.MAX_VALUE;
        return leader.getLastRpcElapsedTimeMs();
    }

    @Override
    public long takeSnapshot() throws IOException {
        TermIndex last = getLastAppliedTermIndex();
        if (last == null || last.getIndex() <= 0) return -1;
        Path target = storage.dirFor(last.getTerm(), last.getIndex());
        if (!Files.exists(target)) {
            Files.createDirectories(target.getParent());
            state.store().checkpoint(target);
            storage.invalidate();
            log.debug("snapshot at index {} in {}", last.getIndex(), target);
        }
        return last.getIndex();
    }

    @Override
    public synchronized void reinitialize() throws IOException {
        storage.invalidate();
        Path snapshot = storage.latest().orElseThrow(() -> new IOException("no snapshot to install"));
        closeState();
        CheckpointStorage.replaceDatabase(dbDir, snapshot);
        open();
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
        snapshotInstalls.incrementAndGet();
        log.info("installed snapshot {} from the leader", snapshot.getFileName());
    }

    @Override
    public void close() throws IOException {
        closeState();
        super.close();
    }

    private void closeState() {
        ReplicasetState s = state;
        state = null;
        if (s != null) s.store().close();
    }
}
