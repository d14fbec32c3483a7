package io.cairn.storage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one thread that drives a piece of protocol logic from cairn-core (the rebalancer's
 * {@code Mover}, a storage leader's {@code DoubledVerification}): its ticks, its port's answers and
 * its timers all run here, so the logic needs no locks. A scheduled executor keeps a task's
 * exception in its future, where nobody looks: a move whose reply handler threw would wait forever
 * without a word. Here it is logged (an error: it is a bug), and the next tick still runs.
 */
public final class DriverLoop extends ScheduledThreadPoolExecutor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DriverLoop.class);
    private static final long CLOSE_WAIT_SECONDS = 5;

    private final String what;

    /**
     * @param threadName the thread's name (a daemon)
     * @param what       what it drives, for the log line of a failed task
     */
    public DriverLoop(String threadName, String what) {
        super(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        this.what = what;
    }

    /**
     * Runs {@code tick} every {@code periodMs}, the first after one period. A tick that throws is
     * logged and the next one runs (an executor would cancel the rest).
     */
    public void every(long periodMs, Runnable tick) {
        scheduleWithFixedDelay(() -> {
            try {
                tick.run();
            } catch (RuntimeException e) {
                log.error("{} tick failed", what, e);
            }
        }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /** Runs {@code task} on the loop; false (and nothing runs) once the loop is closed. */
    public boolean offer(Runnable task) {
        try {
            execute(task);
            return true;
        } catch (RejectedExecutionException closed) {
            return false;
        }
    }

    /** Stops the loop and waits (bounded) for the task that runs now. */
    public void close() {
        shutdownNow();
        try {
            awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
        if (thrown == null && task instanceof Future<?> f && f.isDone() && !f.isCancelled()) {
            try {
                f.get();
            } catch (ExecutionException e) {
                thrown = e.getCause();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (thrown != null) log.error("{} task failed", what, thrown);
    }
}
