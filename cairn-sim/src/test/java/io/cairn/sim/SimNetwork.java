package io.cairn.sim;

import io.cairn.core.move.InMemoryReplicaset;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Request/reply between the driver (or a client) and replicaset leaders, with faults: a request
 * may be dropped, delayed (so requests reorder), held back far beyond the caller's timeout (a
 * stray message, vshard #214), or duplicated (the copy is applied later, its reply ignored); a
 * reply may be dropped after the request applied. A command is a log entry of the replicaset's
 * leader ({@link SimRaft}), answered when it commits; if the leader is lost first, the entry may
 * still commit under the next leader or vanish, and its answer is lost. Every call is answered exactly once: by the
 * reply or, if that does not come in time, by {@code null} at the timeout (MovePort's "no answer").
 *
 * <p>Partitions: each cut isolates a set of nodes (Mover incarnations, replicaset leaders) from
 * every other node until it heals; a message whose sender and receiver a cut separates, when it
 * is sent or when it would arrive, is lost, requests and replies alike (a command that arrived
 * before the cut still applies). Clients, routers and the operator ({@link #OUTSIDE}) are never
 * cut off: the route is an oracle here, and a partitioned client is only a client whose writes time out.
 */
final class SimNetwork {
    /** Fault probabilities and delays; {@link #NONE} once the faults stop. */
    record Faults(double dropRequest, double dropReply, double duplicate, double strayDelay, int maxDelayMs) {
        static final Faults NONE = new Faults(0, 0, 0, 0, 5);
    }

    static final long TIMEOUT_MS = 120;
    /** The sender name of clients and the operator, which no partition cuts off. */
    static final String OUTSIDE = "outside";

    private final SimScheduler scheduler;
    private final Random random;
    private final Map<String, SimReplicaset> replicasets;
    private Faults faults;
    private final List<Set<String>> cuts = new ArrayList<>();
    private long lostToPartitions;

    SimNetwork(SimScheduler scheduler, Random random, Map<String, SimReplicaset> replicasets, Faults faults) {
        this.scheduler = scheduler;
        this.random = random;
        this.replicasets = replicasets;
        this.faults = faults;
    }

    void setFaults(Faults faults) {
        this.faults = faults;
    }

    /** Cuts {@code isolated} off from every other node until {@link #heal} (cuts may overlap). */
    void partition(Set<String> isolated) {
        cuts.add(isolated);
    }

    void heal(Set<String> cut) {
        cuts.removeIf(c -> c == cut);  // by identity: two equal cuts heal one at a time
    }

    void healAll() {
        cuts.clear();
    }

    /** Messages lost because a partition separated their sender and receiver. */
    long lostToPartitions() {
        return lostToPartitions;
    }

    /** False, and the message counted as lost, when a cut separates {@code from} and {@code to}. */
    private boolean passes(String from, String to) {
        if (from.equals(OUTSIDE) || to.equals(OUTSIDE)) return true;
        for (Set<String> cut : cuts) {
            if (cut.contains(from) != cut.contains(to)) {
                lostToPartitions++;
                return false;
            }
        }
        return true;
    }

    private long delay() {
        return 1 + random.nextInt(faults.maxDelayMs());
    }

    /** A query, answered from the state machine of {@code replicaset}'s leader. {@code reply} runs only while {@code callerAlive}. */
    <T> void query(String from, String replicaset, String what, Function<InMemoryReplicaset, T> op, Consumer<T> reply,
                   BooleanSupplier callerAlive) {
        call(from, replicaset, what, null, op, reply, callerAlive);
    }

    /**
     * A command: {@code entry} is appended to the leader's log and answered when it commits
     * (the answer of an entry whose leader is lost first never comes). {@code reply} runs only
     * while {@code callerAlive} (a crashed driver hears nothing).
     */
    <T> void propose(String from, String replicaset, String what, SimEntry entry, Consumer<T> reply, BooleanSupplier callerAlive) {
        call(from, replicaset, what, entry, null, reply, callerAlive);
    }

    private <T> void call(String from, String replicaset, String what, SimEntry entry, Function<InMemoryReplicaset, T> op,
                          Consumer<T> reply, BooleanSupplier callerAlive) {
        boolean[] answered = {false};
        Consumer<T> answer = v -> {
            if (answered[0]) return;
            answered[0] = true;
            if (callerAlive.getAsBoolean()) reply.accept(v);
        };
        scheduler.after(TIMEOUT_MS, "timeout " + what, () -> answer.accept(null));
        if (!passes(from, replicaset)) return;
        if (random.nextDouble() < faults.dropRequest()) return;
        deliver(from, replicaset, what, entry, op, answer);
        if (entry != null && random.nextDouble() < faults.duplicate()) {
            scheduler.after(delay() * 4, "duplicate " + what, () -> deliver(from, replicaset, "dup " + what, entry, op, v -> { }));
        }
    }

    @SuppressWarnings("unchecked")
    private <T> void deliver(String from, String replicaset, String what, SimEntry entry, Function<InMemoryReplicaset, T> op,
                             Consumer<T> answer) {
        long delayMs = random.nextDouble() < faults.strayDelay() ? TIMEOUT_MS + random.nextInt(1_500) : delay();
        scheduler.after(delayMs, "deliver " + what, () -> {
            if (!passes(from, replicaset)) return;
            SimReplicaset rs = replicasets.get(replicaset);
            if (!rs.leaderUp(scheduler.nowMs())) return;  // no leader: no answer, nothing applied
            if (entry == null) {
                reply(op.apply(rs.leaderState()), replicaset, from, answer, what);
                return;
            }
            rs.propose(entry, result -> reply((T) result, replicaset, from, answer, what));
        });
    }

    private <T> void reply(T value, String from, String to, Consumer<T> answer, String what) {
        if (!passes(from, to)) return;
        if (random.nextDouble() < faults.dropReply()) return;
        scheduler.after(delay(), "reply " + what, () -> {
            if (passes(from, to)) answer.accept(value);
        });
    }
}
