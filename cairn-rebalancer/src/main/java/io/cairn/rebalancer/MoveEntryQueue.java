package io.cairn.rebalancer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The move commands waiting for one replicaset's next MOVE_BATCH entries, and how they are cut
 * into entries. Chunks copied ahead are bulk and wait for the {@link TransferBudget}; every
 * other command is a step of some move, often one that holds writes (a chunk sent while writes
 * are held is a step too), so steps leave first and never wait for the budget. An entry carries
 * at most {@code maxBytes} (a bigger command still goes, alone), and while every one of the
 * {@code slots} carries an entry one extra "express" entry of steps only may go. Reordering is
 * safe: a driver has at most one command of a bucket outstanding. Plain object, one thread (the
 * mover's driver).
 *
 * @param <T> what the caller keeps per command (its encoded bytes and where the reply goes)
 */
final class MoveEntryQueue<T> {
    /**
     * One entry to send; {@link #sent} must be called with it when its answer (or its failure)
     * arrives. Its round trip from {@code sentAtMs} is its steps' latency for the adaptive rate:
     * the time they waited here grows with the moves in flight, not with the copy.
     */
    record Entry<T>(List<T> commands, boolean express, long sentAtMs) {}

    private record Waiting<T>(T command, int bytes) {}

    private final int slots;
    private final int maxCommands;
    private final int maxBytes;
    private final TransferBudget budget;
    private final ArrayDeque<Waiting<T>> steps = new ArrayDeque<>();
    private final ArrayDeque<Waiting<T>> bulk = new ArrayDeque<>();
    private int inFlight;
    private boolean expressInFlight;
    private long budgetWaitMs;

    MoveEntryQueue(int slots, int maxCommands, int maxBytes, TransferBudget budget) {
        this.slots = slots;
        this.maxCommands = maxCommands;
        this.maxBytes = maxBytes;
        this.budget = budget;
    }

    void add(T command, int bytes, boolean isBulk) {
        (isBulk ? bulk : steps).add(new Waiting<>(command, bytes));
    }

    boolean isEmpty() {
        return steps.isEmpty() && bulk.isEmpty();
    }

    /** The next entry to send at {@code nowMs}, or null while the slots are taken, the budget is spent or nothing waits. */
    Entry<T> next(long nowMs) {
        boolean slot = inFlight < slots;
        budgetWaitMs = slot && !bulk.isEmpty() ? budget.waitMs(nowMs) : 0;
        boolean chunks = slot && !bulk.isEmpty() && budgetWaitMs == 0;
        boolean express = !slot && !expressInFlight && !steps.isEmpty();
        if (steps.isEmpty() && !chunks || !slot && !express) return null;
        List<T> commands = new ArrayList<>();
        int bytes = take(steps, commands, 0);
        if (chunks) budget.spend(take(bulk, commands, bytes) - bytes, nowMs);
        if (express) expressInFlight = true;
        else inFlight++;
        return new Entry<>(commands, express, nowMs);
    }

    @Override
    public String toString() {
        return "steps=" + steps.size() + " chunks=" + bulk.size() + " entriesInFlight=" + inFlight + (expressInFlight ? "+express" : "");
    }

    /**
     * After {@link #next} returned null: how long its chunks wait for the budget alone (a slot is
     * free), so the caller must call {@code next} again then; 0 when an answer will free them. It
     * is the wait {@code next} saw: reading the clock again could find the budget refilled, a
     * wait of 0, and nothing to wake the chunk up (a move stalled so in CI).
     */
    long budgetWaitMs() {
        return budgetWaitMs;
    }

    /** {@code entry} was answered (or failed): its slot is free again. */
    void sent(Entry<T> entry) {
        if (entry.express()) expressInFlight = false;
        else inFlight--;
    }

    private int take(ArrayDeque<Waiting<T>> from, List<T> commands, int bytes) {
        while (!from.isEmpty() && commands.size() < maxCommands && (commands.isEmpty() || bytes + from.peek().bytes() <= maxBytes)) {
            Waiting<T> w = from.poll();
            bytes += w.bytes();
            commands.add(w.command());
        }
        return bytes;
    }
}
