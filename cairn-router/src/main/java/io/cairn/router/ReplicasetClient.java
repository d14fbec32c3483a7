package io.cairn.router;

import io.cairn.client.DataPlaneClient;
import io.cairn.client.ReplicasetUnavailable;
import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.StorageRequest;
import io.netty.channel.EventLoopGroup;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The router's connection to one replicaset: two group-commit queues (writes through the log,
 * linearizable reads) whose batches travel over the data plane ({@link DataPlaneClient}) to the
 * leader, which hands them to its replication engine in process. Queries outside group commit
 * (discovery, stats, verify requests), map-reduce calls and follower reads (to a member other than
 * the leader, which answers within its bounded lag or refuses, and then the leader answers) take
 * the same data plane: nothing here knows which Raft engine the members run.
 *
 * <p>Group commit: a Raft entry costs far more CPU than the operations in it, so the operations of
 * many concurrent client commands are packed into one entry. A queue sends a
 * batch as soon as fewer than {@code maxInflightBatches} are outstanding; while they are, new
 * operations accumulate and leave together. Nothing waits on a timer, so a lone request pays
 * no extra latency and a busy replicaset gets large batches.
 */
final class ReplicasetClient implements AutoCloseable {
    /** How long the member chosen for a follower read may take before the leader is asked instead. */
    private static final long FOLLOWER_READ_TIMEOUT_MS = 500;

    private final String replicasetId;
    private final DataPlaneClient dataPlane;
    private final GroupCommitQueue writes;
    private final GroupCommitQueue reads;
    private final boolean followerReads;
    private final LongAdder followerReadsServed = new LongAdder();
    private final LongAdder followerReadsRefused = new LongAdder();
    /**
     * Highest log index this router knows committed: its own writes' indexes, and the leader's
     * commit index when it answered a read or query (discovery, every round). Follower reads wait
     * for it. A member's own commit index is no bound: Ratis caps it at the end of the member's
     * log, so a member catching up a backlog (restarted after a while, or restored from an old
     * copy of its folder) would serve that backlog to a router that had not written lately
     * (MemberRestoreTest).
     */
    private final AtomicLong knownCommitIndex = new AtomicLong();

    /** @param ioLoops event loops for the data-plane connections; null for a default */
    ReplicasetClient(ReplicasetSpec spec, RouterConfig config, EventLoopGroup ioLoops) {
        this(spec, config, ioLoops, () -> 0, e -> { });
    }

    /**
     * @param epoch        the topology epoch every request carries (0: none)
     * @param onStaleEpoch told of a member's newer epoch when it refused a request sent at an older one
     */
    ReplicasetClient(ReplicasetSpec spec, RouterConfig config, EventLoopGroup ioLoops, java.util.function.LongSupplier epoch,
                     java.util.function.LongConsumer onStaleEpoch) {
        this.replicasetId = spec.id();
        this.dataPlane = new DataPlaneClient(spec, Math.min(config.requestTimeout().toMillis(), DataPlaneClient.MAX_BUDGET_MS), ioLoops)
                .withEpoch(epoch, onStaleEpoch);
        this.writes = new GroupCommitQueue(config, this::sendWrites, System::nanoTime);
        this.reads = new GroupCommitQueue(config, this::sendReads, System::nanoTime);
        this.followerReads = config.followerReads();
    }

    /** Batches and ops sent through the write and read queues, and units refused because a queue was full. */
    record GroupCommitCounters(long writeBatches, long writeOps, long readBatches, long readOps, long queueFullRefusals) {}

    /** Request bytes unsent to this replicaset's members now, and attempts that waited for a backed-up connection (issue 28). */
    DataPlaneBacklog dataPlaneBacklog() {
        return new DataPlaneBacklog(dataPlane.unsentBytes(), dataPlane.deferredAttempts());
    }

    record DataPlaneBacklog(long unsentBytes, long deferredAttempts) {}

    /** Batches answered (ok or not) and the time from send to answer, per kind: one clock read and two adds per batch. */
    private final java.util.concurrent.atomic.LongAdder writeAnswered = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder writeAnswerNanos = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder readAnswered = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder readAnswerNanos = new java.util.concurrent.atomic.LongAdder();

    ReplicasetTraffic traffic() {
        return new ReplicasetTraffic(writes.ops(), reads.ops(), writes.batches(), reads.batches(),
                writeAnswered.sum(), writeAnswerNanos.sum(), readAnswered.sum(), readAnswerNanos.sum());
    }

    private static <T> CompletableFuture<T> timed(CompletableFuture<T> call, long sentNs,
                                                 java.util.concurrent.atomic.LongAdder answered, java.util.concurrent.atomic.LongAdder nanos) {
        return call.whenComplete((v, e) -> {
            nanos.add(System.nanoTime() - sentNs);
            answered.increment();
        });
    }

    GroupCommitCounters groupCommitCounters() {
        return new GroupCommitCounters(writes.batches(), writes.ops(), reads.batches(), reads.ops(), writes.refused() + reads.refused());
    }

    /** Read batches answered by the member chosen for a follower read (not the leader fallback). */
    long followerReadsServed() {
        return followerReadsServed.sum();
    }

    /** Read batches the member chosen for a follower read refused (STALE), answered by the leader instead. */
    long followerReadsRefused() {
        return followerReadsRefused.sum();
    }

    String id() {
        return replicasetId;
    }

