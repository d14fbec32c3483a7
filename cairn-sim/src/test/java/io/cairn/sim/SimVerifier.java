package io.cairn.sim;

import io.cairn.core.BucketRecord;
import io.cairn.core.doubled.DoubledCheck;
import io.cairn.core.move.MoveCommand;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

/**
 * The storage leaders' doubled-bucket verification (design 000, step 3) under the simulator:
 * each replicaset, every 50-150 ms, reads its records of a batch of buckets (always the
 * suspected one, as a router's Verify request would list it, plus a few random ones, as the
 * self-check would), asks every other replicaset for theirs through the faulty network, and
 * submits Contain for the copies the production {@link DoubledCheck} condemns. The same
 * decision and the same ledger command as cairn-storage's DoubledVerifier; only the I/O is simulated.
 */
final class SimVerifier {
    private final SimScheduler scheduler;
    private final SimNetwork network;
    private final Random random;
    private final List<SimReplicaset> replicasets;
    private final int bucketCount;
    private final int suspected;
    private long rounds;
    private long contained;

    SimVerifier(SimScheduler scheduler, SimNetwork network, Random random, List<SimReplicaset> replicasets, int bucketCount, int suspected) {
        this.scheduler = scheduler;
        this.network = network;
        this.random = random;
        this.replicasets = replicasets;
        this.bucketCount = bucketCount;
        this.suspected = suspected;
    }

    void start() {
        for (SimReplicaset rs : replicasets) schedule(rs);
    }

    long rounds() {
        return rounds;
    }

    long contained() {
        return contained;
    }

    private void schedule(SimReplicaset self) {
        scheduler.after(50 + random.nextInt(100), "verifier of " + self.id, () -> {
            round(self);
            schedule(self);
        });
    }

    private void round(SimReplicaset self) {
        TreeSet<Integer> batch = new TreeSet<>();
        batch.add(suspected);
        for (int i = 0; i < 3; i++) batch.add(1 + random.nextInt(bucketCount));
        List<Integer> buckets = new ArrayList<>(batch);
        network.call(self.id, "verifier of " + self.id + " reads " + buckets, false, s -> records(s, buckets), local -> {
            if (local == null) return;
            List<Integer> writable = new ArrayList<>();
            local.forEach((b, r) -> { if (r.state().servesWrites()) writable.add(b); });
            if (!writable.isEmpty()) askOthers(self, writable, local);
        }, () -> true);
    }

    private void askOthers(SimReplicaset self, List<Integer> buckets, Map<Integer, BucketRecord> local) {
        List<SimReplicaset> others = replicasets.stream().filter(rs -> rs != self).toList();
        Map<String, Map<Integer, BucketRecord>> answers = new HashMap<>();
        int[] pending = {others.size()};
        for (SimReplicaset other : others) {
            network.call(other.id, "verifier of " + self.id + " inspects " + other.id, false, s -> records(s, buckets), reply -> {
                if (reply != null) answers.put(other.id, reply);
                if (--pending[0] == 0) decide(self, buckets, local, answers);
            }, () -> true);
        }
    }

    private void decide(SimReplicaset self, List<Integer> buckets, Map<Integer, BucketRecord> local,
                        Map<String, Map<Integer, BucketRecord>> answers) {
        rounds++;
        for (int b : buckets) {
            Map<String, BucketRecord> others = new HashMap<>();
            answers.forEach((rs, records) -> { if (records.containsKey(b)) others.put(rs, records.get(b)); });
            BucketRecord mine = local.get(b);
            DoubledCheck.Decision d = DoubledCheck.decide(mine, others);
            if (d.verdict() != DoubledCheck.Verdict.CONTAIN) continue;
            network.call(self.id, "verifier contains " + b + " on " + self.id, true,
                    s -> s.apply(new MoveCommand.Contain(b, mine.generation(), d.rivalIds())), reply -> {
                        if (reply != null && reply.isOk()) contained++;
                    }, () -> true);
        }
    }

    private static Map<Integer, BucketRecord> records(SimReplicaset s, List<Integer> buckets) {
        Map<Integer, BucketRecord> out = new HashMap<>();
        for (int b : buckets) {
            BucketRecord r = s.record(b);
            if (r != null) out.put(b, r);
        }
        return out;
    }
}
