package io.cairn.sim;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deterministic simulation of the bucket-move protocol (STYLE.md habit 2; Kafka's
 * RaftEventSimulationTest, TigerBeetle's VOPR): the production BucketLedger, SendMove, Mover and
 * RebalancePlanner under a seeded scheduler, a network that drops, delays, reorders,
 * duplicates and partitions, replicasets that lose their leader, and a driver that crashes or runs twice.
 * See {@link Sim} for the phases and {@link Invariants} for what is checked after every event.
 *
 * <p>Seeds, per scenario: the regression seeds 1..{@code cairn.sim.seeds} (default 200), the same
 * in every run, then {@code cairn.sim.freshSeeds} fresh seeds (default 50; 0 for none), a range
 * starting at a base drawn anew for each run, so CI explores new seeds every time. The run prints
 * both ranges in one line at the start; {@code -Dcairn.sim.freshBase=B} runs a fresh range again.
 * {@code -Dcairn.sim.seed=S} replays one seed, regression or fresh, optionally only
 * {@code -Dcairn.sim.scenario=NAME}; a failing seed prints that command.
 */
class MoveSimulationTest {
    private static final int MAX_REPORTED = 5;
    /** Fresh seeds start above this (and above any int), so they never repeat a regression seed. */
    private static final long FRESH_FLOOR = 10_000_000_000L;
    /** The first fresh seed of this run (one per JVM, so every scenario and test class runs the same range). */
    private static final long FRESH_BASE = freshBase();

    static List<Long> seeds() {
        return seeds(property("cairn.sim.seed", ""), regressionSeeds(), freshSeeds(), FRESH_BASE);
    }

    /** The one seed to replay if given, else 1..regression then freshBase..freshBase + fresh - 1. */
    static List<Long> seeds(String replay, int regression, int fresh, long freshBase) {
        if (!replay.isEmpty()) return List.of(Long.parseLong(replay));
        List<Long> seeds = new ArrayList<>();
        for (long s = 1; s <= regression; s++) seeds.add(s);
        for (long s = freshBase; s < freshBase + fresh; s++) seeds.add(s);
        return seeds;
    }

    /** The one line that says which seeds this run checks and how to run them again. */
    static String seedsLine(String testClass) {
        String one = property("cairn.sim.seed", "");
        if (!one.isEmpty()) return testClass + " seed " + one + " only (-Dcairn.sim.seed)";
        String regression = regressionSeeds() > 0 ? "1.." + regressionSeeds() : "none";
        String fresh = freshSeeds() > 0 ? FRESH_BASE + ".." + (FRESH_BASE + freshSeeds() - 1) : "none";
        return testClass + " seeds per scenario: regression " + regression + ", fresh " + fresh
                + " (run this fresh range again: -Dcairn.sim.freshBase=" + FRESH_BASE + "; one seed: -Dcairn.sim.seed=S)";
    }

    private static int regressionSeeds() {
        return Integer.parseInt(property("cairn.sim.seeds", "200"));
    }

    private static int freshSeeds() {
        return Integer.parseInt(property("cairn.sim.freshSeeds", "50"));
    }

    private static long freshBase() {
        String base = property("cairn.sim.freshBase", "");
        return base.isEmpty() ? FRESH_FLOOR + ThreadLocalRandom.current().nextLong(FRESH_FLOOR) : Long.parseLong(base);
    }

    private static String property(String name, String otherwise) {
        String value = System.getProperty(name, "").trim();
        return value.isEmpty() ? otherwise : value;
    }

    static boolean selected(Scenario scenario) {
        String only = System.getProperty("cairn.sim.scenario", "");
        return only.isBlank() || only.trim().equalsIgnoreCase(scenario.name());
    }

    static String replayCommand(String testClass, Scenario scenario, long seed) {
        return "mvn -o -pl cairn-core,cairn-sim -am verify -Dtest=" + testClass + " -Dcairn.sim.seed=" + seed
                + " -Dcairn.sim.scenario=" + scenario.name() + " -Dsurefire.failIfNoSpecifiedTests=false";
    }

    /** Runs every seed of a scenario; fails listing each failing seed with its replay command. */
    static void runSeeds(String testClass, Scenario scenario, Sim.Options options) {
        if (!selected(scenario)) return;
        long startNs = System.nanoTime();
        List<String> failures = new ArrayList<>();
        long events = 0, acked = 0, moved = 0, rolledBack = 0, falseDoubled = 0, falseDoubledSeeds = 0, stuck = 0, contained = 0;
        long partitions = 0, lostToPartitions = 0, archiveCopies = 0, archiveObjectsLost = 0;
        SimRaftCounters members = new SimRaftCounters();
        List<Long> seeds = seeds();
        List<Long> falseDoubledExamples = new ArrayList<>();
        for (long seed : seeds) {
            try {
                Sim.Result r = new Sim(scenario, seed, options).run();
                events += r.events();
                acked += r.acknowledged();
                moved += r.moved();
                rolledBack += r.rolledBack();
                contained += r.containedCopies();
                partitions += r.partitions();
                lostToPartitions += r.lostToPartitions();
                archiveCopies += r.archiveCopies();
                archiveObjectsLost += r.archiveObjectsLost();
                members.add(r.members());
                falseDoubled += r.falseDoubledReports();
                if (r.doubledStuckSending()) stuck++;
                if (r.falseDoubledReports() > 0 && ++falseDoubledSeeds <= 3) falseDoubledExamples.add(seed);
            } catch (AssertionError e) {
                if (failures.size() < MAX_REPORTED) {
                    failures.add(e.getMessage() + "\nreplay: " + replayCommand(testClass, scenario, seed));
                } else {
                    failures.add("seed " + seed + " failed too");
                }
            }
        }
        System.out.printf("%s: %d seeds, %d events, %d acknowledged writes, %d partitions losing %d messages,"
                        + " %d moves finished by the last driver, %d rolled back, %d false DOUBLED_BUCKETS reports in %d seeds %s,"
                        + " %d runs with the doubled bucket stuck SENDING, %d doubled copies contained by verification, %s,"
                        + " %d archived buckets copied server-side, %d of their objects lost mid-move, %d failed, %d ms%n",
                scenario, seeds.size(), events, acked, partitions, lostToPartitions, moved, rolledBack, falseDoubled, falseDoubledSeeds,
                falseDoubledExamples, stuck, contained, members, archiveCopies, archiveObjectsLost, failures.size(),
                (System.nanoTime() - startNs) / 1_000_000);
        assertThat(failures).as("failing seeds of %s:%n%s", scenario, String.join("\n\n", failures)).isEmpty();
        if ((scenario == Scenario.DOUBLED_CONTAINED || scenario == Scenario.RESTORED_COPY) && failures.isEmpty()) {
            assertThat(contained).as("verification contained no copy in any seed: the scenario tests nothing").isPositive();
        }
        if (seeds.size() >= 10 && failures.isEmpty()) {  // a single replayed seed may be one of those without partitions
            assertThat(lostToPartitions).as("no message was lost to a partition: partitions are not in the fault mix").isPositive();
            assertMemberFaultsExercised(scenario, members);
            if (scenario == Scenario.ADD_REPLICASET || scenario == Scenario.DRAIN) {
                assertThat(archiveCopies).as("%s: no archived bucket moved by server-side copy", scenario).isPositive();
                assertThat(archiveObjectsLost).as("%s: no destination object was lost mid-move", scenario).isPositive();
            }
        }
    }

    /** A scenario whose seeds never crashed a member with unflushed entries, replayed a log, installed a snapshot or replaced a member tested nothing of them. */
    static void assertMemberFaultsExercised(Scenario scenario, SimRaftCounters members) {
        assertThat(members.memberCrashes).as("%s: no member crashed", scenario).isPositive();
        assertThat(members.lostUnflushed).as("%s: no crash lost an unflushed entry", scenario).isPositive();
        assertThat(members.truncatedUncommitted).as("%s: no uncommitted entry was truncated by a new leader", scenario).isPositive();
        assertThat(members.restartsReplaying).as("%s: no restart replayed its durable log", scenario).isPositive();
        assertThat(members.entriesSkippedOnReplay).as("%s: no replay skipped an entry its surviving database held", scenario).isPositive();
        assertThat(members.snapshotCatchUps).as("%s: no member caught up by snapshot", scenario).isPositive();
        assertThat(members.replacements).as("%s: no member replacement finished", scenario).isPositive();
        assertThat(members.wipes).as("%s: no voter's disk was lost", scenario).isPositive();
        assertThat(members.replacementsDuringMoves).as("%s: no replacement started with a move in flight", scenario).isPositive();
        assertThat(members.crashesDuringReplacement).as("%s: no member crashed during a replacement", scenario).isPositive();
        assertThat(members.statesCompared).as("%s: no rebuilt member was compared with the committed state", scenario).isPositive();
    }

    @BeforeAll
    static void printSeeds() {
        System.out.println(seedsLine(MoveSimulationTest.class.getSimpleName()));
    }

    @ParameterizedTest
    @EnumSource(Scenario.class)
    void movesKeepEveryInvariantUnderFaultsAndConverge(Scenario scenario) {
        runSeeds(MoveSimulationTest.class.getSimpleName(), scenario, Sim.Options.DEFAULT);
    }

    @Test
    void aSeedReplaysExactly() {
        Sim.Result first = new Sim(Scenario.ADD_REPLICASET, 7, Sim.Options.DEFAULT).run();
        Sim.Result second = new Sim(Scenario.ADD_REPLICASET, 7, Sim.Options.DEFAULT).run();
        assertThat(second).isEqualTo(first);
        assertThat(first.events()).isPositive();
        assertThat(first.lostToPartitions()).as("the replayed seed has partitions").isPositive();
        assertThat(first.members().lostUnflushed).as("the replayed seed crashes members with unflushed entries").isPositive();
        assertThat(first.members().replacements).as("the replayed seed replaces members").isPositive();
    }

    @Test
    void eachRunChecksTheRegressionSeedsThenAFreshRangeAboveThem() {
        assertThat(seeds("", 3, 2, 20_000_000_007L)).containsExactly(1L, 2L, 3L, 20_000_000_007L, 20_000_000_008L);
        assertThat(seeds("", 3, 0, 20_000_000_007L)).containsExactly(1L, 2L, 3L);
        assertThat(seeds("20000000008", 3, 2, 5)).as("a replayed fresh seed").containsExactly(20_000_000_008L);
    }

    @Test
    void aFreshSeedReplaysExactly() {
        Sim.Result first = new Sim(Scenario.DRAIN, FRESH_BASE, Sim.Options.DEFAULT).run();
        Sim.Result second = new Sim(Scenario.DRAIN, FRESH_BASE, Sim.Options.DEFAULT).run();
        assertThat(second).as("fresh seed %d (-Dcairn.sim.freshBase=%d)", FRESH_BASE, FRESH_BASE).isEqualTo(first);
        assertThat(first.events()).as("fresh seed %d", FRESH_BASE).isPositive();
    }
}
