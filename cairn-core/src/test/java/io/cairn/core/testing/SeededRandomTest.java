package io.cairn.core.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherFactory;
import org.opentest4j.TestAbortedException;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/** {@link SeededRandom} runs the {@link Examples} below in a nested JUnit launcher and is judged by what they report. */
class SeededRandomTest {
    /** The examples pass without doing anything unless this test launched them (an IDE may run them on their own). */
    private static volatile boolean launched;

    @ExtendWith(SeededRandom.class)
    static class Examples {
        static volatile long firstDraw;

        @Test
        void drawsOnce(Random random) {
            assumeTrue(launched);
            firstDraw = random.nextLong();
        }

        @Test
        void failsWithItsRandom(Random random) {
            assumeTrue(launched);
            throw new AssertionError("boom after " + random.nextInt(10));
        }

        @Test
        void failsWithAnExceptionWithItsRandom(Random random) {
            assumeTrue(launched);
            throw new IllegalStateException("bad state " + random.nextInt(10));
        }

        @Test
        void failsWithoutRandom() {
            assumeTrue(launched);
            throw new AssertionError("plain failure");
        }

        @Test
        void isAbortedWithItsRandom(Random random) {
            assumeTrue(launched);
            assumeTrue(random == null, "aborted on purpose");
        }
    }

    private record Run(Map<String, TestExecutionResult> results, String output) {
        Throwable failure(String method) {
            return results.get(method).getThrowable().orElseThrow();
        }
    }

    @Test
    void theSeedPropertyReplaysTheSameRandom() {
        run("42");
        long first = Examples.firstDraw;
        run("42");

        assertThat(Examples.firstDraw).isEqualTo(first).isEqualTo(new Random(42).nextLong());
    }

    @Test
    void withoutTheSeedPropertyEachRunHasAFreshSeed() {
        run(null);
        long first = Examples.firstDraw;
        run(null);

        assertThat(Examples.firstDraw).isNotEqualTo(first);  // equal once in 2^64 runs
    }

    @Test
    void eachTestThatTakesARandomPrintsItsSeedAndReplayFlags() {
        Run run = run("42");

        assertThat(run.output).contains("Examples.drawsOnce seed=42 (replay: -Dcairn.seed=42 -Dtest=Examples#drawsOnce)");
        assertThat(run.output).doesNotContain("failsWithoutRandom");
    }

    @Test
    void aFailureStartsWithItsSeedAndKeepsTheOriginalAsCauseAndLocation() {
        Run run = run("-7");

        Throwable failure = run.failure("failsWithItsRandom");
        assertThat(failure).isExactlyInstanceOf(AssertionError.class)
                .hasMessage("seed=-7, replay with -Dcairn.seed=-7 -Dtest=Examples#failsWithItsRandom: boom after "
                        + new Random(-7).nextInt(10));
        assertThat(failure.getCause()).isExactlyInstanceOf(AssertionError.class).hasMessageStartingWith("boom after");
        assertThat(failure.getStackTrace()).isEqualTo(failure.getCause().getStackTrace());

        assertThat(run.failure("failsWithAnExceptionWithItsRandom")).isExactlyInstanceOf(AssertionError.class)
                .hasMessageStartingWith("seed=-7, replay with -Dcairn.seed=-7 -Dtest=Examples#failsWithAnExceptionWithItsRandom: "
                        + "java.lang.IllegalStateException: bad state")
                .hasCauseExactlyInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFailureOfATestWithoutRandomAndAnAbortedTestAreLeftAlone() {
        Run run = run("42");

        assertThat(run.results.get("failsWithoutRandom").getStatus()).isEqualTo(TestExecutionResult.Status.FAILED);
        assertThat(run.failure("failsWithoutRandom")).hasMessage("plain failure").hasNoCause();
        assertThat(run.results.get("isAbortedWithItsRandom").getStatus()).isEqualTo(TestExecutionResult.Status.ABORTED);
        assertThat(run.failure("isAbortedWithItsRandom")).isInstanceOf(TestAbortedException.class);
    }

    @Test
    void aMalformedSeedPropertyFailsInsteadOfPickingAnotherSeed() {
        Run run = run("forty-two");

        assertThat(run.results.get("drawsOnce").getStatus()).isEqualTo(TestExecutionResult.Status.FAILED);
        assertThat(run.failure("drawsOnce")).hasRootCauseInstanceOf(NumberFormatException.class);
    }

    /** Launches {@link Examples} with {@code cairn.seed} set to {@code seed} (or cleared), capturing what they print. */
    private static Run run(String seed) {
        String savedSeed = System.getProperty(SeededRandom.SEED_PROPERTY);
        PrintStream savedOut = System.out;
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        Map<String, TestExecutionResult> results = new HashMap<>();
        try {
            if (seed == null) System.clearProperty(SeededRandom.SEED_PROPERTY);
            else System.setProperty(SeededRandom.SEED_PROPERTY, seed);
            System.setOut(new PrintStream(output, true, StandardCharsets.UTF_8));
            launched = true;
            Examples.firstDraw = 0;
            LauncherFactory.create().execute(request().selectors(selectClass(Examples.class)).build(), new TestExecutionListener() {
                @Override
                public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                    test.getSource().filter(MethodSource.class::isInstance)
                            .ifPresent(source -> results.put(((MethodSource) source).getMethodName(), result));
                }
            });
        } finally {
            launched = false;
            System.setOut(savedOut);
            if (savedSeed == null) System.clearProperty(SeededRandom.SEED_PROPERTY);
            else System.setProperty(SeededRandom.SEED_PROPERTY, savedSeed);
        }
        assertThat(results).as("every example ran").hasSize(5);
        return new Run(results, output.toString(StandardCharsets.UTF_8));
    }
}
