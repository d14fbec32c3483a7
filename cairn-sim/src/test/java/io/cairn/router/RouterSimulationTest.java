package io.cairn.router;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The router's production request loop and discovery under the simulator ({@link RouterSimulation}):
 * a stale bucket map during moves, a replicaset restored from an old copy of its records, lost and
 * late discovery pages. Seeds 1..{@code cairn.sim.routerSeeds} (default 200) per scenario, the same
 * every run; a failure names its seed and the line that replays it. A scenario whose seeds never
 * met its fault fails ("tested nothing").
 */
class RouterSimulationTest {
    private static final int SEEDS = Integer.getInteger("cairn.sim.routerSeeds", 200);

    @ParameterizedTest
    @EnumSource(RouterSimulation.Scenario.class)
    void everyWriteLandsOnceAndTheMapFindsEveryOwner(RouterSimulation.Scenario scenario) {
        String one = System.getProperty("cairn.sim.seed", "");
        long first = one.isEmpty() ? 1 : Long.parseLong(one);
        long last = one.isEmpty() ? SEEDS : first;
        System.out.println("RouterSimulationTest " + scenario + " seeds " + first + ".." + last
                + " (one seed: -Dcairn.sim.seed=S -Dtest=RouterSimulationTest)");
        long started = System.nanoTime();
        long events = 0, retries = 0, resyncs = 0, followed = 0;
        int acknowledged = 0, refused = 0, wrongOwner = 0, locked = 0, moves = 0, restores = 0, lost = 0, late = 0;
        for (long seed = first; seed <= last; seed++) {
            RouterSimulation.Result r;
            try {
                r = new RouterSimulation(scenario, seed).run();
            } catch (Throwable t) {
                throw new AssertionError(scenario + " seed " + seed + " failed (replay: -Dcairn.sim.seed=" + seed
                        + " -Dtest=RouterSimulationTest): " + t.getMessage(), t);
            }
            events += r.events();
            acknowledged += r.acknowledged();
            refused += r.refused();
            retries += r.retries();
            wrongOwner += r.wrongOwnerAnswers();
            locked += r.lockedAnswers();
            moves += r.moves();
            resyncs += r.resyncs();
            restores += r.restores();
            lost += r.pagesLost();
            late += r.pagesLate();
            followed += r.movesFollowed();
        }
        System.out.println(scenario + ": " + (last - first + 1) + " seeds, " + events + " events, " + acknowledged + " writes acknowledged, "
                + refused + " refused at their deadline, " + retries + " retries, " + wrongOwner + " wrong-owner answers, " + locked
                + " locked answers, " + followed + " sent straight to the owner a wrong-owner answer named, " + moves + " moves, " + restores + " restores, " + resyncs + " resyncs, " + lost + " pages lost, "
                + late + " pages late, " + (System.nanoTime() - started) / 1_000_000 + " ms");
        if (!one.isEmpty()) return;
        assertThat(acknowledged).as(scenario + ": writes acknowledged").isPositive();
        assertThat(wrongOwner).as(scenario + ": requests that reached an old owner").isPositive();
        assertThat(retries).as(scenario + ": retries").isPositive();
        assertThat(followed).as(scenario + ": ops sent to the new owner a refusal named (ErrorPayload)").isPositive();
        if (scenario == RouterSimulation.Scenario.RESTORED_REPLICASET) {
            assertThat(restores).as("restores").isPositive();
            assertThat(resyncs).as("resyncs after a restore").isPositive();
        }
        if (scenario == RouterSimulation.Scenario.LOST_PAGES) {
            assertThat(lost).as("pages lost").isPositive();
            assertThat(late).as("pages answered after their timeout").isPositive();
        }
    }
}
