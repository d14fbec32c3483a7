package io.cairn.sim;

import java.util.PriorityQueue;

/** The simulation's one thread of control: a virtual clock and a queue of timed events, run in (time, insertion) order. */
final class SimScheduler {
    private record Event(long atMs, long seq, String what, Runnable action) {}

    private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) ->
            a.atMs != b.atMs ? Long.compare(a.atMs, b.atMs) : Long.compare(a.seq, b.seq));
    private long nowMs;
    private long seq;
    private long events;
    private String current = "";
    private final Event[] trace = new Event[48];

    long nowMs() {
        return nowMs;
    }

    /** Events run so far; the number a failure reports. */
    long events() {
        return events;
    }

    /** What the event running now (or last) is. */
    String current() {
        return current;
    }

    /** The last events run, oldest first, one a line. */
    String recentEvents() {
        StringBuilder sb = new StringBuilder();
        for (long n = Math.max(1, events - trace.length + 1); n <= events; n++) {
            Event e = trace[(int) (n % trace.length)];
            sb.append("  #").append(n).append(" @").append(e.atMs).append("ms ").append(e.what).append('\n');
        }
        return sb.toString();
    }

    void after(long delayMs, String what, Runnable action) {
        queue.add(new Event(nowMs + Math.max(0, delayMs), seq++, what, action));
    }

    /** Runs the next event; false when none is left. */
    boolean runNext() {
        Event e = queue.poll();
        if (e == null) return false;
        nowMs = e.atMs;
        events++;
        current = e.what;
        trace[(int) (events % trace.length)] = e;
        e.action.run();
        return true;
    }
}
