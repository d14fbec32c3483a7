package io.cairn.sim;

import io.cairn.core.doubled.DoubledResolver;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MovePort;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The operator's `cairn bucket resolve` under the simulator: cairn-core's production
 * {@link DoubledResolver}, reaching the replicasets from outside over the network (commands
 * proposed to the leaders' logs, inspections answered by the leaders), as the coordinator's port
 * does. Used in the fault-free phase; the simulator runs until the resolver answers.
 */
final class SimOperator implements MovePort {
    /** Virtual time the operator waits for one resolution's answer. */
    static final long ANSWER_WAIT_MS = 5_000;

    private final SimScheduler scheduler;
    private final SimNetwork network;

    SimOperator(SimScheduler scheduler, SimNetwork network) {
        this.scheduler = scheduler;
        this.network = network;
    }

    /** Keeps {@code bucket}'s copy on {@code keep}: the resolver's answer, once the simulation produced it. */
    String resolve(int bucket, String keep, List<String> replicasets, LongConsumer runFor) {
        String[] answer = {null};
        new DoubledResolver(this, replicasets).resolve(bucket, keep, a -> answer[0] = a);
        long until = scheduler.nowMs() + ANSWER_WAIT_MS;
        while (answer[0] == null && scheduler.nowMs() < until) runFor.accept(10);
        if (answer[0] == null) throw new AssertionError("LIVENESS: the resolver did not answer within " + ANSWER_WAIT_MS + " ms");
        return answer[0];
    }

    @Override
    public void submit(String replicaset, MoveCommand command, Consumer<MoveReply> reply) {
        network.propose(SimNetwork.OUTSIDE, replicaset, "operator " + command + " to " + replicaset, SimEntry.move(0, command), reply, () -> true);
    }

    @Override
    public void inspect(String replicaset, MoveQuery.Inspect query, Consumer<List<MoveQuery.BucketReport>> reply) {
        network.query(SimNetwork.OUTSIDE, replicaset, "operator inspects " + query.buckets() + " on " + replicaset,
                s -> s.inspect(query), reply, () -> true);
    }

    @Override
    public void readChunk(String replicaset, MoveQuery.ReadChunk query, Consumer<MoveQuery.ChunkPage> reply) {
        throw new UnsupportedOperationException("the operator reads no chunks");
    }

    @Override
    public void readChanges(String replicaset, MoveQuery.ReadChanges query, Consumer<MoveQuery.ChangesPage> reply) {
        throw new UnsupportedOperationException("the operator reads no chunks");
    }

    @Override
    public void digest(String replicaset, int bucket, Consumer<MoveQuery.BucketDigest> reply) {
        throw new UnsupportedOperationException("the operator asks for no digests");
    }

    @Override
    public void status(String replicaset, int maxCandidates, Consumer<MoveQuery.MoveStatus> reply) {
        throw new UnsupportedOperationException("the operator asks for no statuses");
    }

    @Override
    public void after(long delayMs, Runnable task) {
        scheduler.after(delayMs, "operator timer", task);
    }

    @Override
    public long nowMs() {
        return scheduler.nowMs();
    }
}
