package io.cairn.core.testing;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * Seeded mutational fuzzing in plain JUnit (issue 26: no Jazzer on this machine's Maven mirror, and
 * a seed replays a failure exactly). A target is fed inputs made by mutating valid encodings (the
 * corpus): flipped bits, bytes and 32-bit fields set to the values that break length checks (0, -1,
 * MAX, MIN, one past the end), bytes inserted, removed or duplicated, the input cut short, two inputs
 * spliced. For each input the target must either accept it or refuse it with one of the exception
 * types it declares (its clear error); any other throwable is a finding. Each input is also bounded:
 * the bytes the target allocates (a length field of 2^31 must not become an allocation of 2 GB) and
 * the time it takes.
 *
 * <p>Inputs per target: {@code -Dcairn.fuzz.inputs=N} (20,000 by default, the CI form;
 * {@code -Pfuzz} runs 2,000,000). Randomness comes from {@link SeededRandom}, so a failure names its
 * seed.
 */
public final class Fuzz {
    /** Allocation allowed per input, above 64 bytes per input byte: decoding copies, never multiplies. */
    private static final long ALLOCATION_ALLOWANCE_BYTES = 1 << 20;
    private static final long SLOWEST_INPUT_NANOS = 2_000_000_000L;
    private static final int[] EDGE_INTS = {0, 1, -1, 2, 127, 128, 255, 65_535, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE - 8, 1 << 20, 1 << 30};

    /** What a target does with one input; throwing a declared exception is a refusal. */
    @FunctionalInterface
    public interface Target {
        void accept(byte[] input) throws Exception;
    }

    private Fuzz() {}

    /** Inputs per target for this run. */
    public static int inputs() {
        return Integer.getInteger("cairn.fuzz.inputs", 20_000);
    }

    /**
     * Feeds {@link #inputs()} mutated inputs to {@code target}; fails on the first throwable that is
     * not an instance of one of {@code refusals}, or on an input that allocates or takes too much.
     * Returns how many inputs the target refused (the rest it accepted).
     */
    @SafeVarargs
    public static int run(Random random, List<byte[]> corpus, Target target, Class<? extends Throwable>... refusals) {
        return run(random, corpus, ALLOCATION_ALLOWANCE_BYTES, target, refusals);
    }

    /** {@link #run} for a target whose valid work allocates more (a database read, a reply), up to {@code allowanceBytes} per input. */
    @SafeVarargs
    public static int run(Random random, List<byte[]> corpus, long allowanceBytes, Target target, Class<? extends Throwable>... refusals) {
        return run(random, corpus, inputs(), allowanceBytes, target, refusals);
    }

    /** {@link #run} with {@code n} inputs: a slow target (a file per input) takes a fraction of {@link #inputs()}. */
    @SafeVarargs
    public static int run(Random random, List<byte[]> corpus, int n, long allowanceBytes, Target target, Class<? extends Throwable>... refusals) {
        if (corpus.isEmpty()) throw new IllegalArgumentException("a fuzz target needs at least one valid input");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        int refused = 0;
        for (byte[] valid : corpus) { // unmeasured: class loading on first use allocates too
            try {
                target.accept(valid.clone());
            } catch (Throwable t) {
                if (!isOneOf(t, refusals)) throw new AssertionError("a corpus entry (" + hex(valid) + ") threw " + t, t);
            }
        }
        for (int i = 0; i < n; i++) {
            byte[] input = mutate(random, corpus);
            long allocatedBefore = threads.getThreadAllocatedBytes(thread);
            long start = System.nanoTime();
            try {
                target.accept(input);
            } catch (Throwable t) {
                if (!isOneOf(t, refusals)) {
                    throw new AssertionError("input " + i + " (" + input.length + " bytes: " + hex(input) + ") threw " + t, t);
                }
                refused++;
            }
            long took = System.nanoTime() - start;
            long allocated = threads.getThreadAllocatedBytes(thread) - allocatedBefore;
            if (allocated > allowanceBytes + 64L * input.length) {
                throw new AssertionError("input " + i + " (" + input.length + " bytes: " + hex(input) + ") allocated " + allocated + " bytes");
            }
            if (took > SLOWEST_INPUT_NANOS) {
                throw new AssertionError("input " + i + " (" + input.length + " bytes: " + hex(input) + ") took " + took / 1_000_000 + " ms");
            }
        }
        return refused;
    }

