package io.cairn.sim;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.doubled.DoubledResolver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/** Scenario (e)'s fault-free phase: the containment invariant once verification ran, then the operator's resolution. */
final class SimContainment {
    /** Fault-free time for verification before the invariant must hold (ticks every 50-150 ms per replicaset). */
    static final int VERIFY_ROUNDS = 20;

    private SimContainment() {}

    /**
     * After fault-free verification: at most one copy of the double serves writes, and it is not
     * older than any other copy that claims the bucket (ACTIVE, PINNED, READONLY, SENDING or SENT).
     */
    static void checkAfterVerification(LongConsumer runFor, List<SimReplicaset> replicasets, int bucket, SimVerifier verifier) {
        long before = verifier.rounds();
        runFor.accept(VERIFY_ROUNDS * 150L);
        if (verifier.rounds() - before < VERIFY_ROUNDS) {
            throw new AssertionError("LIVENESS: only " + (verifier.rounds() - before) + " buckets were verified without faults");
        }
        List<SimReplicaset> writers = new ArrayList<>();
        long highest = 0;
        for (SimReplicaset rs : replicasets) {
            BucketRecord r = rs.record(bucket);
            if (r == null) continue;
            if (r.state().servesWrites()) writers.add(rs);
            if (r.state() != BucketState.RECEIVING && r.state() != BucketState.GARBAGE) highest = Math.max(highest, r.generation());
        }
        if (writers.size() > 1) {
            throw new Invariants.Violation("after verification bucket " + bucket + " is still writable on " + writers.size()
                    + " replicasets: " + Invariants.describe(bucket, replicasets));
        }
        if (writers.size() == 1 && writers.get(0).record(bucket).generation() < highest) {
            throw new Invariants.Violation("after verification the writable copy of bucket " + bucket + " is not the newest: "
                    + Invariants.describe(bucket, replicasets));
        }
    }

    /**
     * The operator's `cairn bucket resolve`, run by the production {@link DoubledResolver}
     * ({@link SimOperator}): wait until no move of the bucket is half-way, keep the newest copy; the
     * resolver contains and quarantines the others, then reactivates the kept one above every
     * generation. The invariants are checked after every event meanwhile; quarantined data stays.
     */
    static void resolve(LongConsumer runFor, SimOperator operator, List<SimReplicaset> replicasets, int bucket, Invariants invariants,
                        int attempts) {
        for (SimReplicaset rs : replicasets) {
            BucketRecord r = rs.record(bucket);
            boolean halfWay = r != null && (r.state() == BucketState.RECEIVING || r.state() == BucketState.SENDING
                    || (r.state() == BucketState.SENT && !r.has(BucketRecord.FLAG_DATA_DROPPED)));
            if (!halfWay) continue;
            if (attempts == 0) throw new AssertionError("LIVENESS: the doubled bucket stays half-way through a move: "
                    + Invariants.describe(bucket, replicasets));
            runFor.accept(SimDriver.ROUND_INTERVAL_MS);
            resolve(runFor, operator, replicasets, bucket, invariants, attempts - 1);
            return;
        }
        SimReplicaset keep = null;
        for (SimReplicaset rs : replicasets) {
            BucketRecord r = rs.record(bucket);
            if (r != null && isCopy(r) && (keep == null || r.generation() > keep.record(bucket).generation())) keep = rs;
        }
        if (keep == null) throw new AssertionError("no copy of bucket " + bucket + " left to keep: " + Invariants.describe(bucket, replicasets));
        Map<SimReplicaset, Integer> keysBefore = new HashMap<>();
        for (SimReplicaset rs : replicasets) keysBefore.put(rs, rs.keys(bucket).size());
        String answer = operator.resolve(bucket, keep.id, replicasets.stream().map(rs -> rs.id).toList(), runFor);
        if (!answer.startsWith("bucket " + bucket + " is ACTIVE on " + keep.id)) {
            throw new AssertionError("the resolver did not resolve bucket " + bucket + ": " + answer + "; " + Invariants.describe(bucket, replicasets));
        }
        for (SimReplicaset rs : replicasets) {
            if (rs != keep && rs.keys(bucket).size() != keysBefore.get(rs)) {
                throw new Invariants.Violation("quarantine of bucket " + bucket + " on " + rs.id + " changed its data: " + keysBefore.get(rs)
                        + " -> " + rs.keys(bucket).size() + " keys");
            }
        }
        invariants.acceptCurrentState();
        invariants.expectHolderData(bucket, keep);
        invariants.exempt(-1);
        invariants.touched(bucket);
        invariants.check();
    }

    private static boolean isCopy(BucketRecord r) {
        return r.state().servesWrites() || r.state() == BucketState.READONLY;
    }
}
