package io.cairn.core.doubled;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MovePort;
import io.cairn.core.move.MoveQuery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Design 000, step 3, as it runs on a storage leader: checks buckets this replicaset holds
 * ACTIVE/PINNED against every other replicaset and contains the copies {@link DoubledCheck}
 * condemns with a replicated {@link MoveCommand.Contain}. Buckets come from routers' Verify
 * requests (suspected doubles, checked first) and from the lazy self-check
 * ({@link SelfCheckSchedule}), so detection works with router verification off.
 *
 * <p>Pure protocol logic: the replicasets are reached only through the {@link MovePort}, time
 * comes in as {@code nowMs}, and every call and callback happens on the caller's one driver
 * thread. The same code runs in cairn-storage's DoubledVerifier and under the simulator.
 *
 * <p>Bounds: at most one batch ({@code maxBatch} buckets, one Inspect query per other
 * replicaset) in flight; at most {@link #MAX_PENDING} requested buckets waiting. A replicaset
 * that does not answer is left out of that batch's decision. Contain is guarded by the
 * generation the decision saw, so a record that changed meanwhile (a move started) refuses it.
 */
public final class DoubledVerification {
    public static final int MAX_PENDING = 4_096;

    /** This replicaset as its leader sees it. */
    public interface Local {
        boolean isLeader();

        Collection<BucketRecord> records();
    }

    /** What happened, for logs and counters; called on the driver thread. */
    public interface Events {
        void contained(int bucket, long generation, String reason);

        void containRefused(int bucket, String why);

        /**
         * Every other replicaset answered and none outranks or ties ours: this copy at {@code generation}
         * is the bucket's legitimate owner (a rebuilt bucket may be restored now).
         */
        default void confirmedOwner(int bucket, long generation) {}
    }

    private final String self;
    private final MovePort port;
    private final Local local;
    private final SelfCheckSchedule schedule;
    private final int maxBatch;
    private final Events events;
    private final Set<Integer> requested = new LinkedHashSet<>();
    private List<String> others = List.of();
    private boolean inFlight;
    private long checked;
    private long contained;

    public DoubledVerification(String self, MovePort port, Local local, SelfCheckSchedule schedule, int maxBatch, Events events) {
        if (maxBatch < 1 || maxBatch > MoveQuery.MAX_INSPECT) throw new IllegalArgumentException("maxBatch must be 1.." + MoveQuery.MAX_INSPECT);
        this.self = self;
        this.port = port;
        this.local = local;
        this.schedule = schedule;
        this.maxBatch = maxBatch;
        this.events = events;
    }

    /** The other replicasets of the current topology. */
    public void setOthers(Collection<String> replicasets) {
        others = replicasets.stream().filter(id -> !id.equals(self)).sorted().toList();
    }

    /** A router asks to verify {@code buckets}; they go before the self-check's. */
    public void request(Collection<Integer> buckets) {
        for (int b : buckets) if (requested.size() < MAX_PENDING) requested.add(b);
    }

    public long checked() {
        return checked;
    }

    public long contained() {
        return contained;
    }

    /** Starts the next batch unless one is in flight (or this member is not the leader). */
    public void tick(long nowMs) {
        if (inFlight) return;
        if (!local.isLeader() || others.isEmpty()) {
            requested.clear();
            return;
        }
        if (requested.isEmpty() && !schedule.due(nowMs)) return;
        Map<Integer, BucketRecord> writable = new HashMap<>();
        for (BucketRecord r : local.records()) if (r.state().servesWrites()) writable.put(r.id(), r);
        List<Integer> batch = new ArrayList<>();
        for (var it = requested.iterator(); it.hasNext() && batch.size() < maxBatch; ) {
            int b = it.next();
            it.remove();
            if (writable.containsKey(b)) batch.add(b);
        }
        if (batch.isEmpty()) batch = schedule.next(nowMs, writable.keySet());
        if (!batch.isEmpty()) check(batch, writable);
    }

    private void check(List<Integer> batch, Map<Integer, BucketRecord> mine) {
        inFlight = true;
        Map<String, List<MoveQuery.BucketReport>> answers = new HashMap<>();
        List<String> asked = others;
        int[] pending = {asked.size()};
        for (String rs : asked) {
            port.inspect(rs, new MoveQuery.Inspect(batch, false), reports -> {
                if (reports != null) answers.put(rs, reports);
                if (--pending[0] == 0) decide(batch, mine, answers, asked.size());
            });
        }
    }

    private void decide(List<Integer> batch, Map<Integer, BucketRecord> mine, Map<String, List<MoveQuery.BucketReport>> answers, int asked) {
        inFlight = false;
        checked += batch.size();
        Map<Integer, Map<String, BucketRecord>> byBucket = new HashMap<>();
        answers.forEach((rs, reports) -> reports.forEach(r -> byBucket.computeIfAbsent(r.record().id(), k -> new HashMap<>()).put(rs, r.record())));
        for (int b : batch) {
            BucketRecord ours = mine.get(b);
            DoubledCheck.Decision d = DoubledCheck.decide(ours, byBucket.getOrDefault(b, Map.of()));
            if (d.verdict() != DoubledCheck.Verdict.CONTAIN) {
                // a replicaset that did not answer may hold a newer copy: only a full set of answers confirms
                if (answers.size() == asked && d.verdict() != DoubledCheck.Verdict.NOT_HELD) events.confirmedOwner(b, ours.generation());
                continue;
            }
            port.submit(self, new MoveCommand.Contain(b, ours.generation(), d.rivalIds()), reply -> {
                if (reply != null && reply.isOk()) {
                    contained++;
                    events.contained(b, ours.generation(), d.reason());
                } else {
                    events.containRefused(b, reply == null ? "no answer" : reply.message());
                }
            });
        }
    }
}
