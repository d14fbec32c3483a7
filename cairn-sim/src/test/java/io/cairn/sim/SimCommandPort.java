package io.cairn.sim;

import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MovePort;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;

import java.util.List;
import java.util.function.Consumer;

/**
 * A port that only proposes move commands to a replicaset's log and inspects records, over the
 * simulated network: what the doubled-bucket verifier and the operator's resolver need. They read
 * no chunks, digests or statuses; such a call is a bug in the simulator.
 */
final class SimCommandPort implements MovePort {
    private final SimScheduler scheduler;
    private final SimNetwork network;
    /** Where the calls come from on the network ({@link SimNetwork#OUTSIDE} for the operator). */
    private final String from;
    /** Who calls, in the events' descriptions. */
    private final String who;

    SimCommandPort(SimScheduler scheduler, SimNetwork network, String from, String who) {
        this.scheduler = scheduler;
        this.network = network;
        this.from = from;
        this.who = who;
    }

    @Override
    public void submit(String replicaset, MoveCommand command, Consumer<MoveReply> reply) {
        network.propose(from, replicaset, who + " " + command + " to " + replicaset, SimEntry.move(0, command), reply, () -> true);
    }

    @Override
    public void inspect(String replicaset, MoveQuery.Inspect query, Consumer<List<MoveQuery.BucketReport>> reply) {
        network.query(from, replicaset, who + " inspects " + query.buckets() + " on " + replicaset, s -> s.inspect(query), reply, () -> true);
    }

    @Override
    public void readChunk(String replicaset, MoveQuery.ReadChunk query, Consumer<MoveQuery.ChunkPage> reply) {
        throw new UnsupportedOperationException(who + " reads no chunks");
    }

    @Override
    public void readChanges(String replicaset, MoveQuery.ReadChanges query, Consumer<MoveQuery.ChangesPage> reply) {
        throw new UnsupportedOperationException(who + " reads no chunks");
    }

    @Override
    public void digest(String replicaset, int bucket, Consumer<MoveQuery.BucketDigest> reply) {
        throw new UnsupportedOperationException(who + " asks for no digests");
    }

    @Override
    public void status(String replicaset, int maxCandidates, Consumer<MoveQuery.MoveStatus> reply) {
        throw new UnsupportedOperationException(who + " asks for no statuses");
    }

    @Override
    public void after(long delayMs, Runnable task) {
        scheduler.after(delayMs, who + " timer", task);
    }

    @Override
    public long nowMs() {
        return scheduler.nowMs();
    }
}
