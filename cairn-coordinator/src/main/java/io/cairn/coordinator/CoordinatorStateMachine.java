package io.cairn.coordinator;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;

/**
 * The coordinator's Ratis state machine: the topology with its epochs, the history of the last
 * epochs, the replicasets whose bootstrap is done and the audit log of forced changes.
 *
 * <p><b>What it stores.</b> Everything lives in a {@link TopologyLedger}, a small in-memory
 * value (a topology is kilobytes, the history a hundred of them). A snapshot is the whole ledger
 * as one JSON file ({@link SnapshotFiles}); on restart Ratis hands back the newest snapshot and
 * replays the log after it, so state survives restarts without a database.
 *
 * <p><b>Invariants.</b> The epoch only grows, by exactly one per published topology; a PROPOSE is
 * a compare-and-set on the epoch, so two operators racing cannot both publish over the same
 * epoch; the guardrails are checked at apply time against the state the change actually lands on
 * (a check done earlier by the client could be stale); INIT only ever takes effect once, so every
 * node may send the topology from its config file at start and the first one wins. Apply is a
 * pure function of (state, command): no clock, no randomness, no I/O, the same refusal on every
 * node. Writes, snapshots and loads take the monitor of this object; queries read a copy.
 *
 * <p><b>Why long-poll.</b> Nodes and routers must learn of a new epoch at once (SYSTEM.md: "no
 * slow polling"), and a request carrying a stale epoch costs a retry until they do. A WATCH
 * query parks in the {@link WatchHub} until the epoch moves, so a change reaches every watcher
 * within one network round trip of being applied, and an idle cluster costs one request per
 * watcher per wait period. Queries are answered by the leader outside the Raft log, so watches
 * add no log entries. A watcher that follows a failover may be answered with an epoch it has
 * already seen; clients keep the highest epoch seen and ignore anything not newer.
 */
final class CoordinatorStateMachine extends BaseStateMachine {
    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorStateMachine.class);

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final TopologyLedger ledger = new TopologyLedger();
    private final WatchHub watches;
    private final String nodeId;
    private final RemovalCheck removalCheck;

    CoordinatorStateMachine(String nodeId, RemovalCheck removalCheck) {
        this.nodeId = nodeId;
        this.removalCheck = removalCheck;
        this.watches = new WatchHub(Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cairn-coordinator-watch-" + nodeId);
            t.setDaemon(true);
            return t;
        }), CoordinatorLimits.MAX_PENDING_WATCHES, CoordinatorLimits.MAX_WATCH_WAIT.toMillis());
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        load(storage.loadLatestSnapshot());
    }

    @Override
    public void reinitialize() throws IOException {
        load(storage.loadLatestSnapshot());
    }

    @Override
    public SimpleStateMachineStorage getStateMachineStorage() {
        return storage;
    }

    /**
     * On the leader, before a proposal enters the log: asks {@link RemovalCheck} about every
     * replicaset it removes and writes the findings into the logged command (replacing any the
     * client sent), so every node applies the same decision. Blocks the caller's gRPC thread for
     * at most the check's timeout; removals are rare.
     */
    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        Command command;
        try {
            command = Codec.command(request.getMessage().getContent());
        } catch (CairnException e) {
            return super.startTransaction(request); // applied as a PROTOCOL refusal
        }
        if (!(command instanceof Command.Propose p) || p.topology() == null) return super.startTransaction(request);
        Topology current = currentState().topology();
        List<String> findings = new ArrayList<>();
        if (current != null) {
            for (ReplicasetSpec rs : current.replicasets()) {
                if (p.topology().replicaset(rs.id()).isEmpty()) findings.addAll(removalCheck.findings(rs));
            }
        }
        return TransactionContext.newBuilder().setStateMachine(this).setClientRequest(request)
                .setLogData(UnsafeByteOperations.unsafeWrap(Codec.toBytes(p.withLeaderFindings(findings)))).build();
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        Reply reply;
        CoordinatorState after;
        long epochBefore;
        synchronized (this) {
            epochBefore = ledger.state().epoch();
            reply = applyEntry(entry);
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
            after = ledger.state();
        }
        watches.publish(after);
        if (after.epoch() != epochBefore) {
            LOG.info("coordinator {}: topology epoch {} applied at log index {}",
                    nodeId, after.epoch(), entry.getIndex());
        }
        return CompletableFuture.completedFuture(Codec.toMessage(reply));
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        Command command;
        try {
            command = Codec.command(request.getContent());
        } catch (CairnException e) {
            return CompletableFuture.completedFuture(Codec.toMessage(Reply.refused(e.code(), e.getMessage())));
        }
        return answer(command).thenApply(Codec::toMessage);
    }

    @Override
    public long takeSnapshot() throws IOException {
        TopologyLedger.Snapshot snapshot;
        TermIndex applied;
        synchronized (this) {
            snapshot = ledger.snapshot();
            applied = getLastAppliedTermIndex();
        }
        if (applied == null) return RaftLog.INVALID_LOG_INDEX;
        storage.updateLatestSnapshot(SnapshotFiles.write(storage, applied, snapshot));
        return applied.getIndex();
    }

    @Override
    public void close() throws IOException {
        watches.close();
        super.close();
    }

    private CompletableFuture<Reply> answer(Command command) {
        if (command instanceof Command.Get) return CompletableFuture.completedFuture(Reply.ok(currentState()));
        if (command instanceof Command.History) return CompletableFuture.completedFuture(Reply.ofHistory(history()));
        if (command instanceof Command.Acknowledged a) return CompletableFuture.completedFuture(Reply.ofAcknowledged(acknowledged(a.nodeId())));
        if (command instanceof Command.Disks) return CompletableFuture.completedFuture(Reply.ofDisks(disks()));
        if (command instanceof Command.Settings) return CompletableFuture.completedFuture(Reply.ofSettings(settings()));
        if (command instanceof Command.Watch w) {
            return watches.await(w.afterEpoch(), w.maxWaitMs()).handle((state, error) -> error == null
                    ? Reply.ok(state) : refusal(error));
        }
        return CompletableFuture.completedFuture(Reply.refused(ErrorCode.PROTOCOL,
                command.getClass().getSimpleName() + " is a write; send it through the Raft log"));
    }

    private synchronized CoordinatorState currentState() {
        return ledger.state();
    }

    private synchronized List<Topology> history() {
        return ledger.history();
    }

    private synchronized Map<String, String> disks() {
        return ledger.disks();
    }

    private synchronized Map<String, String> settings() {
        return ledger.settings();
    }

    private synchronized long acknowledged(String nodeId) {
        return ledger.acknowledged(nodeId);
    }

    private void load(SingleFileSnapshotInfo info) throws IOException {
        if (info == null) return;
        TopologyLedger.Snapshot snapshot = SnapshotFiles.read(info);
        CoordinatorState state;
        synchronized (this) {
            ledger.restore(snapshot);
            setLastAppliedTermIndex(info.getTermIndex());
            state = ledger.state();
        }
        watches.publish(state);
        LOG.info("coordinator {}: state loaded from snapshot at {} (epoch {})",
                nodeId, info.getTermIndex(), state.epoch());
    }

    private Reply applyEntry(LogEntryProto entry) {
        try {
            return ledger.apply(Codec.command(entry.getStateMachineLogEntry().getLogData()));
        } catch (CairnException e) {
            return Reply.refused(e.code(), e.getMessage());
        }
    }

    private static Reply refusal(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (cause instanceof CairnException c) return Reply.refused(c.code(), c.getMessage());
        return Reply.refused(ErrorCode.INTERNAL, String.valueOf(cause));
    }
}
