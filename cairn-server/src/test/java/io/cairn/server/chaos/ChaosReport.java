package io.cairn.server.chaos;

import io.cairn.core.BucketHasher;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The figures of a chaos run, computed from the history and the faults (no I/O): how long writes
 * to each replicaset a fault hit were unavailable after it, and the printed summary.
 *
 * <p>Unavailability after a fault: from the moment it took effect (the process gone, the link down)
 * to the acknowledgement of the first write (SET,
 * DEL, MSET, INCR) to a key of that replicaset sent after the kill. Keys are placed by the bucket
 * owners read right before the fault. The figure includes one write's latency; with a few clients
 * it is as fine as their request rate (a few milliseconds here).
 */
final class ChaosReport {
    /** A fault and the owners of the workload's buckets right before it. */
    record Trial(Faults.Injected fault, Map<Integer, String> owners) {}

    private ChaosReport() {}

    /** Milliseconds until writes to each replicaset the fault hit worked again; -1 when none was acknowledged before the end. */
    static Map<String, Long> unavailableMs(Trial trial, List<Op> ackedWritesByStart, int bucketCount) {
        Map<String, Long> out = new LinkedHashMap<>();
        long t = trial.fault().startNs();
        for (String rs : trial.fault().replicasets()) {
            long firstEnd = Long.MAX_VALUE;
            for (Op o : ackedWritesByStart) {
                if (o.startNs() < t) continue;
                if (o.startNs() > firstEnd) break; // later writes cannot be acknowledged earlier
                int bucket = BucketHasher.bucketOf(o.key().getBytes(StandardCharsets.UTF_8), bucketCount);
                if (rs.equals(trial.owners().get(bucket))) firstEnd = Math.min(firstEnd, o.endNs());
            }
            out.put(rs, firstEnd == Long.MAX_VALUE ? -1 : TimeUnit.NANOSECONDS.toMillis(firstEnd - t));
        }
        return out;
    }

    static List<Op> ackedWritesByStart(List<Op> history) {
        List<Op> out = new ArrayList<>();
        for (Op o : history) {
            if ((o.type() == Op.Type.WRITE || o.type() == Op.Type.INCR) && o.outcome() == Op.Outcome.OK) out.add(o);
        }
        out.sort(Comparator.comparingLong(Op::startNs));
        return out;
    }

    /** The run's summary, one figure a line, as docs/testing.md shows it. */
    static String render(long seed, long runMs, Workload workload, List<Op> history, HistoryChecker.Result result, List<Trial> trials,
                         int bucketCount) {
        StringBuilder s = new StringBuilder();
        s.append("==== chaos run: seed=").append(seed).append(" (replay: -Dcairn.seed=").append(seed).append("), ")
                .append(runMs / 1000).append(" s of workload\n");
        s.append("operations: ").append(workload.commands()).append(" commands ").append(workload.commandsByOutcome()).append('\n');
        s.append("history: ").append(history.size()).append(" key operations, ").append(result.keys()).append(" keys, ")
                .append(result.writes()).append(" writes, ").append(result.reads()).append(" reads, ").append(result.incrs()).append(" INCRs\n");
        Map<Faults.Kind, Integer> count = new EnumMap<>(Faults.Kind.class);
        Map<Faults.Kind, Integer> confirmed = new EnumMap<>(Faults.Kind.class);
        Map<Faults.Kind, Long> worst = new EnumMap<>(Faults.Kind.class);
        List<Op> acked = ackedWritesByStart(history);
        for (Trial t : trials) {
            Faults.Kind k = t.fault().kind();
            count.merge(k, 1, Integer::sum);
            if (t.fault().confirmed()) confirmed.merge(k, 1, Integer::sum);
            Map<String, Long> down = unavailableMs(t, acked, bucketCount);
            long max = down.values().stream().mapToLong(Long::longValue).max().orElse(-1);
            worst.merge(k, max, Math::max);
            s.append(String.format("  fault %-16s %s; writes unavailable %s ms; healed after %d ms%s%n", k, t.fault().detail(), down,
                    TimeUnit.NANOSECONDS.toMillis(t.fault().healedNs() - t.fault().startNs()), t.fault().confirmed() ? "" : " (NOT CONFIRMED)"));
        }
        s.append("faults injected: ").append(trials.size()).append(' ').append(count).append(", confirmed ").append(confirmed).append('\n');
        s.append("longest write unavailability of one replicaset, ms, by fault kind: ").append(worst).append('\n');
        s.append("client errors by kind: ").append(workload.errorsByKind()).append('\n');
        s.append("anomalies: ").append(result.anomalies().size()).append(' ').append(result.countByKind()).append('\n');
        result.anomalies().stream().limit(20).forEach(a -> s.append("  ").append(a).append('\n'));
        return s.toString();
    }
}
