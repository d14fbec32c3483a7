package io.cairn.server.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.doubled.DoubledResolver;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MovePort;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;
import io.cairn.core.move.Mover;
import io.cairn.core.move.ProblemChanges;
import io.cairn.core.move.SendMove;
import io.cairn.core.rebalance.PlanLimits;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.topology.Topology;
import io.cairn.storage.ArchiveMoveIo;
import io.cairn.storage.DataPlaneMovePort;
import io.cairn.storage.DriverLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs the cluster's one {@link Mover} on the coordinator leader, on a single driver thread.
 * When this node stops being the leader its mover is retired: its port goes silent, so its
 * moves stop where they are and the next leader's mover recovers them from the replicasets'
 * records (which is always safe, see {@link io.cairn.core.move.BucketLedger}).
 */
public final class MoverService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MoverService.class);

    /**
     * Settings: round period, plan limits, chunk bounds, whether weights drive moves automatically,
     * the bytes per second chunks may be copied at (0: no limit), and the median step latency the
     * copy rate adapts to (0: a fixed rate).
     */
    public record Settings(Duration roundInterval, PlanLimits planLimits, SendMove.Limits moveLimits, boolean autoRebalance,
                           long maxBytesPerSecond, long stepLatencyTargetMs, DataPlaneMovePort.EntryLimits entryLimits) {}

    private static final long PUBLISH_MS = 100;

    private final DriverLoop driver = new DriverLoop("cairn-mover", "rebalancer");
    private final DataPlaneMovePort port;
    private volatile ArchiveMoveIo archiveIo;
    private final BooleanSupplier isLeader;
    /** Replaced by {@link #applySettings} on the driver thread (run-time settings); read there too. */
    private volatile Settings settings;
    private volatile Topology topology;
    private final CountDownLatch topologyKnown = new CountDownLatch(1);
    private volatile boolean bootstrapComplete;
    private Mover mover;
    private SilenceablePort moverPort;
    /** The last progress published, and its JSON; null and {@link RebalancerProgress#NOT_RUNNING} while this node runs no rebalancer. */
    private volatile RebalancerProgress running;
    private volatile Map<String, Object> progress = RebalancerProgress.NOT_RUNNING;

    public MoverService(BooleanSupplier isLeader, Settings settings) {
        this.isLeader = isLeader;
        this.settings = settings;
        this.port = new DataPlaneMovePort(driver, settings.maxBytesPerSecond(), settings.stepLatencyTargetMs(), settings.entryLimits());
    }

    /**
     * Lets moves of archived buckets copy their objects by server-side copy (the coordinator opens the
     * same store the storage nodes use); without it such a move rolls back. Call before {@link #start}.
     */
    public MoverService withArchiveIo(ArchiveMoveIo io) {
        this.archiveIo = io;
        driver.execute(() -> port.setArchiveIo(io));
        return this;
    }

    /** Counters of the archive calls moves made (copies, durable checks, missing objects, deletes); null without an archive tier. */
    public ArchiveMoveIo.Counts archiveCounts() {
        ArchiveMoveIo archives = archiveIo;
        return archives == null ? null : archives.counts();
    }

    public MoverService start() {
        long ms = settings.roundInterval().toMillis();
        driver.every(ms, this::tick);
        // The one place progress is published: moves end between rounds, and a round's answers
        // arrive after its tick, so progress (and "balanced") is refreshed more often than rounds run.
        driver.every(PUBLISH_MS, () -> {
            if (mover != null) publish(mover.progress());
        });
        return this;
    }

    public void setTopology(Topology next) {
        driver.execute(() -> {
            if (topology != null && next.epoch() <= topology.epoch()) return;
            topology = next;
            topologyKnown.countDown();
            port.setTopology(next);
            if (mover != null) mover.setLayout(layout(next));
        });
    }

    /**
     * Run-time settings (cairn config set): the plan limits, automatic rebalancing and the copy rate
     * take effect from the next round; moves in flight go on. The round interval and chunk bounds
     * are fixed at start. One INFO line per change.
     */
    public void applySettings(Settings next) {
        driver.execute(() -> {
            Settings before = settings;
            if (before.equals(next)) return;
            settings = next;
            port.setCopyRate(next.maxBytesPerSecond(), next.stepLatencyTargetMs());
            if (mover != null) mover.setPlanning(next.planLimits(), next.autoRebalance());
            log.info("rebalancer settings changed: {} -> {}", before, next);
        });
    }

    /** The settings in force (the config file's, with run-time changes applied). */
    public Settings settings() {
        return settings;
    }

    /** The coordinator's word on whether every replicaset has claimed its initial buckets. */
    public void setBootstrapComplete(boolean complete) {
        bootstrapComplete = complete;
    }

    /** Current problems (DOUBLED_BUCKETS, MISSING_BUCKETS, unreachable replicasets) for /alerts. */
    public List<String> alerts() {
        RebalancerProgress p = running;
        return p == null ? List.of() : p.plan().problems();
    }

    /** Waits until the first topology has reached the rebalancer (manual moves need it); false on timeout. */
    public boolean awaitTopology(Duration timeout) throws InterruptedException {
        return topologyKnown.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Queues a manual move; false when this node is not the coordinator leader.
     *
     * @throws IllegalArgumentException for a bucket or replicaset the topology does not have
     * @throws IllegalStateException before the first topology reached the rebalancer
     */
    public boolean requestMove(int bucket, String destination) {
        Topology t = topology;
        if (t == null) throw new IllegalStateException("the rebalancer has not loaded the topology yet; try again in a moment");
        if (t.replicaset(destination).isEmpty() || bucket < 1 || bucket > t.bucketCount()) {
            throw new IllegalArgumentException("no such move target: bucket " + bucket + " to '" + destination + "'");
        }
        if (t.replicaset(destination).get().weight() <= 0) {
            throw new IllegalArgumentException("replicaset '" + destination + "' has weight 0 (DRAINING or DRAINED): it receives no buckets;"
                    + " give it a weight first (cairn topology set-weight " + destination + " 1)");
        }
        if (!isLeader.getAsBoolean()) return false;
        driver.execute(() -> {
            // Before the first tick the mover does not exist yet: start it rather than drop the request.
            if (ensureMover()) mover.requestMove(bucket, destination);
            else log.warn("manual move of bucket {} to {} dropped: this coordinator is no longer the leader", bucket, destination);
        });
        return true;
    }

    /** Driver thread: the mover, created when this node leads and knows the topology; false otherwise. */
    private boolean ensureMover() {
        if (mover == null && isLeader.getAsBoolean() && topology != null) {
            moverPort = new SilenceablePort(port);
            mover = new Mover(moverPort, settings.planLimits(), settings.moveLimits(), settings.autoRebalance());
            mover.setLayout(layout(topology));
            log.info("rebalancer running on this coordinator (epoch {})", topology.epoch());
        }
        return mover != null;
    }

    /** The moves in flight (phase, keys sent) and the move port's queues: what a stalled move waits for. */
    public CompletableFuture<String> describe() {
        var result = new CompletableFuture<String>();
        driver.execute(() -> {
            StringBuilder out = new StringBuilder();
            if (mover != null) mover.inFlight().forEach((bucket, m) -> out.append("bucket ").append(bucket).append(' ')
                    .append(m.source()).append("->").append(m.destination()).append(' ').append(m.phase())
                    .append(" keysSent=").append(m.keysSent()).append("; "));
            result.complete(out + port.describe());
        });
        return result.orTimeout(5, TimeUnit.SECONDS);
    }

    /** Rebalancer progress as JSON, for /info, /rebalancer and `cairn status`. */
    public Map<String, Object> progress() {
        return progress;
    }

    /** Rebalancer progress as figures (metrics); empty while this node runs no rebalancer. */
    public Optional<RebalancerProgress> running() {
        return Optional.ofNullable(running);
    }

    private void tick() {
        try {
            if (!isLeader.getAsBoolean() || topology == null) {
                retire();
                return;
            }
            ensureMover();
            mover.setBootstrapComplete(bootstrapComplete);
            mover.round();
        } catch (RuntimeException e) {
            log.error("rebalancer round failed", e);
        }
    }

    private void retire() {
        if (mover == null) return;
        moverPort.silence();
        mover = null;
        running = null;
        progress = RebalancerProgress.NOT_RUNNING;
        log.info("rebalancer stopped on this coordinator (no longer leader)");
    }

    /** Buckets moved so far, as seen at a publish: the rate is taken over the last 10 s of them. */
    private record MovedSample(long atMs, long moved) {}

    private final ArrayDeque<MovedSample> movedSamples = new ArrayDeque<>();

    private void publish(Mover.Progress p) {
        long now = System.currentTimeMillis();
        movedSamples.addLast(new MovedSample(now, p.moved()));
        while (movedSamples.size() > 2 && movedSamples.peekFirst().atMs() < now - 10_000) movedSamples.removeFirst();
        MovedSample first = movedSamples.peekFirst();
        double seconds = Math.max(1, now - first.atMs()) / 1000.0;
        double rate = (p.moved() - first.moved()) / seconds;
        long eta = p.bucketsToMove() == 0 ? 0 : rate > 0 ? Math.round(p.bucketsToMove() / rate) : -1;
        ArchiveMoveIo archives = archiveIo;
        RebalancerProgress published = new RebalancerProgress(p, topology.epoch(), Math.round(rate * 10) / 10.0, eta, port.copyBytesPerSecond(),
                port.stepLatency(), port.backlog(), archives == null ? null : archives.counts(), movesInFlight());
        running = published;
        progress = published.toJson();
        logProblemChanges(p.problems(), now);
    }

    /** At most this many moves in flight are listed in progress (the web console marks them on its bucket map). */
    private static final int MAX_LISTED_MOVES = 256;

    /** Driver thread: the moves in flight, lowest bucket first, at most {@link #MAX_LISTED_MOVES}. */
    private List<RebalancerProgress.MoveInFlight> movesInFlight() {
        return new TreeMap<>(mover.inFlight()).entrySet().stream().limit(MAX_LISTED_MOVES)
                .map(e -> new RebalancerProgress.MoveInFlight(e.getKey(), e.getValue().source(), e.getValue().destination(),
                        String.valueOf(e.getValue().phase()), e.getValue().keysSent()))
                .toList();
    }

    /** A problem shorter than this (a leader election, a shutdown) is not logged. */
    private static final long LOG_PROBLEMS_AFTER_MS = 5_000;
    private final ProblemChanges problemChanges = new ProblemChanges(LOG_PROBLEMS_AFTER_MS);

    /** One line when a problem has lasted 5 s (with the move port's queues for a stalled move) and one when it clears. */
    private void logProblemChanges(List<String> problems, long nowMs) {
        for (ProblemChanges.Change c : problemChanges.update(problems, nowMs)) {
            if (!c.appeared()) log.info("rebalancer problem cleared: {}", c.kind());
            else if (c.kind().equals(Mover.STALLED_MOVE)) log.warn("rebalancer problem: {}; move queues: {}", c.text(), port.describe());
            else log.warn("rebalancer problem: {}", c.text());
        }
    }

    private static Mover.Layout layout(Topology t) {
        Map<String, Double> weights = new LinkedHashMap<>();
        for (ReplicasetSpec rs : t.replicasets()) weights.put(rs.id(), (double) rs.weight());
        return new Mover.Layout(t.epoch(), t.bucketCount(), weights);
    }

    /**
     * Every replicaset's record of {@code bucket} (a null value: that replicaset did not answer);
     * completes with null when this node is not the leader.
     */
    public CompletableFuture<Map<String, BucketRecord>> locate(int bucket) {
        var result = new CompletableFuture<Map<String, BucketRecord>>();
        driver.execute(() -> {
            if (!ensureMover()) result.complete(null);
            else mover.locate(bucket, result::complete);
        });
        return result.orTimeout(20, TimeUnit.SECONDS);
    }

    /** Pins or unpins a bucket where it is; the answer says what happened. Null when not the leader. */
    public CompletableFuture<String> pin(int bucket, boolean pinned) {
        var result = new CompletableFuture<String>();
        driver.execute(() -> {
            if (!ensureMover()) result.complete(null);
            else mover.pin(bucket, pinned, result::complete);
        });
        return result.orTimeout(20, TimeUnit.SECONDS);
    }

    private DoubledResolver resolver() {
        return new DoubledResolver(port, topology.replicasets().stream().map(ReplicasetSpec::id).toList());
    }

    /** Doubled buckets with every replicaset's report (docs/doubled-buckets.md); null when not the leader. */
    public CompletableFuture<Map<Integer, Map<String, MoveQuery.BucketReport>>> doubled() {
        var result = new CompletableFuture<Map<Integer, Map<String, MoveQuery.BucketReport>>>();
        driver.execute(() -> {
            if (!ensureMover()) result.complete(null);
            else resolver().listDoubled(result::complete);
        });
        return result.orTimeout(30, TimeUnit.SECONDS);
    }

    /** Keeps the copy of {@code bucket} on {@code keep}, quarantining the others; the answer says what happened. Null when not the leader. */
    public CompletableFuture<String> resolve(int bucket, String keep) {
        var result = new CompletableFuture<String>();
        driver.execute(() -> {
            if (!ensureMover()) result.complete(null);
            else resolver().resolve(bucket, keep, answer -> {
                log.info("resolve doubled bucket {} keeping {}: {}", bucket, keep, answer);
                result.complete(answer);
            });
        });
        return result.orTimeout(60, TimeUnit.SECONDS);
    }

    /**
     * One page of a doubled copy's keys for export (stored records: value and expiry), after
     * {@code afterKey}; null when not the leader or no answer.
     */
    public CompletableFuture<MoveQuery.ChunkPage> exportPage(int bucket, String from, byte[] afterKey, int maxKeys) {
        var result = new CompletableFuture<MoveQuery.ChunkPage>();
        driver.execute(() -> {
            if (!ensureMover()) result.complete(null);
            else port.exportChunk(from, new MoveQuery.ExportChunk(bucket, afterKey, maxKeys, 4 << 20), result::complete);
        });
        return result.orTimeout(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        driver.close();
        port.close();
        ArchiveMoveIo archives = archiveIo;
        if (archives != null) archives.close();
    }

    /** A port that stops delivering once its mover is retired (calls and answers are dropped). */
    private static final class SilenceablePort implements MovePort {
        private final MovePort inner;
        private volatile boolean silent;

        SilenceablePort(MovePort inner) {
            this.inner = inner;
        }

        void silence() {
            silent = true;
        }

        private <T> Consumer<T> guard(Consumer<T> c) {
            return v -> {
                if (!silent) c.accept(v);
            };
        }

        @Override
        public void submit(String replicaset, MoveCommand command, Consumer<MoveReply> reply) {
            if (!silent) inner.submit(replicaset, command, guard(reply));
        }

        @Override
        public void submitCopy(String replicaset, MoveCommand.ReceiveChunk chunk, Consumer<MoveReply> reply) {
            if (!silent) inner.submitCopy(replicaset, chunk, guard(reply));
        }

        @Override
        public void readChunk(String replicaset, MoveQuery.ReadChunk query, Consumer<MoveQuery.ChunkPage> reply) {
            if (!silent) inner.readChunk(replicaset, query, guard(reply));
        }

        @Override
        public void readChanges(String replicaset, MoveQuery.ReadChanges query, Consumer<MoveQuery.ChangesPage> reply) {
            if (!silent) inner.readChanges(replicaset, query, guard(reply));
        }

        @Override
        public void digest(String replicaset, int bucket, Consumer<MoveQuery.BucketDigest> reply) {
            if (!silent) inner.digest(replicaset, bucket, guard(reply));
        }

        @Override
        public void status(String replicaset, int maxCandidates, Consumer<MoveQuery.MoveStatus> reply) {
            if (!silent) inner.status(replicaset, maxCandidates, guard(reply));
        }

        @Override
        public void copyArchive(String source, String destination, int bucket, long generation, Consumer<ArchiveCopy> reply) {
            if (!silent) inner.copyArchive(source, destination, bucket, generation, guard(reply));
        }

        @Override
        public void archiveDurable(String replicaset, int bucket, long generation, Consumer<Durability> reply) {
            if (!silent) inner.archiveDurable(replicaset, bucket, generation, guard(reply));
        }

        @Override
        public void deleteArchive(String objectKey) {
            if (!silent) inner.deleteArchive(objectKey);
        }

        @Override
        public void after(long delayMs, Runnable task) {
            if (!silent) inner.after(delayMs, () -> {
                if (!silent) task.run();
            });
        }

        @Override
        public long nowMs() {
            return inner.nowMs();
        }
    }
}
