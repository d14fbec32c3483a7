package io.cairn.server.console;

import io.cairn.router.ReplicasetTraffic;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-replicaset throughput and latency over the last {@link #POINTS} samples, from the router's
 * counters ({@link ReplicasetTraffic}): each sample is the difference from the previous reading,
 * so a point is "operations per second and mean answer time of the batches answered since the
 * last sample". Kept here, not in the page, so a console opened now shows the last two minutes.
 * Not thread-safe: one refresher thread samples; readers get copies.
 */
final class TrafficHistory {
    /** Two minutes at one sample a second. */
    static final int POINTS = 120;

    /** One point: when, operations per second, and the mean time a batch took to be answered (ms; -1: none answered). */
    record Point(long atMs, double writesPerSecond, double readsPerSecond, double writeMs, double readMs) {}

    private final Map<String, ReplicasetTraffic> last = new HashMap<>();
    private long lastAtMs;
    private final Map<String, ArrayDeque<Point>> points = new LinkedHashMap<>();

    void sample(Map<String, ReplicasetTraffic> now, long nowMs) {
        double seconds = (nowMs - lastAtMs) / 1000.0;
        if (lastAtMs > 0 && seconds > 0) {
            now.forEach((rs, t) -> {
                ReplicasetTraffic before = last.get(rs);
                if (before == null) return;
                ArrayDeque<Point> ring = points.computeIfAbsent(rs, k -> new ArrayDeque<>());
                ring.addLast(new Point(nowMs, (t.writeOps() - before.writeOps()) / seconds, (t.readOps() - before.readOps()) / seconds,
                        meanMs(t.writeAnswerNanos() - before.writeAnswerNanos(), t.writeBatchesAnswered() - before.writeBatchesAnswered()),
                        meanMs(t.readAnswerNanos() - before.readAnswerNanos(), t.readBatchesAnswered() - before.readBatchesAnswered())));
                while (ring.size() > POINTS) ring.removeFirst();
            });
        }
        points.keySet().retainAll(now.keySet()); // a removed replicaset's chart goes with it
        last.clear();
        last.putAll(now);
        lastAtMs = nowMs;
    }

    private static double meanMs(long nanos, long batches) {
        return batches <= 0 ? -1 : Math.round(nanos / (double) batches / 10_000.0) / 100.0;
    }

    /** {@link #columns()} cut to the points after {@code sinceMs} (each column filtered alike). */
    @SuppressWarnings("unchecked")
    static Map<String, Map<String, List<Number>>> after(Map<?, ?> columns, long sinceMs) {
        Map<String, Map<String, List<Number>>> out = new LinkedHashMap<>();
        columns.forEach((rs, c) -> {
            Map<String, List<Number>> all = (Map<String, List<Number>>) c;
            List<Number> t = all.get("t");
            int from = 0;
            while (from < t.size() && t.get(from).longValue() <= sinceMs) from++;
            Map<String, List<Number>> cut = new LinkedHashMap<>();
            for (var e : all.entrySet()) cut.put(e.getKey(), e.getValue().subList(from, e.getValue().size()));
            out.put((String) rs, cut);
        });
        return out;
    }

    /** Per replicaset, its points oldest first, as columns (compact JSON): t, w, r, wms, rms. */
    Map<String, Map<String, List<Number>>> columns() {
        Map<String, Map<String, List<Number>>> out = new LinkedHashMap<>();
        points.forEach((rs, ring) -> {
            Map<String, List<Number>> c = new LinkedHashMap<>();
            List<Number> t = new ArrayList<>(), w = new ArrayList<>(), r = new ArrayList<>(), wms = new ArrayList<>(), rms = new ArrayList<>();
            for (Point p : ring) {
                t.add(p.atMs());
                w.add(Math.round(p.writesPerSecond()));
                r.add(Math.round(p.readsPerSecond()));
                wms.add(p.writeMs());
                rms.add(p.readMs());
            }
            c.put("t", t);
            c.put("writes", w);
            c.put("reads", r);
            c.put("writeMs", wms);
            c.put("readMs", rms);
            out.put(rs, c);
        });
        return out;
    }
}
