package io.cairn.server.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a recorded history of client operations ({@link Op}) for anomalies a correct
 * linearizable store cannot produce. A plain object: no I/O, no clock, no threads.
 *
 * <p>Each key is a register, checked on its own (sound, not complete: it flags only what no
 * linearizable history explains, and may miss some that none does). Every write writes a value
 * no other write writes, so a read names the write it observed. A write W is <em>overwritten
 * before</em> time t when an acknowledged write W' started after W ended and ended before t: in
 * every linearization W' comes after W, so from t on W's value is gone for good. Writes whose
 * outcome is unknown never end (they may be applied at any later moment), so they are never
 * overwritten in that sense; writes answered with a definite error (CLUSTERDOWN, TRYAGAIN) never
 * happened.
 *
 * <ul>
 *   <li>A read of value v: v's write exists, started before the read ended, was not answered
 *       with a definite error, and was not overwritten before the read started.</li>
 *   <li>A read of nil: the key's initial absence or some DEL not answered with a definite error,
 *       started before the read ended, was not overwritten before the read started.</li>
 *   <li>The final read of each key, after the run, is a read like the others; failing it means an
 *       acknowledged write is missing at the end.</li>
 *   <li>A counter (a key only INCRed): each acknowledged INCR's reply lies between 1 + the
 *       acknowledged INCRs that ended before it started and the INCRs not refused that started
 *       before it ended, no two acknowledged INCRs answer the same number, and the final value
 *       lies between the acknowledged INCRs and the acknowledged plus unknown ones.</li>
 * </ul>
 */
public final class HistoryChecker {
    /** The anomalies, each kind meaning a broken promise of the store. */
    public enum Kind {
        /** An acknowledged write (or delete) is not accounted for by the final value of its key. */
        LOST_WRITE,
        /** A read returned a value (or nil) overwritten by a write that completed before the read started. */
        STALE_READ,
        /** A read (or the final value) returned the value of a write answered with a definite error. */
        FAILED_WRITE_OBSERVED,
        /** A read returned a value no write wrote, or one whose write started after the read ended. */
        PHANTOM_VALUE,
        /** An INCR reply or a counter's final value outside what the INCRs allow, or two INCRs answered alike. */
        COUNTER_OUT_OF_BOUNDS
    }

    public record Anomaly(Kind kind, String key, String detail) {
        @Override
        public String toString() {
            return kind + " " + key + ": " + detail;
        }
    }

    /** The anomalies and a few figures of the history checked. */
    public record Result(List<Anomaly> anomalies, int keys, int reads, int writes, int incrs) {
        public Map<Kind, Integer> countByKind() {
            Map<Kind, Integer> out = new LinkedHashMap<>();
            for (Anomaly a : anomalies) out.merge(a.kind(), 1, Integer::sum);
            return out;
        }
    }

    private HistoryChecker() {}

    public static Result check(List<Op> history) {
        Map<String, List<Op>> byKey = new LinkedHashMap<>();
        for (Op op : history) byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        List<Anomaly> anomalies = new ArrayList<>();
        int reads = 0;
        int writes = 0;
        int incrs = 0;
        for (var e : byKey.entrySet()) {
            List<Op> ops = e.getValue();
            boolean counter = ops.stream().anyMatch(o -> o.type() == Op.Type.INCR);
            boolean register = ops.stream().anyMatch(o -> o.type() == Op.Type.WRITE);
            if (counter && register) throw new IllegalArgumentException(e.getKey() + " is both written and INCRed: the workload mixes them");
            if (counter) new Counter(e.getKey(), ops).check(anomalies);
            else new Register(e.getKey(), ops).check(anomalies);
            for (Op o : ops) {
                if (o.isRead()) reads++;
                else if (o.type() == Op.Type.WRITE) writes++;
                else incrs++;
            }
        }
        return new Result(List.copyOf(anomalies), byKey.size(), reads, writes, incrs);
    }

    /** The end of a write as far as overwriting goes: an unknown outcome may apply at any later time. */
    private static long effectiveEnd(Op w) {
        return w.outcome() == Op.Outcome.UNKNOWN ? Long.MAX_VALUE : w.endNs();
    }

    private static final class Register {
        private final String key;
        private final List<Op> ops;
        /** Acknowledged writes sorted by start, and the least end among each one and those starting later. */
        private final long[] ackStarts;
        private final long[] minEndFrom;
        private final Map<String, Op> byValue = new HashMap<>();
        private final List<Op> deletes = new ArrayList<>();

        Register(String key, List<Op> ops) {
            this.key = key;
            this.ops = ops;
            List<Op> acked = new ArrayList<>();
            for (Op o : ops) {
                if (o.type() != Op.Type.WRITE) continue;
                if (o.outcome() == Op.Outcome.OK) acked.add(o);
                if (o.value() == null) {
                    deletes.add(o);
                } else if (byValue.put(o.value(), o) != null) {
                    throw new IllegalArgumentException(key + ": value " + o.value() + " written twice: the workload must write unique values");
                }
            }
            acked.sort(Comparator.comparingLong(Op::startNs));
            ackStarts = acked.stream().mapToLong(Op::startNs).toArray();
            minEndFrom = new long[acked.size() + 1];
            minEndFrom[acked.size()] = Long.MAX_VALUE;
            for (int i = acked.size() - 1; i >= 0; i--) minEndFrom[i] = Math.min(minEndFrom[i + 1], acked.get(i).endNs());
        }

