package io.cairn.coordinator;

import io.cairn.core.CairnException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * A background long-poll loop on one daemon thread: asks the coordinator for anything newer than
 * the highest epoch seen, hands every newer state to the listener, and asks again at once.
 *
 * <p>Coalescing: the listener sees the newest state, so epochs published in quick succession may
 * be skipped (use {@link CoordinatorClient#history()} for the intermediate ones). Epochs only go
 * up for the listener, also across a coordinator failover.
 *
 * <p>While the coordinator is unreachable it retries with exponential backoff (bounded) and logs
 * one line when connectivity is lost and one when it is back, not one per attempt. A listener
 * that throws is logged and does not stop the loop.
 */
final class WatchLoop {
    /** One long-poll: the state once its epoch exceeds {@code afterEpoch}, or the unchanged state. */
    @FunctionalInterface
    interface Poll {
        CoordinatorState poll(long afterEpoch);
    }

    private static final Logger LOG = LoggerFactory.getLogger(WatchLoop.class);

    private final Poll poll;
    private final Consumer<CoordinatorState> listener;
    private final Duration backoffMin;
    private final Duration backoffMax;
    private final Thread thread;
    private volatile boolean running = true;
    private long seenEpoch;

    WatchLoop(String name, Poll poll, Consumer<CoordinatorState> listener, Duration backoffMin, Duration backoffMax) {
        this.poll = poll;
        this.listener = listener;
        this.backoffMin = backoffMin;
        this.backoffMax = backoffMax;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Stops the loop and waits (bounded) for its thread to end. */
    void stop() {
        halt();
        awaitEnd(backoffMax.plusSeconds(1));
    }

    /** Tells the loop to stop, without waiting: a long-poll in flight ends when it returns or fails. */
    void halt() {
        running = false;
        thread.interrupt();
    }

    /** Waits up to {@code timeout} for the loop's thread to end. */
    void awaitEnd(Duration timeout) {
        try {
            thread.join(timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        boolean connected = true;
        Duration backoff = backoffMin;
        while (running) {
            try {
                CoordinatorState state = poll.poll(seenEpoch);
                if (!connected) LOG.info("coordinator watch reconnected (epoch {})", state.epoch());
                connected = true;
                backoff = backoffMin;
                if (state.epoch() > seenEpoch) deliver(state);
            } catch (CairnException e) {
                if (!running) return;
                if (connected) LOG.warn("coordinator watch lost connectivity, retrying: {}", e.getMessage());
                connected = false;
                if (!pause(backoff)) return;
                backoff = backoff.multipliedBy(2).compareTo(backoffMax) > 0 ? backoffMax : backoff.multipliedBy(2);
            }
        }
    }

    private void deliver(CoordinatorState state) {
        seenEpoch = state.epoch();
        try {
            listener.accept(state);
        } catch (RuntimeException e) {
            LOG.warn("coordinator watch listener failed on epoch {}: {}", state.epoch(), e.toString());
        }
    }

    private boolean pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
            return running;
        } catch (InterruptedException e) {
            return false;
        }
    }
}
