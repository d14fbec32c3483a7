package io.cairn.core.doubled;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The verification decision of design 000, step 3: given this replicaset's record of a bucket
 * and what every other replicaset answered, should this copy be contained? Pure: records in,
 * a decision out; the storage leader does the asking and the containing.
 *
 * <p>Generations decide. A copy is the legitimate owner only if no other copy claims the bucket
 * at a higher generation; at an equal generation nobody can tell, so BOTH copies contain
 * themselves (each side runs this same rule and reaches the same verdict), and an operator
 * resolves. A lower claimer is left to contain itself when it runs the check.
 *
 * <p>Claims: ACTIVE, PINNED, READONLY and SENDING at a higher generation (SENDING took the next
 * generation when its move started, so it too proves our copy is older), and SENT at a higher
 * generation (the bucket left that replicaset at that generation, so someone received it after
 * our copy's time). At an equal generation only a writable copy or a contained doubled copy is
 * a rival (a SENDING or SENT record at our generation would mean we are its destination).
 */
public final class DoubledCheck {
    public enum Verdict {
        /** This replicaset does not hold the bucket ACTIVE/PINNED: nothing to check. */
        NOT_HELD,
        /** No other replicaset claims it. */
        SOLE_OWNER,
        /** Other claimers have lower generations: ours stays; theirs contain themselves. */
        KEEP,
        /** Another copy has a higher or an equal generation: make ours READONLY doubled. */
        CONTAIN
    }

    /** @param rivals the replicasets whose records caused the verdict (or that we outrank), by id */
    public record Decision(Verdict verdict, Map<String, BucketRecord> rivals, String reason) {
        public String rivalIds() {
            return String.join(",", rivals.keySet());
        }
    }

    private DoubledCheck() {}

    /** @param others every other replicaset's record of the bucket (replicasets without one are absent) */
    public static Decision decide(BucketRecord local, Map<String, BucketRecord> others) {
        if (local == null || !local.state().servesWrites()) return new Decision(Verdict.NOT_HELD, Map.of(), "not writable here");
        Map<String, BucketRecord> higher = new TreeMap<>();
        Map<String, BucketRecord> equal = new TreeMap<>();
        Map<String, BucketRecord> lower = new TreeMap<>();
        for (Map.Entry<String, BucketRecord> e : others.entrySet()) {
            BucketRecord r = e.getValue();
            if (r == null) continue;
            if (r.generation() > local.generation() && claimsAbove(r.state())) higher.put(e.getKey(), r);
            else if (r.generation() == local.generation() && rivalsAtEqual(r)) equal.put(e.getKey(), r);
            else if (r.generation() < local.generation() && rivalsAtEqual(r)) lower.put(e.getKey(), r);
        }
        if (!higher.isEmpty()) {
            return new Decision(Verdict.CONTAIN, higher, "a copy with a higher generation exists on " + String.join(",", higher.keySet()));
        }
        if (!equal.isEmpty()) {
            return new Decision(Verdict.CONTAIN, equal, "copies with the same generation " + local.generation() + " exist on "
                    + String.join(",", equal.keySet()) + "; both sides are contained");
        }
        if (!lower.isEmpty()) return new Decision(Verdict.KEEP, lower, "other copies have lower generations");
        return new Decision(Verdict.SOLE_OWNER, Map.of(), "no other claimer");
    }

    private static boolean claimsAbove(BucketState s) {
        return List.of(BucketState.ACTIVE, BucketState.PINNED, BucketState.READONLY, BucketState.SENDING, BucketState.SENT).contains(s);
    }

    private static boolean rivalsAtEqual(BucketRecord r) {
        return r.state().servesWrites() || r.isContainedDouble();
    }
}
