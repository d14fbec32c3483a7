package io.cairn.core.kv;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The count rule of SRANDMEMBER, SPOP, HRANDFIELD and ZRANDMEMBER: a negative count picks that many
 * with repeats, a positive one up to that many distinct. The random source is seeded by the router,
 * so every replica picks the same.
 */
final class RandomPicks {
    private RandomPicks() {}

    static <T> List<T> withRepeats(List<T> all, long n, SplittableRandom random) {
        List<T> chosen = new ArrayList<>();
        for (long i = 0; i < n; i++) chosen.add(all.get(random.nextInt(all.size())));
        return chosen;
    }

    /** {@code n} distinct ones by a partial Fisher-Yates shuffle; all of them (a copy) when {@code n} covers the list. */
    static <T> List<T> distinct(List<T> all, long n, SplittableRandom random) {
        List<T> pool = new ArrayList<>(all);
        if (n >= pool.size()) return pool;
        List<T> chosen = new ArrayList<>((int) n);
        for (int i = 0; i < n; i++) {
            int j = i + random.nextInt(pool.size() - i);
            T picked = pool.get(j);
            pool.set(j, pool.get(i));
            pool.set(i, picked);
            chosen.add(picked);
        }
        return chosen;
    }
}
