package io.cairn.router;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Time and the router's one driver thread, as its logic (retries, discovery) sees them: the JVM's
 * clock and a scheduler thread in production, a simulator's virtual time and event queue in tests
 * (as {@link GroupCommitQueue} takes its clock). Tasks run one at a time, in the order they are
 * due, so the state they share needs no lock.
 */
interface RouterClock {
    /** Monotonic nanoseconds ({@link System#nanoTime} in production). */
    long nanoTime();

    /** Runs {@code task} on the driver thread after {@code delayNs}; dropped once the router is closed. */
    void schedule(long delayNs, Runnable task);

    /** Runs {@code task} on the driver thread as soon as it is free. */
    default void execute(Runnable task) {
        schedule(0, task);
    }

    /** The JVM's clock and {@code scheduler}'s single thread. */
    static RouterClock of(ScheduledExecutorService scheduler) {
        return new RouterClock() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public void schedule(long delayNs, Runnable task) {
                try {
                    if (delayNs <= 0) scheduler.execute(task);
                    else scheduler.schedule(task, delayNs, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closing) {
                    // the router is closing: nothing is due any more
                }
            }
        };
    }
}
