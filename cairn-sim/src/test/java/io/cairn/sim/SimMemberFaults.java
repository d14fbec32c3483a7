package io.cairn.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;

/**
 * The faults inside replicasets, during the chaos phase only: leader losses (the leader crashes,
 * or steps down and keeps its disk), crashes of any member (now and then two of one replicaset
 * at once, which leaves it without a majority until one restarts), and member replacements
 * ({@link SimMembership}), each at random times, so they overlap moves in flight, partitions,
 * driver crashes and each other.
 */
final class SimMemberFaults {
    private final SimScheduler scheduler;
    private final Random random;
    private final List<SimReplicaset> replicasets;
    private final BooleanSupplier chaos;

    SimMemberFaults(SimScheduler scheduler, Random random, List<SimReplicaset> replicasets, BooleanSupplier chaos) {
        this.scheduler = scheduler;
        this.random = random;
        this.replicasets = replicasets;
        this.chaos = chaos;
    }

    /**
     * Starts members on every replicaset: 3 voters (5 in one seed of five), snapshots every 4 to 40
     * applied entries, flushes within 1 to 10 ms.
     */
    void startMembers() {
        int voters = random.nextInt(5) == 0 ? 5 : 3;
        int snapshotEvery = 4 + random.nextInt(37);
        int flushMaxMs = 1 + random.nextInt(10);
        for (SimReplicaset rs : replicasets) rs.startMembers(scheduler, random, voters, snapshotEvery, flushMaxMs);
    }

    void start() {
        scheduleLeaderLoss();
        scheduleCrash();
        scheduleReplacement();
    }

    private SimReplicaset anyReplicaset() {
        return replicasets.get(random.nextInt(replicasets.size()));
    }

    private void scheduleLeaderLoss() {
        scheduler.after(100 + random.nextInt(600), "leader loss", () -> {
            if (!chaos.getAsBoolean()) return;
            SimRaft raft = anyReplicaset().raft();
            if (raft.leader != null && random.nextBoolean()) raft.crash(raft.leader, 20 + random.nextInt(600), random.nextBoolean());
            else raft.loseLeader(30 + random.nextInt(400));
            scheduleLeaderLoss();
        });
    }

    private void scheduleCrash() {
        scheduler.after(50 + random.nextInt(400), "member crash", () -> {
            if (!chaos.getAsBoolean()) return;
            if (random.nextBoolean() && crashOneWithUnflushedEntries()) {
                scheduleCrash();
                return;
            }
            SimRaft raft = anyReplicaset().raft();
            List<SimMember> up = new ArrayList<>();
            for (SimMember m : raft.members) if (m.up()) up.add(m);
            int crashes = random.nextInt(6) == 0 ? 2 : 1;
            for (int i = 0; i < crashes && !up.isEmpty(); i++) {
                raft.crash(up.remove(random.nextInt(up.size())), 10 + random.nextInt(800), random.nextBoolean());
            }
            scheduleCrash();
        });
    }

    /**
     * A replacement is an operation, not a fault: one more in the fault-free convergence, in a
     * replicaset with a move in flight when there is one (in scenario (d) no bucket moves until
     * the operator resolved the double, so its only replacements beside a move are these).
     */
    void replaceWhileConverging() {
        scheduler.after(random.nextInt(500), "member replacement while converging", () -> {
            List<SimReplicaset> moving = new ArrayList<>();
            for (SimReplicaset rs : replicasets) if (rs.raft().movesInFlight()) moving.add(rs);
            List<SimReplicaset> from = moving.isEmpty() ? replicasets : moving;
            from.get(random.nextInt(from.size())).raft().membership.startReplace();
        });
    }

    /**
     * Half the crashes aim at a member whose log has an unflushed tail, when there is one (the
     * moment the fault matters most; a crash at a random instant rarely finds one).
     */
    private boolean crashOneWithUnflushedEntries() {
        List<SimMember> candidates = new ArrayList<>();
        List<SimRaft> rafts = new ArrayList<>();
        for (SimReplicaset rs : replicasets) {
            for (SimMember m : rs.raft().members) {
                if (m.up() && m.flushedIndex < m.lastIndex()) {
                    candidates.add(m);
                    rafts.add(rs.raft());
                }
            }
        }
        if (candidates.isEmpty()) return false;
        int i = random.nextInt(candidates.size());
        rafts.get(i).crash(candidates.get(i), 10 + random.nextInt(800), random.nextBoolean());
        return true;
    }

    private boolean wipeAVoter(SimRaft raft) {
        List<SimMember> voters = new ArrayList<>();
        for (SimMember m : raft.members) if (m.voter && !m.wiped) voters.add(m);
        return !voters.isEmpty() && raft.wipe(voters.get(random.nextInt(voters.size())));
    }

    private void scheduleReplacement() {
        scheduler.after(300 + random.nextInt(1_500), "member replacement", () -> {
            if (!chaos.getAsBoolean()) return;
            SimRaft raft = anyReplicaset().raft();
            // one in three: a voter's disk is lost rather than a member replaced on purpose
            if (random.nextInt(3) != 0 || !wipeAVoter(raft)) raft.membership.startReplace();
            scheduleReplacement();
        });
    }
}
