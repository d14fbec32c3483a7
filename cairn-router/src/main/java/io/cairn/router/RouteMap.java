package io.cairn.router;

import io.cairn.core.BucketRecord;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Bucket -> owning replicaset, as learned by discovery. Claims are merged by generation, never
 * by arrival order: a claim with a lower generation than the one we hold is ignored, so a
 * late answer from a former owner cannot pull the route back.
 */
final class RouteMap {
    private final int bucketCount;
    private final AtomicReferenceArray<String> owner;
    private final AtomicLongArray generation;

    RouteMap(int bucketCount) {
        this.bucketCount = bucketCount;
        this.owner = new AtomicReferenceArray<>(bucketCount + 1);
        this.generation = new AtomicLongArray(bucketCount + 1);
    }

    int bucketCount() {
        return bucketCount;
    }

    /** The owner, or null while unknown. */
    String owner(int bucket) {
        return owner.get(bucket);
    }

    /** Applies a record reported by {@code replicaset}. */
    synchronized void learn(String replicaset, BucketRecord r) {
        if (r.id() < 1 || r.id() > bucketCount) return;
        int b = r.id();
        if (r.state().isRoutable()) {
            boolean newer = r.generation() > generation.get(b);
            // At equal generation a writable copy (the new owner) beats a SENDING one (the old owner).
            boolean tieWon = r.generation() == generation.get(b) && (r.state().servesWrites() || replicaset.equals(owner.get(b)));
            if (owner.get(b) == null || newer || tieWon) {
                owner.set(b, replicaset);
                generation.set(b, r.generation());
            }
        } else if (replicaset.equals(owner.get(b)) && r.generation() >= generation.get(b)) {
            owner.set(b, null);
        }
    }

    /** Forgets what {@code replicaset} claimed (its copy of the data was replaced). */
    synchronized void forget(String replicaset) {
        for (int b = 1; b <= bucketCount; b++) {
            if (replicaset.equals(owner.get(b))) {
                owner.set(b, null);
                generation.set(b, 0);
            }
        }
    }

    /** A wrong-owner answer: stop sending there until discovery says otherwise. */
    synchronized void forgetBucket(int bucket, String replicaset) {
        if (replicaset.equals(owner.get(bucket))) owner.set(bucket, null);
    }

    int unknownCount() {
        int n = 0;
        for (int b = 1; b <= bucketCount; b++) if (owner.get(b) == null) n++;
        return n;
    }

    /** Buckets per owner, for status pages. */
    java.util.Map<String, Integer> countsByOwner() {
        java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
        for (int b = 1; b <= bucketCount; b++) {
            String o = owner.get(b);
            if (o != null) counts.merge(o, 1, Integer::sum);
        }
        return counts;
    }
}