        /** True when an acknowledged write started after {@code writeEnd} and ended before {@code t}. */
        private boolean overwrittenBefore(long writeEnd, long t) {
            if (writeEnd == Long.MAX_VALUE) return false;
            return minEndFrom[(int) countBelow(ackStarts, writeEnd + 1)] < t;
        }

        void check(List<Anomaly> out) {
            for (Op r : ops) {
                if (!r.isRead()) continue;
                String problem = r.value() == null ? checkNil(r) : checkValue(r, out);
                if (problem != null) {
                    Kind kind = r.type() == Op.Type.FINAL_READ ? Kind.LOST_WRITE : Kind.STALE_READ;
                    out.add(new Anomaly(kind, key, describe(r) + ": " + problem));
                }
            }
        }

        /** A problem that makes the read stale (or the final value a lost write), or null; other kinds go to {@code out}. */
        private String checkValue(Op r, List<Anomaly> out) {
            Op w = byValue.get(r.value());
            if (w == null) {
                out.add(new Anomaly(Kind.PHANTOM_VALUE, key, describe(r) + ": no write wrote this value"));
                return null;
            }
            if (w.outcome() == Op.Outcome.FAILED) {
                out.add(new Anomaly(Kind.FAILED_WRITE_OBSERVED, key, describe(r) + ": written by " + w + ", answered with a definite error"));
                return null;
            }
            if (w.startNs() > r.endNs()) {
                out.add(new Anomaly(Kind.PHANTOM_VALUE, key, describe(r) + ": its write " + w + " started after the read ended"));
                return null;
            }
            return overwrittenBefore(effectiveEnd(w), r.startNs()) ? "its write " + w + " was overwritten by an acknowledged write "
                    + "that completed before the read started" : null;
        }

        private String checkNil(Op r) {
            if (!overwrittenBefore(Long.MIN_VALUE + 1, r.startNs())) return null; // the key's initial absence may still show
            for (Op d : deletes) {
                if (d.outcome() == Op.Outcome.FAILED || d.startNs() > r.endNs()) continue;
                if (!overwrittenBefore(effectiveEnd(d), r.startNs())) return null;
            }
            return "every delete (and the initial absence) was overwritten by an acknowledged write that completed before the read started";
        }
    }

    private static final class Counter {
        private final String key;
        private final List<Op> ops;
        /** Ends of the acknowledged INCRs and starts of those not refused, sorted: counts by binary search. */
        private final long[] ackedEnds;
        private final long[] notRefusedStarts;

        Counter(String key, List<Op> ops) {
            this.key = key;
            this.ops = ops;
            ackedEnds = ops.stream().filter(o -> o.type() == Op.Type.INCR && o.outcome() == Op.Outcome.OK).mapToLong(Op::endNs).sorted().toArray();
            notRefusedStarts = ops.stream().filter(o -> o.type() == Op.Type.INCR && o.outcome() != Op.Outcome.FAILED)
                    .mapToLong(Op::startNs).sorted().toArray();
        }

        /** Acknowledged INCRs that ended before {@code t}: applied before anything that starts at t. */
        private long ackedBefore(long t) {
            return countBelow(ackedEnds, t);
        }

        /** INCRs not refused that started by {@code t}: the most that can have applied by then. */
        private long startedBy(long t) {
            return t == Long.MAX_VALUE ? notRefusedStarts.length : countBelow(notRefusedStarts, t + 1);
        }

        void check(List<Anomaly> out) {
            long acked = ackedEnds.length;
            long unknown = ops.stream().filter(o -> o.type() == Op.Type.INCR && o.outcome() == Op.Outcome.UNKNOWN).count();
            Set<String> replies = new HashSet<>();
            for (Op i : ops) {
                if (i.type() != Op.Type.INCR || i.outcome() != Op.Outcome.OK) continue;
                long low = 1 + ackedBefore(i.startNs());
                long high = startedBy(i.endNs());
                long reply = Long.parseLong(i.value());
                if (reply < low || reply > high) out.add(new Anomaly(Kind.COUNTER_OUT_OF_BOUNDS, key, describe(i) + ": expected " + low + ".." + high));
                if (!replies.add(i.value())) out.add(new Anomaly(Kind.COUNTER_OUT_OF_BOUNDS, key, describe(i) + ": another INCR answered the same"));
            }
            for (Op r : ops) {
                if (!r.isRead()) continue;
                long value = r.value() == null ? 0 : Long.parseLong(r.value());
                boolean last = r.type() == Op.Type.FINAL_READ;
                long low = last ? acked : ackedBefore(r.startNs());
                long high = last ? acked + unknown : startedBy(r.endNs());
                if (value < low || value > high) {
                    out.add(new Anomaly(Kind.COUNTER_OUT_OF_BOUNDS, key, describe(r) + ": expected " + low + ".." + high
                            + " (" + acked + " INCRs acknowledged, " + unknown + " unknown)"));
                }
            }
        }
    }

    /** How many of the sorted {@code values} are below {@code t}. */
    private static long countBelow(long[] values, long t) {
        int lo = 0;
        int hi = values.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (values[mid] < t) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    private static String describe(Op op) {
        return op.type() + " " + (op.value() == null ? "nil" : op.value()) + " [" + op.startNs() + ".." + op.endNs() + "]";
    }
}
