package io.cairn.sim;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.Mover;
import io.cairn.core.move.SendMove;
import io.cairn.core.rebalance.PlanLimits;
import io.cairn.core.rebalance.RebalancePlanner;
import io.cairn.core.rebalance.ReplicasetLoad;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * One simulated run of the bucket-move protocol, from one seed: replicasets
 * ({@link SimReplicaset}) of members that crash losing their unflushed log, rebuild from snapshot
 * and log, and are replaced ({@link SimRaft}, {@link SimMemberFaults}), a faulty network that also
 * partitions ({@link SimNetwork}), a driver
 * node running the production Mover that crashes and is sometimes doubled ({@link SimDriver}), and writing
 * clients ({@link SimClients}), plus an operator who pins and unpins buckets. Everything runs on
 * one thread from one {@link Random}, so a seed replays exactly.
 *
 * <p>Phases: bootstrap; CHAOS (faults on, the scenario's change applied, clients writing,
 * {@link Invariants} and the member checks of {@link SimRaft#check} after every event); HEAL (faults
 * stop, partitions heal, crashed members restart, one fresh driver, clients
 * stop, the operator resolves an injected double); then at most {@link #MAX_HEAL_ROUNDS}
 * driver rounds to converge: every bucket ACTIVE exactly once, nothing SENDING, RECEIVING or
 * SENT with data, the disbalance within the plan threshold, no member replacement half-way and every
 * member caught up and equal to the committed state (liveness).
 *
 * <p>Besides pass/fail, a run counts what is legal but worth knowing: rounds that reported
 * DOUBLED_BUCKETS with no bucket doubled, and a doubled bucket left stuck SENDING.
 */
final class Sim {
    static final long CHAOS_MS = 6_000;
    static final int MAX_HEAL_ROUNDS = 300;

    /** What a run did, for the summary line. */
    record Result(long events, long virtualMs, long acknowledged, long moved, long rolledBack, int driverStarts,
                  boolean sawDoubledProblem, int falseDoubledReports, boolean doubledStuckSending, long containedCopies,
                  int partitions, long lostToPartitions, SimRaftCounters members, long archiveCopies, long archiveObjectsLost) {}

    /**
     * Knobs a reproduction may change; the defaults are the CI run. Buckets start with 0 to 3
     * keys (a real bootstrap creates them all empty).
     */
    record Options(int minKeysPerBucket, int clients) {
        static final Options DEFAULT = new Options(0, 3);
    }

    private final Scenario scenario;
    private final long seed;
    private final Options options;
    private final Random random;
    private final SimScheduler scheduler = new SimScheduler();
    private final List<SimReplicaset> replicasets = new ArrayList<>();
    private final Map<String, SimReplicaset> byId = new LinkedHashMap<>();
    private final Invariants invariants = new Invariants(replicasets);
    private final int bucketCount;
    private SimNetwork network;
    private SimDriver driver;
    private SimClients clients;
    private boolean chaos = true;
    private int doubled = -1;
    private boolean sawDoubledProblem;
    /** Rounds that reported DOUBLED_BUCKETS while no bucket was doubled (the invariants hold at every instant). */
    private int falseDoubledReports;
    /** After fault-free rounds, a copy of the doubled bucket is SENDING: a move that cannot finish while the double lasts. */
    private boolean doubledStuckSending;
    private final Map<SimDriver.Incarnation, List<String>> lastProblems = new java.util.IdentityHashMap<>();
    private int driverStarts;
    private long moved;
    private long rolledBack;
    private int partitions;
    private SimMemberFaults memberFaults;
    /** Scenario (e): the storage leaders' verification, and per replicaset the generation at which its copy of the double was contained. */
    private SimVerifier verifier;
    private final Map<String, Long> containedAt = new LinkedHashMap<>();
    /** The archive tier: a store, and buckets archived at bootstrap in one seed of two (a random of its own, so other draws stay as they were). */
    private final Random archiveRandom;
    private final boolean archiving;
    private SimArchive archive;

    Sim(Scenario scenario, long seed, Options options) {
        this.scenario = scenario;
        this.seed = seed;
        this.options = options;
        this.random = new Random(seed * 31 + scenario.ordinal());
        this.bucketCount = 30 + random.nextInt(61);
        this.archiveRandom = new Random(seed * 7_919 + 17 + scenario.ordinal());
        this.archiving = archiveRandom.nextBoolean();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String string(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    Result run() {
        try {
            setUp();
            runUntil(CHAOS_MS);
            heal();
            converge();
            return new Result(scheduler.events(), scheduler.nowMs(), clients.acknowledged(), moved, rolledBack, driverStarts,
                    sawDoubledProblem, falseDoubledReports, doubledStuckSending, verifier == null ? 0 : verifier.contained(),
                    partitions, network.lostToPartitions(), memberCounters(), archive.copies(), archive.objectsLost());
        } catch (Throwable t) {
            throw new AssertionError(scenario + " seed " + seed + " failed at event #" + scheduler.events() + " (" + scheduler.nowMs()
                    + " ms, " + scheduler.current() + "): " + t + "\nlast events:\n" + scheduler.recentEvents(), t);
        }
    }

    // ---- set-up ----

    private void setUp() {
        int n = doubledScenario() ? 2 + random.nextInt(2) : 3 + random.nextInt(2);
        for (int i = 0; i < n; i++) addReplicaset("rs" + i);
        archive = new SimArchive(scheduler, archiveRandom, () -> chaos, byId);
        invariants.useArchive(archive);
        int holders = switch (scenario) {
            case ADD_REPLICASET -> n - 1 - random.nextInt(n - 2);  // 2 or 3 hold everything, the rest join
            case DOUBLED_BUCKET, DOUBLED_CONTAINED, RESTORED_COPY -> 2;  // with a third replicaset joining, the Mover moves while the double lasts
            default -> n;
        };
        for (int b = 1; b <= bucketCount; b++) bootstrap(replicasets.get((b - 1) * holders / bucketCount), b);
        Map<String, Double> weights = new LinkedHashMap<>();
        for (SimReplicaset rs : replicasets) weights.put(rs.id, 1.0);
        if (scenario == Scenario.DRAIN) weights.put(replicasets.get(random.nextInt(n)).id, 0.0);
        if (scenario == Scenario.RESTORED_COPY) injectRestoredCopy();
        else if (doubledScenario()) injectDouble();
        invariants.acceptCurrentState();
        memberFaults = new SimMemberFaults(scheduler, random, replicasets, () -> chaos);
        memberFaults.startMembers();

        SimNetwork.Faults faults = new SimNetwork.Faults(random.nextDouble() * 0.1, random.nextDouble() * 0.1,
                random.nextDouble() * 0.05, random.nextDouble() * 0.03, 5 + random.nextInt(40));
        network = new SimNetwork(scheduler, random, byId, faults);
        // One seed in four runs without partitions, so the other faults are also seen alone.
        int partitionGapMs = random.nextInt(4) == 0 ? 0 : 300 + random.nextInt(1_700);
        PlanLimits planLimits = new PlanLimits(PlanLimits.DEFAULT_THRESHOLD_PERCENT, 1 + random.nextInt(3), 1 + random.nextInt(4),
                2 + random.nextInt(7));
        SendMove.Limits moveLimits = new SendMove.Limits(1 + random.nextInt(4), 1 << 16, 30 + random.nextInt(50), random.nextBoolean());
        driver = new SimDriver(scheduler, network, planLimits, moveLimits, new Mover.Layout(1, bucketCount, weights), archive);
        clients = new SimClients(scheduler, network, random, replicasets, bucketCount, doubled);
        clients.start(options.clients());
        startDriver();
        memberFaults.start();
        scheduleDriverFaults();
        if (partitionGapMs > 0) schedulePartitions(partitionGapMs);
        if (scenario == Scenario.MANUAL_BACK_AND_FORTH) scheduleManualMoves(1 + random.nextInt(bucketCount));
        if (!doubledScenario()) schedulePins();
        if (containedScenario()) {
            verifier = new SimVerifier(scheduler, network, random, replicasets, doubled);
            verifier.start();
            scheduleStaleWrites(replicasets.get(0), 0);
        }
    }

    private boolean doubledScenario() {
        return scenario == Scenario.DOUBLED_BUCKET || containedScenario();
    }

    /** Scenarios (e) and (f): storage leaders verify and contain the double themselves. */
    private boolean containedScenario() {
        return scenario == Scenario.DOUBLED_CONTAINED || scenario == Scenario.RESTORED_COPY;
    }

    /** Invariant of scenario (f): the restored copy stays below the owner's generation (a tie would leave no copy to prefer). */
    private void checkRestoredBelowOwner() {
        BucketRecord restored = replicasets.get(0).record(doubled);
        BucketRecord owner = replicasets.get(1).record(doubled);
        if (restored == null || owner == null || owner.state() != BucketState.ACTIVE) return;
        if ((restored.state() == BucketState.ACTIVE || restored.state() == BucketState.READONLY) && restored.generation() >= owner.generation()) {
            throw new Invariants.Violation("the restored copy of bucket " + doubled + " reached the owner's generation: "
                    + Invariants.describe(doubled, replicasets));
        }
    }

    /** A router that only knows the older copy: keeps sending the doubled bucket's writes there. */
    private void scheduleStaleWrites(SimReplicaset stale, int n) {
        scheduler.after(10 + random.nextInt(40), "stale write", () -> {
            if (!chaos) return;
            String key = "b" + doubled + "-k" + random.nextInt(SimClients.KEYS_PER_BUCKET);
            network.propose(SimNetwork.OUTSIDE, stale.id, "stale write " + key + " to " + stale.id,
                    SimEntry.write(0, doubled, key, "stale-" + n), r -> { }, () -> true);
            scheduleStaleWrites(stale, n + 1);
        });
    }

    /** Invariant of scenario (e): a contained copy never applies a write again (only a newer generation of it may). */
    private void checkNotContained(SimReplicaset rs, int bucket) {
        Long at = bucket == doubled ? containedAt.get(rs.id) : null;
        if (at != null && rs.record(bucket).generation() <= at) {
            throw new Invariants.Violation("a write was applied to bucket " + bucket + " on " + rs.id + " after its copy was contained at generation "
                    + at + ": " + Invariants.describe(bucket, replicasets));
        }
    }

    private void observeContainment() {
        for (SimReplicaset rs : replicasets) {
            BucketRecord r = rs.record(doubled);
            if (r != null && r.isContainedDouble()) containedAt.merge(rs.id, r.generation(), Math::max);
        }
    }

    private void addReplicaset(String id) {
        SimReplicaset rs = new SimReplicaset(id, invariants::touched, (r, bucket, key, value) -> {
            checkNotContained(r, bucket);
            invariants.writeApplied(bucket, key, value);
        });
        rs.changesInReply = random.nextInt(4); // 0: SendCopied answers without changes, the driver queries them
        replicasets.add(rs);
        byId.put(id, rs);
    }

    private void bootstrap(SimReplicaset rs, int bucket) {
        rs.force(new BucketRecord(bucket, BucketState.ACTIVE, 1, 0, "", 0));
        int keys = options.minKeysPerBucket() + random.nextInt(4);
        for (int k = 0; k < keys; k++) {
            String key = "b" + bucket + "-k" + k;
            String value = "boot-" + k;
            rs.putData(bucket, new ChunkEntry(bytes(key), bytes(value)));
            invariants.writeApplied(bucket, key, value);
        }
        // Bucket 1 may become a double; the others are archived in one seed of two, one in three of them.
        if (archiving && bucket != 1 && archiveRandom.nextInt(3) == 0) archive.archiveAtBootstrap(rs, bucket);
    }

    /**
     * A second ACTIVE copy of bucket 1 (the first candidate the Mover sees) on another replicaset,
     * at a higher generation (as after restoring an old backup of a later owner), or in scenario
     * (e) one time in four at the same generation (as after a misconfiguration).
     */
    private void injectDouble() {
        doubled = 1;
        SimReplicaset owner = replicasets.get(0);
        SimReplicaset other = replicasets.get(1);
        // Scenario (e) sometimes ties the generations: then both copies must contain themselves.
        long generation = scenario == Scenario.DOUBLED_CONTAINED && random.nextInt(4) == 0 ? 1 : 5 + random.nextInt(5);
        other.force(new BucketRecord(doubled, BucketState.ACTIVE, generation, 0, "", 0));
        owner.keys(doubled).forEach((k, v) -> other.putData(doubled, new ChunkEntry(k, v)));
        invariants.exempt(doubled);
    }

    /**
     * Scenario (f): replicaset 0 sent bucket 1 to replicaset 1 with a copy ahead (now ACTIVE there at
     * generation 2), then was restored from a backup taken during that copy: ACTIVE at generation 1,
     * copying ahead at 2, its changed keys marked.
     */
    private void injectRestoredCopy() {
        doubled = 1;
        SimReplicaset restored = replicasets.get(0);
        SimReplicaset owner = replicasets.get(1);
        owner.force(new BucketRecord(doubled, BucketState.ACTIVE, 2, 0, "", 0));
        restored.keys(doubled).forEach((k, v) -> owner.putData(doubled, new ChunkEntry(k, v)));
        BucketRecord before = restored.record(doubled);
        restored.force(new BucketRecord(doubled, BucketState.ACTIVE, 1, 0, owner.id, before.flags() | BucketRecord.FLAG_COPYING));
        invariants.exempt(doubled);
    }

    // ---- faults ----

    private void startDriver() {
        driverStarts++;
        driver.start();
    }

    private void scheduleDriverFaults() {
        scheduler.after(200 + random.nextInt(1200), "driver fault", () -> {
            if (!chaos) return;
            SimDriver.Incarnation old = driver.current();
            if (old != null && random.nextInt(3) == 0) {
                // a new leader starts while the old one does not know yet; the old one dies a while later
                startDriver();
                scheduler.after(100 + random.nextInt(1500), "stale driver dies", () -> driver.crash(old));
            } else if (old != null) {
                driver.crash(old);
                scheduler.after(20 + random.nextInt(600), "driver restarts", () -> {
                    if (driver.current() == null) startDriver();
                });
            }
            scheduleDriverFaults();
        });
    }

    /**
     * Every {@code gapMs} or so, a cut isolates a random set of nodes (live Mover incarnations and
     * replicaset leaders, each in it with odds 1/2) from the others for 20 ms to 2.5 s: from
     * shorter than a request's timeout to many driver rounds. Cuts may overlap.
     */
    private void schedulePartitions(int gapMs) {
        scheduler.after(gapMs / 2 + random.nextInt(gapMs), "partition", () -> {
            if (!chaos) return;
            List<String> nodes = new ArrayList<>();
            for (SimDriver.Incarnation i : driver.alive()) nodes.add(i.node());
            for (SimReplicaset rs : replicasets) nodes.add(rs.id);
            Set<String> cut = new TreeSet<>();
            for (String node : nodes) if (random.nextBoolean()) cut.add(node);
            if (cut.isEmpty() || cut.size() == nodes.size()) cut = Set.of(nodes.get(random.nextInt(nodes.size())));
            Set<String> isolated = cut;
            // an event of its own, so a failure's trace names the nodes cut off
            scheduler.after(0, "cut off " + isolated, () -> {
                if (!chaos) return;  // the event that ends the chaos phase may be the one that scheduled this
                network.partition(isolated);
                partitions++;
                scheduler.after(20 + random.nextInt(2_500), "heal the cut around " + isolated, () -> network.heal(isolated));
            });
            schedulePartitions(gapMs);
        });
    }

    private void scheduleManualMoves(int bucket) {
        scheduler.after(50 + random.nextInt(400), "manual move", () -> {
            if (!chaos) return;
            List<SimDriver.Incarnation> alive = driver.alive();
            if (!alive.isEmpty()) {
                SimReplicaset to = replicasets.get(random.nextInt(replicasets.size()));
                alive.get(random.nextInt(alive.size())).mover.requestMove(bucket, to.id);
            }
            scheduleManualMoves(bucket);
        });
    }

    /**
     * An operator pins and unpins random buckets: a Pin command sent straight to the owner, so
     * pins go on while no driver is alive or reachable (Mover.pin, lost reply included, is
     * covered by MoverPinLostReplyTest in cairn-core).
     */
    private void schedulePins() {
        scheduler.after(100 + random.nextInt(800), "operator pin", () -> {
            if (!chaos) return;
            int bucket = 1 + random.nextInt(bucketCount);
            boolean pin = random.nextBoolean();
            for (SimReplicaset rs : replicasets) {
                BucketRecord r = rs.record(bucket);
                if (r == null || !r.state().servesWrites()) continue;
                network.propose(SimNetwork.OUTSIDE, rs.id, "operator Pin(" + bucket + ", " + pin + ") to " + rs.id,
                        SimEntry.move(0, new MoveCommand.Pin(bucket, pin)), reply -> { }, () -> true);
            }
            schedulePins();
        });
    }

    // ---- phases ----

    private void runUntil(long endMs) {
        while (scheduler.nowMs() < endMs && scheduler.runNext()) {
            invariants.check();
            for (SimReplicaset rs : replicasets) rs.raft().check();
            observeProblems();
            if (doubled > 0) observeContainment();
            if (scenario == Scenario.RESTORED_COPY && chaos) checkRestoredBelowOwner();
        }
    }

    private void observeProblems() {
        for (SimDriver.Incarnation i : driver.alive()) {
            List<String> problems = i.mover.progress().problems();
            if (lastProblems.put(i, problems) == problems) continue;  // no new round since
            if (problems.stream().noneMatch(p -> p.startsWith("DOUBLED_BUCKETS"))) continue;
            if (invariants.isExempt()) sawDoubledProblem = true;
            else if (scenario != Scenario.DOUBLED_BUCKET) falseDoubledReports++;
        }
    }

    private void heal() {
        chaos = false;
        network.setFaults(SimNetwork.Faults.NONE);
        network.healAll();
        clients.stop();
        for (SimReplicaset rs : replicasets) rs.raft().heal();  // every member restarts, a last election, then leaders stay
        for (SimDriver.Incarnation i : driver.alive()) driver.crash(i);
        startDriver();
        if (containedScenario()) {
            SimContainment.checkAfterVerification(this::runFor, replicasets, doubled, verifier);
            SimContainment.resolve(this::runFor, new SimOperator(scheduler, network), replicasets, doubled, invariants, 50);
        } else if (doubled > 0) {
            // While it lasts, the Mover must report it. Its check sums the owned counts of statuses answered
            // at different moments, so a round overlapping another bucket's SENT-to-ACTIVE step can miss it:
            // demand it of at least one of 20 fault-free rounds, not of each.
            boolean sawDuringChaos = sawDoubledProblem;
            sawDoubledProblem = false;
            runUntil(scheduler.nowMs() + 20 * SimDriver.ROUND_INTERVAL_MS);
            if (!sawDoubledProblem) {
                throw new AssertionError("the Mover did not report DOUBLED_BUCKETS for bucket " + doubled + " in 20 fault-free rounds"
                        + " (during the faults: " + sawDuringChaos + "): " + Invariants.describe(doubled, replicasets));
            }
            for (SimReplicaset rs : replicasets) {
                BucketRecord r = rs.record(doubled);
                if (r != null && r.state() == BucketState.SENDING) doubledStuckSending = true;
            }
            SimContainment.resolve(this::runFor, new SimOperator(scheduler, network), replicasets, doubled, invariants, 50);
        }
        memberFaults.replaceWhileConverging();
    }

    private void runFor(long ms) {
        runUntil(scheduler.nowMs() + ms);
    }

    /** Liveness: bounded rounds without faults must settle every bucket and balance the cluster. */
    private void converge() {
        int quietChecks = 0;
        for (int round = 0; round < MAX_HEAL_ROUNDS; round++) {
            runUntil(scheduler.nowMs() + SimDriver.ROUND_INTERVAL_MS);
            String why = unsettled();
            quietChecks = why == null ? quietChecks + 1 : 0;
            if (quietChecks >= 3 && membersCaughtUp()) {
                SimDriver.Incarnation i = driver.current();
                moved = i.mover.progress().moved();
                rolledBack = i.mover.progress().rolledBack();
                checkArchivedOwnersHoldTheirObjects();
                if (doubled > 0 && i.mover.progress().problems().stream().anyMatch(p -> p.startsWith("DOUBLED_BUCKETS"))) {
                    throw new AssertionError("DOUBLED_BUCKETS still reported after the double was resolved: " + i.mover.progress().problems());
                }
                return;
            }
        }
        throw new AssertionError("LIVENESS: not settled after " + MAX_HEAL_ROUNDS + " fault-free rounds: " + unsettled() + "; members "
                + replicasets.stream().map(rs -> rs.raft().toString()).toList()
                + "; mover " + driver.current().mover.progress() + ", in flight " + describeInFlight());
    }

    /** After the moves settled: every archived owner's object is there, with the bucket's data (the invariant checks the contents). */
    private void checkArchivedOwnersHoldTheirObjects() {
        for (int b = 1; b <= bucketCount; b++) {
            for (SimReplicaset rs : replicasets) {
                BucketRecord r = rs.record(b);
                if (r != null && r.state().servesWrites() && r.isArchived() && archive.contents(rs.archivePointer(b)) == null) {
                    throw new Invariants.Violation("bucket " + b + " is archived on its owner " + rs.id + " but its object is gone: "
                            + Invariants.describe(b, replicasets));
                }
            }
            invariants.touched(b);
        }
        invariants.check();
    }

    /**
     * Liveness of the members: no replacement left half-way, and every member applied everything
     * committed; then each must hold exactly the committed state.
     */
    private boolean membersCaughtUp() {
        for (SimReplicaset rs : replicasets) {
            SimRaft raft = rs.raft();
            if (raft.membership.inProgress() || !raft.leaderReady()) return false;
            for (SimMember m : raft.members) if (!m.up() || m.appliedIndex != raft.commitIndex) return false;
        }
        for (SimReplicaset rs : replicasets) rs.raft().compareCaughtUp(true);
        return true;
    }

    private SimRaftCounters memberCounters() {
        SimRaftCounters sum = new SimRaftCounters();
        for (SimReplicaset rs : replicasets) sum.add(rs.raft().counters);
        return sum;
    }

    private String describeInFlight() {
        StringBuilder sb = new StringBuilder();
        driver.current().mover.inFlight().forEach((b, m) -> sb.append(b).append(':').append(m.source()).append("->")
                .append(m.destination()).append(' ').append(m.phase()).append(" gen ").append(m.generation()).append(' ')
                .append(m.detail()).append("; "));
        return sb.toString();
    }

    /** Null when settled and balanced, else the first reason it is not. */
    private String unsettled() {
        int[] owners = new int[bucketCount + 1];
        List<ReplicasetLoad> loads = new ArrayList<>();
        for (SimReplicaset rs : replicasets) {
            int active = 0, pinned = 0;
            for (BucketRecord r : rs.records()) {
                switch (r.state()) {
                    case ACTIVE -> { active++; owners[r.id()]++; }
                    case PINNED -> { pinned++; owners[r.id()]++; }
                    case SENDING, RECEIVING -> { return "bucket " + r.id() + " still " + r + " on " + rs.id + ": "
                            + Invariants.describe(r.id(), replicasets); }
                    case SENT -> {
                        if ((r.flags() & BucketRecord.FLAG_DATA_DROPPED) == 0) return "bucket " + r.id() + " SENT with data on " + rs.id;
                    }
                    default -> { }
                }
            }
            loads.add(new ReplicasetLoad(rs.id, driver.layout().weights().get(rs.id), active, pinned, 0, 0));
        }
        for (int b = 1; b <= bucketCount; b++) {
            if (owners[b] != 1) return "bucket " + b + " is owned " + owners[b] + " times: " + Invariants.describe(b, replicasets);
        }
        double disbalance = RebalancePlanner.plan(loads, bucketCount, driver.planLimits()).disbalancePercent();
        if (disbalance > driver.planLimits().thresholdPercent()) return "disbalance " + disbalance + "% with " + loads;
        return null;
    }
}
