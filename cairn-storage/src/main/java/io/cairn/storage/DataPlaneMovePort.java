package io.cairn.storage;

import io.cairn.client.DataPlaneClient;
import io.cairn.core.move.ArchiveMoves;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MovePort;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.StorageRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * {@link MovePort} over the replicasets' data planes: commands are log entries (WRITE), questions
 * are linearizable queries (MOVE_QUERY, READ) answered by the leader, whatever Raft engine the
 * members run. Every answer, or the lack of one, is handed to the driver thread ({@code driver});
 * a call unanswered within {@link #CALL_BUDGET_MS} reports null or UNAVAILABLE. A re-sent command
 * keeps its ids, so the member answers it from its first attempt instead of applying it twice.
 *
 * <p>Group commit for moves: a Raft entry costs about the same CPU whatever it carries, and a
 * move is a handful of small commands, so commands for one replicaset share entries
 * (MOVE_BATCH). At most {@link EntryLimits#entriesInFlight} entries per replicaset are outstanding;
 * commands submitted meanwhile wait and leave together in the next one. Each command is still
 * applied exactly as if it were alone, with its own reply. Chunks wait behind the other steps
 * ({@link MoveEntryQueue}).
 */
public final class DataPlaneMovePort implements MovePort, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DataPlaneMovePort.class);

    private final ScheduledExecutorService driver;
    /** How long one call may take, its re-sends to other members included. */
    static final long CALL_BUDGET_MS = 15_000;
    private final Map<String, DataPlaneClient> clients = new HashMap<>();
    /** Commands waiting for each replicaset's next entry (driver thread only). */
    private final Map<String, MoveEntryQueue<Queued>> queues = new HashMap<>();
    private final EntryLimits entryLimits;

    /**
     * How move commands are grouped into Raft entries per replicaset (config {@code rebalancer.*}).
     *
     * @param entriesInFlight     entries outstanding per replicaset
     * @param maxCommandsPerEntry commands per entry; 1 turns grouping off (for A/B benchmarks)
     * @param maxEntryBytes       bulk bytes per entry: a step waits for the entries already in the log, so they
     *                            stay small. A command larger than this (a big chunk) still goes, alone
     */
    public record EntryLimits(int entriesInFlight, int maxCommandsPerEntry, int maxEntryBytes) {
        public static final EntryLimits DEFAULTS = new EntryLimits(2, 512, 1 << 20);

        public EntryLimits {
            if (entriesInFlight < 1 || maxCommandsPerEntry < 1 || maxEntryBytes < 1) throw new IllegalArgumentException("move entry limits must be positive");
        }
    }

    /** @param copy a chunk copied ahead; anything else is a step, whose latency steers an adaptive budget */
    private record Queued(byte[] command, Consumer<MoveReply> reply, boolean copy) {}
    private volatile Topology topology;
    private volatile ArchiveMoveIo archiveIo;
    private final TransferBudget budget;
    /** Replicasets whose chunks wait for the budget with a flush already scheduled (driver thread only). */
    private final Set<String> budgetTimers = new HashSet<>();

    /** A port whose chunks are not paced (the doubled-bucket verifier's, tests'). */
    public DataPlaneMovePort(ScheduledExecutorService driver) {
        this(driver, 0, 0);
    }

    /**
     * @param maxBytesPerSecond chunk bytes per second over all moves; 0 for no limit
     * @param stepTargetMs      0 for a fixed budget; otherwise the chunk rate adapts (under the cap)
     *                          to keep the moves' median step latency under this
     */
    public DataPlaneMovePort(ScheduledExecutorService driver, long maxBytesPerSecond, long stepTargetMs) {
        this(driver, maxBytesPerSecond, stepTargetMs, EntryLimits.DEFAULTS);
    }

    public DataPlaneMovePort(ScheduledExecutorService driver, long maxBytesPerSecond, long stepTargetMs, EntryLimits entryLimits) {
        this.driver = driver;
        this.entryLimits = entryLimits;
        this.budget = new TransferBudget(maxBytesPerSecond, stepTargetMs);
    }

    /** A new copy rate cap and step latency target (0: none, fixed) from now on. Driver thread. */
    public void setCopyRate(long maxBytesPerSecond, long stepTargetMs) {
        budget.reconfigure(maxBytesPerSecond, stepTargetMs, nowMs());
    }

    /** The rate chunks copied ahead may leave at now, in bytes per second; 0 for no limit. Driver thread. */
    public long copyBytesPerSecond() {
        return budget.bytesPerSecond();
    }

    /**
     * What the adaptive copy rate compares, in ms: the median step latency of its last window,
     * and its base (the lowest recent window median); -1 each with a fixed rate or before any step.
     */
    public record StepLatency(long medianMs, long baseMs) {}

    /** Driver thread. */
    public StepLatency stepLatency() {
        return budget.stepLatency();
    }

    /**
     * What the move streams hold for slow replicasets (issue 28), summed over this port's clients: request
     * bytes unsent now, the most one connection held unsent, and attempts that waited for a connection
     * over {@link DataPlaneClient#UNSENT_HIGH_WATER_BYTES}. Driver thread.
     */
    public record Backlog(long unsentBytes, long peakUnsentBytes, long deferredAttempts) {}

    private long retiredDeferredAttempts;

    /** Driver thread. */
    public Backlog backlog() {
        long unsent = 0, peak = 0, deferred = retiredDeferredAttempts;
        for (DataPlaneClient c : clients.values()) {
            unsent += c.unsentBytes();
            peak = Math.max(peak, c.peakUnsentBytes());
            deferred += c.deferredAttempts();
        }
        return new Backlog(unsent, peak, deferred);
    }

    /** The queues and the budget, for a move that stands still (driver thread). */
    public String describe() {
        return "queues " + queues + ", budget " + budget + " now " + nowMs() + " ms, budget timers " + budgetTimers + ", " + backlog();
    }

    /**
     * Adopts a topology: clients for new replicasets, none for removed ones, new ones for replicasets
     * whose members changed (a node added or removed; the old client ends its calls in flight first).
     * Driver thread only.
     */
    public void setTopology(Topology next) {
        Topology before = topology;
        topology = next;
        queues.keySet().removeIf(id -> next.replicaset(id).isEmpty() && queues.get(id).isEmpty());
        clients.entrySet().removeIf(e -> {
            boolean gone = next.replicaset(e.getKey()).isEmpty();
            if (gone) e.getValue().close();
            boolean changed = !gone && before != null && !before.replicaset(e.getKey()).map(ReplicasetSpec::nodes)
                    .equals(next.replicaset(e.getKey()).map(ReplicasetSpec::nodes));
            if (changed) e.getValue().closeAfterCallsInFlight();
            if (gone || changed) retiredDeferredAttempts += e.getValue().deferredAttempts(); // the count only grows
            return gone || changed;
        });
    }

    @Override
    public void submit(String replicaset, MoveCommand command, Consumer<MoveReply> reply) {
        enqueue(replicaset, command, reply, false);
    }

    @Override
    public void submitCopy(String replicaset, MoveCommand.ReceiveChunk chunk, Consumer<MoveReply> reply) {
        enqueue(replicaset, chunk, reply, true);
    }

    private void enqueue(String replicaset, MoveCommand command, Consumer<MoveReply> reply, boolean copy) {
        var q = queues.computeIfAbsent(replicaset, id -> new MoveEntryQueue<>(entryLimits.entriesInFlight(), entryLimits.maxCommandsPerEntry(), entryLimits.maxEntryBytes(), budget));
        byte[] encoded = StorageRequest.encodeCommand(command);
        q.add(new Queued(encoded, reply, copy), encoded.length, copy);
        flush(replicaset, q);
    }

    /** Sends waiting commands as entries while the queue has a slot (and chunks the budget) for them. */
    private void flush(String replicaset, MoveEntryQueue<Queued> q) {
        MoveEntryQueue.Entry<Queued> entry;
        while ((entry = q.next(nowMs())) != null) {
            MoveEntryQueue.Entry<Queued> inFlight = entry;
            List<Queued> sent = entry.commands();
            call(replicaset, StorageRequest.moveBatchOfEncoded(sent.stream().map(Queued::command).toList()), false,
                    StorageRequest::decodeMoveBatchReplies, answers -> {
                q.sent(inFlight);
                boolean answered = answers != null && answers.size() == sent.size();
                long now = nowMs();
                for (Queued c : sent) if (answered && !c.copy()) budget.stepAnswered(now - inFlight.sentAtMs(), now);
                for (int i = 0; i < sent.size(); i++) {
                    sent.get(i).reply().accept(answered ? answers.get(i) : MoveReply.unavailable("replicaset " + replicaset + " did not answer"));
                }
                flush(replicaset, q);
            });
        }
        long waitMs = q.budgetWaitMs();
        if (waitMs > 0 && budgetTimers.add(replicaset)) {
            after(waitMs, () -> {
                budgetTimers.remove(replicaset);
                flush(replicaset, q);
            });
        }
    }

    @Override
    public void readChunk(String replicaset, MoveQuery.ReadChunk query, Consumer<MoveQuery.ChunkPage> reply) {
        call(replicaset, StorageRequest.moveQuery(query), true, MoveCodec::decodeChunkPage, reply);
    }

    @Override
    public void readChanges(String replicaset, MoveQuery.ReadChanges query, Consumer<MoveQuery.ChangesPage> reply) {
        call(replicaset, StorageRequest.moveQuery(query), true, MoveCodec::decodeChangesPage, reply);
    }

    @Override
    public void digest(String replicaset, int bucket, Consumer<MoveQuery.BucketDigest> reply) {
        call(replicaset, StorageRequest.moveQuery(new MoveQuery.Digest(bucket)), true, MoveCodec::decodeDigest, reply);
    }

    @Override
    public void status(String replicaset, int maxCandidates, Consumer<MoveQuery.MoveStatus> reply) {
        call(replicaset, StorageRequest.moveQuery(new MoveQuery.Status(maxCandidates)), true, MoveCodec::decodeStatus, reply);
    }

    @Override
    public void inspect(String replicaset, MoveQuery.Inspect query, Consumer<List<MoveQuery.BucketReport>> reply) {
        call(replicaset, StorageRequest.moveQuery(query), true, MoveCodec::decodeReports, reply);
    }

    @Override
    public void exportChunk(String replicaset, MoveQuery.ExportChunk query, Consumer<MoveQuery.ChunkPage> reply) {
        call(replicaset, StorageRequest.moveQuery(query), true, MoveCodec::decodeChunkPage, reply);
    }

    /** Moves of archived buckets copy and check objects through {@code io} (null: this port moves none; they roll back). Driver thread. */
    public void setArchiveIo(ArchiveMoveIo io) {
        this.archiveIo = io;
    }

    /** The archive calls' counters; null without an archive tier. */
    public ArchiveMoveIo.Counts archiveCounts() {
        ArchiveMoveIo io = archiveIo;
        return io == null ? null : io.counts();
    }

    @Override
    public void copyArchive(String source, String destination, int bucket, long generation, Consumer<ArchiveCopy> reply) {
        ArchiveMoveIo io = archiveIo;
        if (io == null) {
            reply.accept(ArchiveCopy.refused("the mover has no archive tier (archive.store: none)"));
            return;
        }
        archiveOf(source, bucket, state -> {
            if (state == null) { reply.accept(null); return; }
            String refusal = ArchiveMoves.copyRefusal(state.record(), state.pointer(), destination, generation);
            if (refusal != null) { reply.accept(ArchiveCopy.refused(refusal)); return; }
            io.copy(state.pointer(), bucket, destination, r -> driver.execute(() -> {
                if (r.failure() == null) reply.accept(new ArchiveCopy(r.value(), ""));
                else if (r.retryable()) reply.accept(null);
                else reply.accept(ArchiveCopy.refused("copy of " + state.pointer().objectKey() + ": " + r.failure().code() + " " + r.failure().getMessage()));
            }));
        });
    }

    @Override
    public void archiveDurable(String replicaset, int bucket, long generation, Consumer<Durability> reply) {
        archiveOf(replicaset, bucket, state -> {
            if (state == null) { reply.accept(null); return; }
            ArchiveMoveIo io = archiveIo;
            if (!ArchiveMoves.needsHead(state.record(), generation)) {
                reply.accept(ArchiveMoves.durability(state.record(), generation, false));
                return;
            }
            if (io == null || state.pointer() == null) { reply.accept(io == null ? null : Durability.MISSING); return; }
            io.isDurable(state.pointer(), bucket, r -> driver.execute(() -> {
                if (r.failure() != null) reply.accept(null); // unclear: ask again, never drop on a guess
                else reply.accept(ArchiveMoves.durability(state.record(), generation, r.value()));
            }));
        });
    }

    @Override
    public void deleteArchive(String objectKey) {
        ArchiveMoveIo io = archiveIo;
        if (io != null) io.delete(objectKey);
    }

    private void archiveOf(String replicaset, int bucket, Consumer<MoveQuery.ArchiveState> reply) {
        call(replicaset, StorageRequest.moveQuery(new MoveQuery.ArchiveOf(bucket)), true, MoveCodec::decodeArchiveState, reply);
    }

    @Override
    public void after(long delayMs, Runnable task) {
        driver.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    private <T> void call(String replicaset, byte[] request, boolean readOnly, Function<ByteBuffer, T> decode, Consumer<T> onAnswer) {
        DataPlaneClient client = client(replicaset);
        if (client == null) {
            driver.execute(() -> onAnswer.accept(null));
            return;
        }
        client.call(readOnly ? DataPlane.READ : DataPlane.WRITE, request, client.budgetDeadlineNs()).whenComplete((reply, error) -> {
            T answer = null;
            if (error == null) {
                try {
                    answer = decode.apply(reply.body());
                } catch (RuntimeException e) {
                    log.warn("undecodable move answer from {}: {}", replicaset, e.toString());
                }
            } else {
                log.debug("move call to {} failed: {}", replicaset, error.toString());
            }
            T result = answer;
            driver.execute(() -> onAnswer.accept(result));
        });
    }

    private DataPlaneClient client(String replicaset) {
        DataPlaneClient c = clients.get(replicaset);
        if (c != null || topology == null) return c;
        ReplicasetSpec spec = topology.replicaset(replicaset).orElse(null);
        if (spec == null) return null;
        // a mover that missed a topology change is refused (STALE_EPOCH) and tries again once its watch catches up
        c = new DataPlaneClient(spec, CALL_BUDGET_MS, null).withEpoch(() -> topology == null ? 0 : topology.epoch(), newer -> { });
        clients.put(replicaset, c);
        return c;
    }

    @Override
    public void close() {
        clients.values().forEach(DataPlaneClient::close);
        clients.clear();
    }
}