    /**
     * Applies {@code ops} (one unit: applied in one entry, atomically) and answers per op, by
     * {@code deadlineNs} ({@link System#nanoTime}): later, each op fails (TIMEOUT if never sent,
     * UNAVAILABLE with an unknown outcome if sent).
     */
    CompletableFuture<List<OpResult>> submit(List<KvOp> ops, long deadlineNs) {
        boolean allReads = ops.stream().allMatch(KvOp::readOnly);
        return (allReads ? reads : writes).enqueue(ops, deadlineNs);
    }

    /**
     * A read-only request outside group commit (discovery, stats, verify), answered by the leader
     * under its lease like a read batch, within this client's data-plane budget.
     */
    CompletableFuture<ByteBuffer> query(byte[] request) {
        return dataPlane.call(DataPlane.READ, request, dataPlane.budgetDeadlineNs()).thenApply(reply -> committed(reply).body());
    }

    /** Map-reduce calls (storage refs, FLUSH, key listings) over this client's data plane. */
    MapReduceClient mapReduce() {
        return new MapReduceClient(replicasetId, dataPlane);
    }

    /** The member this client last saw lead (answer a call), or null. */
    String leaderHint() {
        return dataPlane.leaderHint();
    }

    private CompletableFuture<List<OpResult>> sendWrites(List<KvOp> batch, long deadlineNs) {
        long sentNs = System.nanoTime();
        return timed(sendWritesUntimed(batch, deadlineNs), sentNs, writeAnswered, writeAnswerNanos);
    }

    private CompletableFuture<List<OpResult>> sendWritesUntimed(List<KvOp> batch, long deadlineNs) {
        return dataPlane.call(DataPlane.WRITE, StorageRequest.write(batch), deadlineNs).thenApply(reply -> OpCodec.decodeResults(committed(reply).body()));
    }

    private CompletableFuture<List<OpResult>> sendReads(List<KvOp> batch, long deadlineNs) {
        long sentNs = System.nanoTime();
        return timed(sendReadsUntimed(batch, deadlineNs), sentNs, readAnswered, readAnswerNanos);
    }

    private CompletableFuture<List<OpResult>> sendReadsUntimed(List<KvOp> batch, long deadlineNs) {
        byte[] read = StorageRequest.read(batch);
        if (followerReads) return followerRead(dataPlane.someFollower(), read, knownCommitIndex.get(), deadlineNs);
        return leaderRead(read, deadlineNs);
    }

    private CompletableFuture<List<OpResult>> leaderRead(byte[] read, long deadlineNs) {
        return dataPlane.call(DataPlane.READ, read, deadlineNs).thenApply(reply -> OpCodec.decodeResults(committed(reply).body()));
    }

    /** A leader's answer to a write or read carries an index it knows committed (RatisAccess). */
    private DataPlaneClient.Reply committed(DataPlaneClient.Reply reply) {
        knownCommitIndex.accumulateAndGet(reply.logIndex(), Math::max);
        return reply;
    }

    /**
     * Asks {@code member} for a follower read of {@code read}: it answers once it has applied
     * {@code minIndex} (the highest index this router knows committed) if it heard from its leader within the
     * engine's bound (Ratis: StorageStateMachine.queryStale); when it refuses, is unreachable or
     * does not answer within {@link #FOLLOWER_READ_TIMEOUT_MS}, the leader answers (same bytes). So it
     * does when the follower refuses an op of the read with {@link ErrorCode#STALE_READ} (an archived
     * bucket, which only its leader restores).
     */
    CompletableFuture<List<OpResult>> followerRead(String member, byte[] read, long minIndex, long deadlineNs) {
        long followerDeadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FOLLOWER_READ_TIMEOUT_MS);
        return dataPlane.staleRead(member, minIndex, read, deadlineNs - followerDeadlineNs < 0 ? deadlineNs : followerDeadlineNs)
                .handle((reply, error) -> {
                    Throwable e = error;
                    List<OpResult> results = null;
                    if (e == null) {
                        try {
                            results = OpCodec.decodeResults(reply.body());
                        } catch (RuntimeException malformed) {
                            e = malformed;
                        }
                    }
                    if (results != null && results.stream().noneMatch(r -> r.isError() && r.error() == ErrorCode.STALE_READ)) {
                        followerReadsServed.increment();
                        return CompletableFuture.completedFuture(results);
                    }
                    if (results != null || e instanceof CairnException || e.getCause() instanceof CairnException) followerReadsRefused.increment();
                    return leaderRead(read, deadlineNs);
                })
                .thenCompose(answer -> answer);
    }

    /** Results for every op of a batch that failed as a whole. */
    static List<OpResult> failed(int n, Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root != root.getCause()) root = root.getCause();
        // a write handed to a member whose outcome is unknown must not read as "not executed" (issue 22)
        OpResult error = root instanceof ReplicasetUnavailable u && u.mayHaveApplied()
                ? OpResult.error(ErrorCode.TIMEOUT, "the write may have been applied: " + root.getMessage())
                : OpResult.error(ErrorCode.UNAVAILABLE, "replicaset unavailable: " + root.getMessage());
        return new ArrayList<>(Collections.nCopies(n, error));
    }

    /** Replaced by a client for other members (a node added or removed): its batches in flight still get their answers. */
    void retire() {
        dataPlane.closeAfterCallsInFlight();
    }

    @Override
    public void close() {
        dataPlane.close();
    }
}
