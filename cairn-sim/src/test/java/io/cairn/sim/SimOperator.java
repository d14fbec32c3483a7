package io.cairn.sim;

import io.cairn.core.doubled.DoubledResolver;

import java.util.List;
import java.util.function.LongConsumer;

/**
 * The operator's `cairn bucket resolve` under the simulator: cairn-core's production
 * {@link DoubledResolver}, reaching the replicasets from outside over the network (commands
 * proposed to the leaders' logs, inspections answered by the leaders), as the coordinator's port
 * does. Used in the fault-free phase; the simulator runs until the resolver answers.
 */
final class SimOperator {
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
        new DoubledResolver(new SimCommandPort(scheduler, network, SimNetwork.OUTSIDE, "operator"), replicasets).resolve(bucket, keep, a -> answer[0] = a);
        long until = scheduler.nowMs() + ANSWER_WAIT_MS;
        while (answer[0] == null && scheduler.nowMs() < until) runFor.accept(10);
        if (answer[0] == null) throw new AssertionError("LIVENESS: the resolver did not answer within " + ANSWER_WAIT_MS + " ms");
        return answer[0];
    }
}
