package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.NodeAddress;
import io.cairn.core.topology.Topology;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.client.retry.RequestTypeDependentRetryPolicy;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftClientRequestProto.TypeCase;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.rpc.SupportedRpcType;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Talks to the coordinator group over gRPC (a Ratis client that finds the leader itself).
 *
 * <p>Every call blocks and ends within about {@code callDeadline} (default 6 s) plus one request
 * timeout (3 s, {@link CoordinatorLimits#CLIENT_REQUEST_TIMEOUT}): inside the deadline it retries
 * other nodes and a new leader, after it the call fails with {@link CairnException}
 * {@link ErrorCode#UNAVAILABLE}. Refusals come back as {@link CairnException} with their own code
 * (STALE_EPOCH, GUARDRAIL, INVALID_CONFIG). Writes go through the Raft log (blocking Ratis API,
 * retried under one call id so the retry cache applies them once); reads and long-polls are
 * unordered read-only requests to the leader, so a parked watch never delays another call.
 *
 * <pre>
 * try (var client = new CoordinatorClient(coordinators)) {
 *     CoordinatorState s = client.init(topologyFromConfig);       // first caller wins
 *     client.watch(state -&gt; router.onTopology(state.topology())); // now and on every new epoch
 *     client.propose(s.epoch(), next, false, "add rs4");
 * }
 * </pre>
 *
 * Thread-safe; one client per process is enough. {@link #close()} may take up to one watch wait
 * (2 s) while gRPC drains a parked long-poll.
 */
public final class CoordinatorClient implements AutoCloseable {
    private final String peers;
    private final String actor;
    private final Duration callDeadline;
    private final RaftClient raft;
    private final List<WatchLoop> watches = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /** A client with the default deadline, recording the OS user as the actor of forced changes. */
    public CoordinatorClient(List<NodeAddress> coordinators) {
        this(coordinators, System.getProperty("user.name", "unknown"), CoordinatorLimits.CALL_DEADLINE);
    }

    /**
     * @param actor        who is asking; recorded with forced changes
     * @param callDeadline how long one call keeps retrying before it fails with UNAVAILABLE
     */
    public CoordinatorClient(List<NodeAddress> coordinators, String actor, Duration callDeadline) {
        this.peers = coordinators.stream().map(n -> n.id() + "@" + n.raftAddress()).collect(Collectors.joining(", "));
        this.actor = actor;
        this.callDeadline = callDeadline;
        this.raft = RaftClient.newBuilder()
                .setRaftGroup(CoordinatorGroup.of(coordinators))
                .setProperties(properties())
                .setParameters(CoordinatorTls.parameters())
                .setRetryPolicy(retryPolicy(callDeadline))
                .build();
    }

    /** Stores {@code topology} at epoch 1 if the coordinator has none; answers the state either way. */
    public CoordinatorState init(Topology topology) {
        return write(new Command.Init(topology)).state();
    }

    public CoordinatorState get() {
        return read(new Command.Get()).state();
    }

    /**
     * Publishes {@code next} as epoch {@code expectedEpoch + 1}. Refused with STALE_EPOCH when the
     * current epoch is not {@code expectedEpoch}, with GUARDRAIL (problems listed) when the change
     * breaks a guardrail and {@code force} is false. A forced change is recorded with the actor,
     * reason and time, and is visible in {@link CoordinatorState#forcedChanges()}.
     */
    public CoordinatorState propose(long expectedEpoch, Topology next, boolean force, String reason) {
        long nowMs = System.currentTimeMillis(); // the caller's clock travels in the command
        return write(new Command.Propose(expectedEpoch, next, force, reason, actor, nowMs)).state();
    }

    /**
     * Asks to create {@code replicasetId}'s initial buckets at {@code incarnation}. Create them only
     * when the claim is granted; a refusal means this copy of the replicaset is not the one that
     * bootstrapped (it was wiped or replaced) and creating buckets would double them.
     */
    public BootstrapClaim claimBootstrap(String replicasetId, long incarnation) {
        return write(new Command.ClaimBootstrap(replicasetId, incarnation)).claim();
    }

    /** The kept topologies (up to the last 100 epochs), oldest first, the current one last. */
    /** Records, for each member of {@code replicasetId}, the highest log index its leader knows it holds (only raised). */
    public void reportAcknowledged(String replicasetId, Map<String, Long> acknowledged) {
        write(new Command.ReportAcknowledged(replicasetId, acknowledged));
    }

    /** The highest log index storage node {@code nodeId} is on record as holding; 0 when none. */
    public long acknowledged(String nodeId) {
        Long index = read(new Command.Acknowledged(nodeId)).acknowledged();
        return index == null ? 0 : index;
    }

    /** Records the disk storage node {@code nodeId} caught up on (see {@code Command.RecordDisk}). */
    public void recordDisk(String nodeId, String disk) {
        write(new Command.RecordDisk(nodeId, disk));
    }

    /** The disk recorded for each storage node. */
    public Map<String, String> disks() {
        Map<String, String> disks = read(new Command.Disks()).disks();
        return disks == null ? Map.of() : disks;
    }

    public List<Topology> history() {
        return read(new Command.History()).history();
    }

    /**
     * Sets run-time settings through the Raft log (an empty value drops one: the config file's value
     * applies again); answers every run-time setting after the change. Validate names and values first.
     */
    public Map<String, String> setSettings(Map<String, String> changes) {
        Map<String, String> settings = write(new Command.SetSettings(changes, actor)).settings();
        return settings == null ? Map.of() : settings;
    }

    /** The run-time settings operators set (name -> value); empty when none. */
    public Map<String, String> settings() {
        Map<String, String> settings = read(new Command.Settings()).settings();
        return settings == null ? Map.of() : settings;
    }

    /**
     * Starts a background long-poll that calls {@code listener} with the current state and then
     * with every newer epoch (newest state only when several arrive at once), on a daemon thread
     * of its own. Runs until {@link #close()}.
     */
    public void watch(Consumer<CoordinatorState> listener) {
        if (closed) throw new IllegalStateException("coordinator client is closed");
        WatchLoop loop = new WatchLoop("cairn-coordinator-watch",
                after -> watchOnce(after, CoordinatorLimits.WATCH_WAIT), listener,
                CoordinatorLimits.WATCH_BACKOFF_MIN, CoordinatorLimits.WATCH_BACKOFF_MAX);
        watches.add(loop);
        loop.start();
    }

    @Override
    public void close() {
        closed = true;
        if (watches.isEmpty()) {
            closeRaft();
            return;
        }
        // Ratis's close waits for a long-poll in flight (up to WATCH_WAIT, 2 s, for every process that stops):
        // the watches stop at once and the client is released behind them, on a thread of its own.
        watches.forEach(WatchLoop::halt);
        List<WatchLoop> stopping = List.copyOf(watches);
        watches.clear();
        Thread closer = new Thread(() -> {
            stopping.forEach(w -> w.awaitEnd(CoordinatorLimits.WATCH_WAIT.plusSeconds(5)));
            closeRaft();
        }, "cairn-coordinator-client-close");
        closer.setDaemon(true);
        closer.start();
    }

    private void closeRaft() {
        try {
            raft.close();
        } catch (IOException e) {
            // nothing left to release that a retry would help with
        }
    }

    /** One long-poll: the state once its epoch exceeds {@code afterEpoch}, or after {@code wait}. */
    CoordinatorState watchOnce(long afterEpoch, Duration wait) {
        return read(new Command.Watch(afterEpoch, wait.toMillis())).state();
    }

    /** Asks {@code nodeId} to write a snapshot now (operations and tests). */
    void snapshot(String nodeId) {
        try {
            RaftClientReply reply = raft.getSnapshotManagementApi(CoordinatorGroup.peerId(nodeId))
                    .create(true, callDeadline.toMillis());
            if (!reply.isSuccess()) throw unavailable(reply.getException());
        } catch (IOException e) {
            throw unavailable(e);
        }
    }

    private Reply write(Command command) {
        Message message = Codec.toMessage(command);
        try {
            return decode(raft.io().send(message));
        } catch (InterruptedIOException e) {
            Thread.currentThread().interrupt();
            throw unavailable(e);
        } catch (IOException e) {
            throw unavailable(e);
        }
    }

    private Reply read(Command query) {
        CompletableFuture<RaftClientReply> future = raft.async().sendReadOnlyUnordered(Codec.toMessage(query));
        long boundMs = callDeadline.plus(CoordinatorLimits.CLIENT_REQUEST_TIMEOUT).toMillis();
        try {
            return decode(future.get(boundMs, TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new CairnException(ErrorCode.UNAVAILABLE, "interrupted while waiting for the coordinator");
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new CairnException(ErrorCode.UNAVAILABLE,
                    "coordinator (" + peers + ") did not answer in " + boundMs + " ms");
        } catch (ExecutionException e) {
            throw unavailable(e.getCause());
        }
    }

    private Reply decode(RaftClientReply reply) {
        if (!reply.isSuccess()) throw unavailable(reply.getException());
        return Codec.reply(reply.getMessage().getContent()).orThrow();
    }

    private CairnException unavailable(Throwable cause) {
        if (cause instanceof CairnException c) return c;
        if (cause instanceof StateMachineException) {
            return new CairnException(ErrorCode.INTERNAL, "coordinator state machine failed: " + cause.getMessage());
        }
        String why = cause == null ? "no answer" : cause.getClass().getSimpleName() + ": " + cause.getMessage();
        return new CairnException(ErrorCode.UNAVAILABLE, "coordinator (" + peers + ") unavailable: " + why);
    }

    private static RaftProperties properties() {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, CoordinatorGroup.ratis(CoordinatorLimits.CLIENT_REQUEST_TIMEOUT));
        return p;
    }

    /** Retry with a short fixed pause until {@code deadline} has passed since the call started. */
    private static RetryPolicy retryPolicy(Duration deadline) {
        RequestTypeDependentRetryPolicy.Builder b = RequestTypeDependentRetryPolicy.newBuilder();
        RetryPolicy pause = RetryPolicies.retryForeverWithSleep(CoordinatorGroup.ratis(CoordinatorLimits.RETRY_SLEEP));
        for (TypeCase type : TypeCase.values()) {
            b.setRetryPolicy(type, pause);
            b.setTimeout(type, CoordinatorGroup.ratis(deadline));
        }
        return b.build();
    }
}
