package io.cairn.core.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Gives a test method a {@link Random} whose seed can be replayed. A random test that cannot be
 * rerun with the seed that failed on CI is a flaky test nobody can fix, so every randomized test
 * in plain JUnit takes its randomness from here (STYLE.md: "seeded random tests that print their
 * seed"; the simulator in cairn-sim has its own seed ranges).
 *
 * <pre>{@code
 * @ExtendWith(SeededRandom.class)
 * class OpCodecTest {
 *     @Test
 *     void opsRoundTrip(Random random) { ... }
 * }
 * }</pre>
 *
 * <p>The seed is {@code -Dcairn.seed=S} when set, else a fresh one for each test. A test that
 * takes a {@code Random} prints one line, {@code OpCodecTest.opsRoundTrip seed=S (replay:
 * -Dcairn.seed=S -Dtest=OpCodecTest#opsRoundTrip)}; when it fails, its failure is rethrown as an
 * {@link AssertionError} whose message starts with {@code seed=S, replay with -Dcairn.seed=S
 * -Dtest=OpCodecTest#opsRoundTrip}, keeping the original failure as the cause and its stack
 * trace, so the line of a CI log that names the failed test also names its seed. Tests need not
 * repeat the seed in their own assertion messages.
 */
public final class SeededRandom implements ParameterResolver, TestExecutionExceptionHandler {
    /** The system property that replays a seed; surefire passes {@code -D} options of mvn through. */
    public static final String SEED_PROPERTY = "cairn.seed";

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SeededRandom.class);
    private static final String SEED_KEY = "seed";

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Random.class && context.getTestMethod().isPresent();
    }

    @Override
    public Random resolveParameter(ParameterContext parameter, ExtensionContext context) {
        long seed = seed();
        context.getStore(NAMESPACE).put(SEED_KEY, seed);
        System.out.println(testName(context, ".") + " seed=" + seed + " (replay: " + replayFlags(context, seed) + ")");
        return new Replayable(seed);
    }

    /** The seed of a {@link Random} this extension gave, for a test that prints it in its own report. */
    public static long seedOf(Random random) {
        if (random instanceof Replayable r) return r.seed;
        throw new IllegalArgumentException("not a Random of SeededRandom: " + random);
    }

    /** A {@link Random} that remembers its seed. */
    private static final class Replayable extends Random {
        private final long seed;

        Replayable(long seed) {
            super(seed);
            this.seed = seed;
        }
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        Long seed = context.getStore(NAMESPACE).get(SEED_KEY, Long.class);
        if (seed == null || failure instanceof TestAbortedException) throw failure;
        String original = failure instanceof AssertionError ? failure.getMessage() : failure.toString();
        AssertionError withSeed = new AssertionError(
                "seed=" + seed + ", replay with " + replayFlags(context, seed) + ": " + original, failure);
        withSeed.setStackTrace(failure.getStackTrace());
        throw withSeed;
    }

    /** {@code -Dcairn.seed} when set (a malformed value fails rather than silently picking another), else a fresh seed. */
    static long seed() {
        String replay = System.getProperty(SEED_PROPERTY, "").trim();
        return replay.isEmpty() ? ThreadLocalRandom.current().nextLong() : Long.parseLong(replay);
    }

    private static String replayFlags(ExtensionContext context, long seed) {
        return "-D" + SEED_PROPERTY + "=" + seed + " -Dtest=" + testName(context, "#");
    }

    private static String testName(ExtensionContext context, String separator) {
        return context.getRequiredTestClass().getSimpleName() + separator + context.getRequiredTestMethod().getName();
    }
}
