package io.cairn.sim;

import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MovePort;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;
import io.cairn.core.move.Mover;
import io.cairn.core.rebalance.PlanLimits;
import io.cairn.core.move.SendMove;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The node that runs the production {@link Mover}. Each incarnation has its own Mover and
 * {@link MovePort}; a crash discards it (its SendMoves, timers and pending callbacks go with it,
 * the replicasets keep whatever it applied) and a fresh one starts later and must recover.
 * Two incarnations may be alive at once (an old leader that does not know it was replaced).
 */
final class SimDriver {
    static final long ROUND_INTERVAL_MS = 100;

    final class Incarnation implements MovePort {
        final int number;
        final Mover mover;
        private boolean alive = true;
        private long roundsStarted;

        Incarnation(int number, boolean autoRebalance) {
            this.number = number;
            this.mover = new Mover(this, planLimits, moveLimits, autoRebalance);
            mover.setLayout(layout);
        }

        boolean alive() {
            return alive;
        }

        /** Its network name: each incarnation is a node of its own (a restart is a fail-over to another coordinator node). */
        String node() {
            return "mover" + number;
        }

        long roundsStarted() {
            return roundsStarted;
        }

        private void tick() {
            if (!alive) return;
            mover.setLayout(layout);
            roundsStarted++;
            mover.round();
            scheduler.after(ROUND_INTERVAL_MS, "round of mover " + number, this::tick);
        }

        @Override
        public void submit(String replicaset, MoveCommand command, Consumer<MoveReply> reply) {
            network.propose(node(), replicaset, node() + " " + command.getClass().getSimpleName() + "(" + command.bucket() + ") to "
                    + replicaset, SimEntry.move(0, command), reply, this::alive);
        }

        @Override
        public void readChunk(String replicaset, MoveQuery.ReadChunk query, Consumer<MoveQuery.ChunkPage> reply) {
            network.query(node(), replicaset, node() + " ReadChunk(" + query.bucket() + ") to " + replicaset,
                    rs -> rs.readChunk(query), reply, this::alive);
        }

        @Override
        public void readChanges(String replicaset, MoveQuery.ReadChanges query, Consumer<MoveQuery.ChangesPage> reply) {
            network.query(node(), replicaset, node() + " ReadChanges(" + query.bucket() + ") to " + replicaset,
                    rs -> rs.readChanges(query), reply, this::alive);
        }

        @Override
        public void digest(String replicaset, int bucket, Consumer<MoveQuery.BucketDigest> reply) {
            network.query(node(), replicaset, node() + " Digest(" + bucket + ") to " + replicaset,
                    rs -> rs.digest(bucket), reply, this::alive);
        }

        @Override
        public void status(String replicaset, int maxCandidates, Consumer<MoveQuery.MoveStatus> reply) {
            network.query(node(), replicaset, node() + " Status to " + replicaset,
                    rs -> rs.status(maxCandidates), reply, this::alive);
        }

        @Override
        public void copyArchive(String source, String destination, int bucket, long generation, Consumer<ArchiveCopy> reply) {
            archive.copy(network, node(), source, destination, bucket, generation, reply, this::alive);
        }

        @Override
        public void archiveDurable(String replicaset, int bucket, long generation, Consumer<Durability> reply) {
            archive.durable(network, node(), replicaset, bucket, generation, reply, this::alive);
        }

        @Override
        public void deleteArchive(String objectKey) {
            if (alive) archive.delete(objectKey);
        }

        @Override
        public void after(long delayMs, Runnable task) {
            scheduler.after(delayMs, "timer of mover " + number, () -> {
                if (alive) task.run();
            });
        }

        @Override
        public long nowMs() {
            return scheduler.nowMs();
        }
    }

    private final SimArchive archive;
    private final SimScheduler scheduler;
    private final SimNetwork network;
    private final PlanLimits planLimits;
    private final SendMove.Limits moveLimits;
    private final List<Incarnation> alive = new ArrayList<>();
    private Mover.Layout layout;
    private int started;

    SimDriver(SimScheduler scheduler, SimNetwork network, PlanLimits planLimits, SendMove.Limits moveLimits, Mover.Layout layout,
              SimArchive archive) {
        this.archive = archive;
        this.scheduler = scheduler;
        this.network = network;
        this.planLimits = planLimits;
        this.moveLimits = moveLimits;
        this.layout = layout;
    }

    void setLayout(Mover.Layout layout) {
        this.layout = layout;
    }

    Mover.Layout layout() {
        return layout;
    }

    PlanLimits planLimits() {
        return planLimits;
    }

    /** Starts a fresh Mover; its first round runs at once. */
    Incarnation start() {
        Incarnation i = new Incarnation(++started, true);
        alive.add(i);
        i.tick();
        return i;
    }

    void crash(Incarnation i) {
        i.alive = false;
        alive.remove(i);
    }

    List<Incarnation> alive() {
        return List.copyOf(alive);
    }

    /** The newest live incarnation (the current leader), or null. */
    Incarnation current() {
        return alive.isEmpty() ? null : alive.get(alive.size() - 1);
    }
}