    private static boolean isOneOf(Throwable t, Class<? extends Throwable>[] types) {
        for (Class<? extends Throwable> type : types) {
            if (type.isInstance(t)) return true;
        }
        return false;
    }

    /** One to four mutations of a corpus entry (sometimes the entry itself, to keep the valid path covered). */
    public static byte[] mutate(Random random, List<byte[]> corpus) {
        byte[] input = corpus.get(random.nextInt(corpus.size())).clone();
        if (random.nextInt(20) == 0) return input;
        int mutations = 1 + random.nextInt(4);
        for (int m = 0; m < mutations; m++) input = mutateOnce(random, input, corpus);
        return input;
    }

    private static byte[] mutateOnce(Random random, byte[] in, List<byte[]> corpus) {
        int len = in.length;
        switch (random.nextInt(8)) {
            case 0 -> { // flip a bit
                if (len > 0) in[random.nextInt(len)] ^= (byte) (1 << random.nextInt(8));
                return in;
            }
            case 1 -> { // an edge byte
                if (len > 0) in[random.nextInt(len)] = (byte) EDGE_INTS[random.nextInt(EDGE_INTS.length)];
                return in;
            }
            case 2 -> { // an edge 32-bit field (lengths, counts), or one past the input's end
                if (len < 4) return in;
                int value = random.nextBoolean() ? EDGE_INTS[random.nextInt(EDGE_INTS.length)] : len + random.nextInt(3) - 1;
                ByteBuffer.wrap(in).putInt(random.nextInt(len - 3), value);
                return in;
            }
            case 3 -> { // cut short
                return len == 0 ? in : java.util.Arrays.copyOf(in, random.nextInt(len));
            }
            case 4 -> { // insert random bytes
                int at = random.nextInt(len + 1);
                byte[] extra = new byte[1 + random.nextInt(8)];
                random.nextBytes(extra);
                return splice(in, at, at, extra);
            }
            case 5 -> { // remove a range
                if (len == 0) return in;
                int from = random.nextInt(len);
                return splice(in, from, Math.min(len, from + 1 + random.nextInt(8)), new byte[0]);
            }
            case 6 -> { // duplicate a range
                if (len == 0) return in;
                int from = random.nextInt(len);
                int to = Math.min(len, from + 1 + random.nextInt(32));
                return splice(in, to, to, java.util.Arrays.copyOfRange(in, from, to));
            }
            default -> { // the head of this input, the tail of another
                byte[] other = corpus.get(random.nextInt(corpus.size()));
                int cut = random.nextInt(len + 1);
                int from = random.nextInt(other.length + 1);
                return splice(java.util.Arrays.copyOf(in, cut), cut, cut, java.util.Arrays.copyOfRange(other, from, other.length));
            }
        }
    }

    private static byte[] splice(byte[] in, int from, int to, byte[] insert) {
        byte[] out = new byte[in.length - (to - from) + insert.length];
        System.arraycopy(in, 0, out, 0, from);
        System.arraycopy(insert, 0, out, from, insert.length);
        System.arraycopy(in, to, out, from + insert.length, in.length - to);
        return out;
    }

    /** Splits {@code input} into pieces at random points (a stream decoder must not care where reads end). */
    public static List<byte[]> pieces(Random random, byte[] input) {
        List<byte[]> out = new ArrayList<>();
        int at = 0;
        while (at < input.length) {
            int n = 1 + random.nextInt(Math.max(1, Math.min(64, input.length - at)));
            out.add(java.util.Arrays.copyOfRange(input, at, at + n));
            at += n;
        }
        return out;
    }

    private static String hex(byte[] input) {
        byte[] head = input.length > 256 ? java.util.Arrays.copyOf(input, 256) : input;
        return HexFormat.of().formatHex(head) + (input.length > 256 ? "..." : "");
    }
}
