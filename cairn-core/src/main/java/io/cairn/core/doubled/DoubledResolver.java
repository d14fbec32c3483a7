package io.cairn.core.doubled;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MovePort;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveQuery.BucketReport;
import io.cairn.core.move.MoveReply;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The operator's side of design 000: list doubled buckets, and resolve one by keeping one copy.
 * Runs on the driver thread of a {@link MovePort} (the coordinator leader's), no I/O of its own.
 *
 * <p>Resolution order is the safety argument: every losing copy is quarantined first (it leaves
 * the routable states, its data is kept), and only when all of them confirmed does the kept copy
 * become ACTIVE at a generation above every copy. So no moment has two writable copies, and a
 * router that still holds an old route meets a refusal, never a second owner. A replicaset that
 * does not answer stops the resolution before anything changes: it might hold a copy.
 */
public final class DoubledResolver {
    private final MovePort port;
    private final List<String> replicasets;

    public DoubledResolver(MovePort port, List<String> replicasets) {
        this.port = port;
        this.replicasets = List.copyOf(new TreeSet<>(replicasets));
    }

    /** Every replicaset's report of {@code buckets} (empty: its doubled-flagged buckets); null values: no answer. */
    public void inspectAll(List<Integer> buckets, boolean withCounts, Consumer<Map<String, List<BucketReport>>> answer) {
        Map<String, List<BucketReport>> found = new TreeMap<>();
        int[] pending = {replicasets.size()};
        if (replicasets.isEmpty()) answer.accept(found);
        for (String rs : replicasets) {
            port.inspect(rs, new MoveQuery.Inspect(buckets, withCounts), reports -> {
                found.put(rs, reports);
                if (--pending[0] == 0) answer.accept(found);
            });
        }
    }

    /**
     * Doubled buckets: those any replicaset holds with the doubled flag, each with every
     * replicaset's report (record, keys, last write). Replicasets that did not answer are listed
     * under the key "" with a null report list.
     */
    public void listDoubled(Consumer<Map<Integer, Map<String, BucketReport>>> answer) {
        inspectAll(List.of(), false, flagged -> {
            TreeSet<Integer> ids = new TreeSet<>();
            flagged.values().forEach(l -> { if (l != null) l.forEach(r -> ids.add(r.record().id())); });
            if (ids.isEmpty()) {
                answer.accept(Map.of());
                return;
            }
            List<Integer> bounded = new ArrayList<>(ids).subList(0, Math.min(ids.size(), MoveQuery.MAX_INSPECT));
            inspectAll(bounded, true, all -> {
                Map<Integer, Map<String, BucketReport>> out = new TreeMap<>();
                for (int b : bounded) out.put(b, new TreeMap<>());
                all.forEach((rs, reports) -> {
                    if (reports == null) return;
                    for (BucketReport r : reports) out.get(r.record().id()).put(rs, r);
                });
                answer.accept(out);
            });
        });
    }

    /** Keeps {@code bucket}'s copy on {@code keep}; answers with what happened, in words ("refused: ..." when nothing changed). */
    public void resolve(int bucket, String keep, Consumer<String> answer) {
        if (!replicasets.contains(keep)) {
            answer.accept("refused: no replicaset " + keep);
            return;
        }
        inspectAll(List.of(bucket), false, all -> {
            Map<String, BucketRecord> records = new TreeMap<>();
            for (var e : all.entrySet()) {
                if (e.getValue() == null) {
                    answer.accept("refused: replicaset " + e.getKey() + " did not answer; it may hold a copy of bucket " + bucket);
                    return;
                }
                e.getValue().forEach(r -> records.put(e.getKey(), r.record()));
            }
            String problem = check(bucket, keep, records);
            if (problem != null) {
                answer.accept("refused: " + problem);
                return;
            }
            long newGeneration = records.values().stream().mapToLong(BucketRecord::generation).max().orElse(0) + 1;
            List<String> losers = new ArrayList<>();
            records.forEach((rs, r) -> { if (!rs.equals(keep) && isCopy(r)) losers.add(rs); });
            quarantineAll(bucket, keep, losers, records, () -> port.submit(keep, new MoveCommand.Reactivate(bucket, newGeneration), reply -> {
                if (reply == null || !reply.isOk()) {
                    answer.accept("incomplete: copies on " + losers + " are quarantined, but " + keep + " did not become ACTIVE ("
                            + (reply == null ? "no answer" : reply.message()) + "); run the same resolve again");
                } else {
                    answer.accept("bucket " + bucket + " is ACTIVE on " + keep + " at generation " + newGeneration
                            + (losers.isEmpty() ? "" : "; quarantined on " + losers + " (export with `cairn bucket export " + bucket + " --from RS`)"));
                }
            }), answer);
        });
    }

    private static String check(int bucket, String keep, Map<String, BucketRecord> records) {
        BucketRecord kept = records.get(keep);
        if (kept == null || !isCopy(kept)) {
            return keep + " holds no copy of bucket " + bucket + " (" + (kept == null ? "no record" : kept.state()) + ")";
        }
        for (var e : records.entrySet()) {
            BucketState s = e.getValue().state();
            if (s == BucketState.SENDING || s == BucketState.RECEIVING) {
                return "bucket " + bucket + " is " + s + " on " + e.getKey() + " (a move is in flight); try again when it ends";
            }
        }
        return null;
    }

    /** A copy that could serve: writable, or contained READONLY. */
    private static boolean isCopy(BucketRecord r) {
        return r.state().servesWrites() || r.state() == BucketState.READONLY;
    }

    private void quarantineAll(int bucket, String keep, List<String> losers, Map<String, BucketRecord> records, Runnable then, Consumer<String> answer) {
        if (losers.isEmpty()) {
            then.run();
            return;
        }
        int[] pending = {losers.size()};
        List<String> failed = new ArrayList<>();
        for (String rs : losers) {
            BucketRecord r = records.get(rs);
            Consumer<MoveReply> done = reply -> {
                if (reply == null || !reply.isOk()) failed.add(rs + " (" + (reply == null ? "no answer" : reply.message()) + ")");
                if (--pending[0] > 0) return;
                if (failed.isEmpty()) then.run();
                else answer.accept("refused: could not quarantine the copy on " + failed + "; the kept copy was not changed; try again");
            };
            MoveCommand.Quarantine quarantine = new MoveCommand.Quarantine(bucket, r.generation());
            if (r.state() == BucketState.READONLY) {
                port.submit(rs, quarantine, done);
            } else {
                // A writable losing copy is contained first (its own log entry), then quarantined.
                port.submit(rs, new MoveCommand.Contain(bucket, r.generation(), keep), contained -> {
                    if (contained == null || !contained.isOk()) done.accept(contained);
                    else port.submit(rs, quarantine, done);
                });
            }
        }
    }
}
