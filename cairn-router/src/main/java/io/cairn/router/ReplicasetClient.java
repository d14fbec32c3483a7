package io.cairn.router;

import io.cairn.core.ErrorCode;
import io.cairn.core.GroupIds;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.StorageRequest;
import io.netty.channel.EventLoopGroup;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The router's connection to one replicaset: two group-commit queues (writes through the log,
 * reads through ReadIndex) whose batches travel over the data plane ({@link DataPlaneClient}) to
 * the leader, which submits them to Ratis in process; a Ratis client for discovery and stats
 * (and for every request when the data plane is disabled).
 *
 * <p>Group commit: Ratis costs 1-2 ms of CPU per log entry on a small machine, so the
 * operations of many concurrent client commands are packed into one entry. A queue sends a
 * batch as soon as fewer than {@code maxInflightBatches} are outstanding; while they are, new
 * operations accumulate and leave together. Nothing waits on a timer, so a lone request pays
 * no extra latency and a busy replicaset gets large batches.
 */
final class ReplicasetClient implements AutoCloseable {
    private final String replicasetId;
    private final List<RaftPeer> peers;
    private final RaftClient raft;
    private final RaftClient followerReader;
    private final GroupCommitQueue writes;
    private final GroupCommitQueue reads;

    /** @param ioLoops event loops for the data-plane connections; null for a default */
    ReplicasetClient(ReplicasetSpec spec, RouterConfig config, EventLoopGroup ioLoops) {
        this.replicasetId = spec.id();
        this.peers = spec.nodes().stream()
                .map(n -> RaftPeer.newBuilder().setId(n.id()).setAddress(n.raftAddress()).build()).toList();
        RaftGroup group = RaftGroup.valueOf(RaftGroupId.valueOf(GroupIds.replicaset(spec.id())), peers);
        RaftProperties p = new RaftProperties();
        // Short: a request stuck on a dead leader's connection is re-sent (same call id) to the next member.
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(REQUEST_TIMEOUT_MS, TimeUnit.MILLISECONDS));
        RaftClientConfigKeys.Async.setOutstandingRequestsMax(p, 4 * config.maxInflightBatches() + 16);
        GrpcConfigKeys.setMessageSizeMax(p, SizeInBytes.valueOf(Math.max(64L << 20, 2L * config.maxBatchBytes())));
        // Ratis retries (same call id, so the server's retry cache de-duplicates) through a
        // leader failover; past this budget the caller gets UNAVAILABLE.
        long attempts = Math.max(10, config.requestTimeout().toMillis() / 100);
        this.raft = RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(group).setProperties(p)
                .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep((int) attempts,
                        TimeDuration.valueOf(100, TimeUnit.MILLISECONDS)))
                .build();
        // Follower reads use their own client: Ratis orders a client's async requests, and a read
        // waiting on a lagging member must not hold up writes.
        this.followerReader = config.followerReads()
                ? RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(group).setProperties(p)
                        .setRetryPolicy(RetryPolicies.noRetry()).build()
                : null;
        this.dataPlane = config.directDataPlane()
                ? new DataPlaneClient(spec.id(), peers, () -> RaftClient.newBuilder().setClientId(ClientId.randomId()).setRaftGroup(group)
                        .setProperties(p).setRetryPolicy(RetryPolicies.noRetry()).build(),
                        Math.min(config.requestTimeout().toMillis(), DataPlaneClient.MAX_BUDGET_MS), ioLoops)
                : null;
        this.writes = new GroupCommitQueue(config, this::sendWrites, System::nanoTime);
        this.reads = new GroupCommitQueue(config, this::sendReads, System::nanoTime);
        this.followerReads = config.followerReads();
    }

    private final boolean followerReads;
    /** The hot path (reads and writes) when enabled; null means both go through the Ratis client. */
    private final DataPlaneClient dataPlane;
    private static final long FOLLOWER_READ_TIMEOUT_MS = 500;
    private static final long REQUEST_TIMEOUT_MS = 1_000;
    private final java.util.concurrent.atomic.LongAdder followerReadsServed = new java.util.concurrent.atomic.LongAdder();
    /** Highest log index of a write this router saw committed; follower reads wait for it. */
    private final java.util.concurrent.atomic.AtomicLong lastWriteIndex = new java.util.concurrent.atomic.AtomicLong();
    /**
     * Highest commit index a leader of this replicaset reported in a reply to this router
     * (discovery, every round; stats); follower reads wait for it too. A member's own commit
     * index is no bound: Ratis caps it at the end of the member's log, so a member still
     * catching up a backlog (restarted, or restored from an old copy) would serve it.
     */
    private final java.util.concurrent.atomic.AtomicLong leaderCommitIndex = new java.util.concurrent.atomic.AtomicLong();

    /** {batches, ops} sent through the write and read queues. */
    long[] groupCommitCounters() {
        return new long[] {writes.batches(), writes.ops(), reads.batches(), reads.ops()};
    }

    /** Read batches answered by the member chosen for a follower read (not the leader fallback). */
    long followerReadsServed() {
        return followerReadsServed.sum();
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

    /** A read-only request outside group commit (discovery, stats), linearizable through the leader. */
    CompletableFuture<ByteBuffer> query(byte[] request) {
        return raft.async().sendReadOnly(Message.valueOf(ByteString.copyFrom(request)))
                .thenApply(reply -> {
                    noteLeaderCommit(reply);
                    return replyContent(reply);
                });
    }

    /** The commit index the replying member (a linearizable read is answered by the leader) reported for itself. */
    private void noteLeaderCommit(RaftClientReply reply) {
        if (!reply.isSuccess()) return;
        for (org.apache.ratis.proto.RaftProtos.CommitInfoProto c : reply.getCommitInfos()) {
            if (RaftPeerId.valueOf(c.getServer().getId()).equals(reply.getServerId())) {
                leaderCommitIndex.accumulateAndGet(c.getCommitIndex(), Math::max);
            }
        }
    }

    /** Raft-level leader as last seen by this client, or null. */
    String leaderHint() {
        if (dataPlane != null && dataPlane.leaderHint() != null) return dataPlane.leaderHint();
        RaftPeerId leader = raft.getLeaderId();
        return leader == null ? null : leader.toString();
    }

    private CompletableFuture<List<OpResult>> sendWrites(List<KvOp> batch, long deadlineNs) {
        if (dataPlane != null) {
            return dataPlane.call(DataPlane.WRITE, StorageRequest.write(batch), deadlineNs).thenApply(reply -> {
                lastWriteIndex.accumulateAndGet(reply.logIndex(), Math::max);
                return OpCodec.decodeResults(reply.body());
            });
        }
        return within(deadlineNs, raft.async().send(Message.valueOf(ByteString.copyFrom(StorageRequest.write(batch))))
                .thenApply(reply -> {
                    lastWriteIndex.accumulateAndGet(reply.getLogIndex(), Math::max);
                    return OpCodec.decodeResults(replyContent(reply));
                }));
    }

    private CompletableFuture<List<OpResult>> sendReads(List<KvOp> batch, long deadlineNs) {
        if (dataPlane != null && !followerReads) {
            return dataPlane.call(DataPlane.READ, StorageRequest.read(batch), deadlineNs).thenApply(reply -> OpCodec.decodeResults(reply.body()));
        }
        Message message = Message.valueOf(ByteString.copyFrom(StorageRequest.read(batch)));
        if (!followerReads) {
            return within(deadlineNs, raft.async().sendReadOnly(message).thenApply(r -> OpCodec.decodeResults(replyContent(r))));
        }
        // Any member that has applied this router's own writes and what its leader last reported
        // committed, and heard from its leader within the election timeout, may answer
        // (StorageStateMachine.queryStale); otherwise the leader answers.
        RaftPeer member = peers.get(ThreadLocalRandom.current().nextInt(peers.size()));
        long minIndex = Math.max(lastWriteIndex.get(), leaderCommitIndex.get());
        return within(deadlineNs, followerReader.async().sendStaleRead(message, minIndex, member.getId())
                .orTimeout(FOLLOWER_READ_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .thenApply(r -> {
                    List<OpResult> results = OpCodec.decodeResults(replyContent(r));
                    followerReadsServed.increment();
                    return results;
                })
                .exceptionallyCompose(e -> raft.async().sendReadOnly(message).thenApply(r -> OpCodec.decodeResults(replyContent(r)))));
    }

    /** The Ratis client paths (the data plane keeps its own deadline): unanswered at the deadline is unavailable. */
    private static <T> CompletableFuture<T> within(long deadlineNs, CompletableFuture<T> call) {
        long leftNs = Math.max(0, deadlineNs - System.nanoTime());
        return call.orTimeout(leftNs, TimeUnit.NANOSECONDS).exceptionallyCompose(e -> CompletableFuture.failedFuture(
                e instanceof java.util.concurrent.TimeoutException ? new ReplicasetUnavailable("no answer within the request's deadline") : e));
    }

    private static ByteBuffer replyContent(RaftClientReply reply) {
        if (!reply.isSuccess()) {
            Exception e = reply.getException();
            throw new ReplicasetUnavailable(e == null ? "request failed" : e.getMessage());
        }
        return reply.getMessage().getContent().asReadOnlyByteBuffer();
    }

    /** Results for every op of a batch that failed as a whole. */
    static List<OpResult> failed(int n, Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root != root.getCause()) root = root.getCause();
        OpResult error = OpResult.error(ErrorCode.UNAVAILABLE, "replicaset unavailable: " + root.getMessage());
        return new ArrayList<>(Collections.nCopies(n, error));
    }

    @Override
    public void close() throws IOException {
        if (dataPlane != null) dataPlane.close();
        if (followerReader != null) followerReader.close();
        raft.close();
    }

    /** The replicaset answered with a failure, or could not be reached within the retry budget. */
    static final class ReplicasetUnavailable extends RuntimeException {
        ReplicasetUnavailable(String message) {
            super(message, null, false, false);
        }
    }
}
