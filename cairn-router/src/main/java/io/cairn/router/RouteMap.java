package io.cairn.router;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.ErrorPayload;

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
    /** The owner's record as last learned: its state's code and flags ({@link #ownerRecord}), for operators' views. */
    private final java.util.concurrent.atomic.AtomicIntegerArray ownerState;

    RouteMap(int bucketCount) {
        this.bucketCount = bucketCount;
        this.owner = new AtomicReferenceArray<>(bucketCount + 1);
        this.generation = new AtomicLongArray(bucketCount + 1);
        this.ownerState = new java.util.concurrent.atomic.AtomicIntegerArray(bucketCount + 1);
    }

    /** What the owner's record said: its state and flags ({@link io.cairn.core.BucketRecord}), unknown with no owner. */
    record OwnerRecord(String owner, io.cairn.core.BucketState state, long generation, int flags) {}

    /** Every bucket's owner and its record's state and flags, in id order, with no object per bucket. */
    void forEachOwner(BucketRoute.Visitor visitor) {
        for (int b = 1; b <= bucketCount; b++) {
            String o = owner.get(b);
            int packed = ownerState.get(b);
            visitor.route(b, o, o == null ? null : io.cairn.core.BucketState.ofCode((byte) (packed & 0xff)), o == null ? 0 : packed >>> 8);
        }
    }

    /** The bucket's owner and the state its record had when learned; the owner is null while unknown. */
    OwnerRecord ownerRecord(int bucket) {
        String o = owner.get(bucket);
        int packed = ownerState.get(bucket);
        return new OwnerRecord(o, o == null ? null : io.cairn.core.BucketState.ofCode((byte) (packed & 0xff)), generation.get(bucket), packed >>> 8);
    }

    int bucketCount() {
        return bucketCount;
    }

    /** The owner, or null while unknown. */
    String owner(int bucket) {
        return owner.get(bucket);
    }

    /**
     * Writable claims (ACTIVE, PINNED, READONLY) per bucket, kept only for buckets that have one:
     * a second claimer makes the bucket suspected of being doubled (design 000).
     */
    private final java.util.Map<Integer, java.util.Map<String, Long>> writableClaims = new java.util.HashMap<>();

    /** Applies a record reported by {@code replicaset}. */
    synchronized void learn(String replicaset, BucketRecord r) {
        if (r.id() < 1 || r.id() > bucketCount) return;
        int b = r.id();
        boolean writable = r.state().servesWrites() || r.state() == io.cairn.core.BucketState.READONLY;
        if (writable) {
            writableClaims.computeIfAbsent(b, k -> new java.util.HashMap<>()).put(replicaset, r.generation());
            updateRefused(b);
        } else {
            dropClaim(b, replicaset);
        }
        if (writable && r.isContainedDouble()) containedClaims.computeIfAbsent(b, k -> new java.util.HashSet<>()).add(replicaset);
        else dropContained(b, replicaset);
        if (r.state().isRoutable()) {
            boolean newer = r.generation() > generation.get(b);
            // At equal generation a writable copy (the new owner) beats a SENDING one (the old owner),
            // but never another writable copy: two of them is a suspected double, and the route stays put.
            String current = owner.get(b);
            boolean currentWritable = current != null && Long.valueOf(r.generation()).equals(claimsOf(b).get(current));
            boolean tieWon = r.generation() == generation.get(b)
                    && (replicaset.equals(current) || (r.state().servesWrites() && !currentWritable));
            if (current == null || newer || tieWon) {
                owner.set(b, replicaset);
                generation.set(b, r.generation());
                ownerState.set(b, (r.flags() << 8) | (r.state().code() & 0xff));
            }
        } else if (replicaset.equals(owner.get(b)) && r.generation() >= generation.get(b)) {
            owner.set(b, null);
        }
    }

    /** Per bucket, the replicasets whose claim is a contained doubled copy (READONLY + doubled flag). */
    private final java.util.Map<Integer, java.util.Set<String>> containedClaims = new java.util.HashMap<>();

    private void dropContained(int bucket, String replicaset) {
        java.util.Set<String> c = containedClaims.get(bucket);
        if (c != null && c.remove(replicaset) && c.isEmpty()) containedClaims.remove(bucket);
    }

    /**
     * Suspected buckets still worth a verification: some claimer that is not contained yet does
     * not outrank every other claim (it may be the stale copy, or one of a tie). A bucket whose
     * only uncontained claimer has the highest generation is settled until an operator resolves it.
     */
    synchronized java.util.SortedSet<Integer> toVerify() {
        java.util.SortedSet<Integer> out = new java.util.TreeSet<>();
        writableClaims.forEach((b, claims) -> {
            if (claims.size() < 2) return;
            java.util.Set<String> contained = containedClaims.getOrDefault(b, java.util.Set.of());
            for (var e : claims.entrySet()) {
                if (contained.contains(e.getKey())) continue;
                boolean outranksAll = claims.entrySet().stream().allMatch(o -> o.getKey().equals(e.getKey()) || o.getValue() < e.getValue());
                if (!outranksAll) out.add(b);
            }
        });
        return out;
    }

    /** Buckets with a contained doubled copy: replicaset -> "READONLY@generation" or "writable@generation", for alerts. */
    synchronized java.util.SortedMap<Integer, java.util.Map<String, String>> doubled() {
        java.util.SortedMap<Integer, java.util.Map<String, String>> out = new java.util.TreeMap<>();
        containedClaims.forEach((b, contained) -> {
            java.util.Map<String, String> sides = new java.util.TreeMap<>();
            claimsOf(b).forEach((rs, g) -> sides.put(rs, (contained.contains(rs) ? "READONLY@" : "writable@") + g));
            out.put(b, sides);
        });
        return out;
    }

    private java.util.Map<String, Long> claimsOf(int bucket) {
        return writableClaims.getOrDefault(bucket, java.util.Map.of());
    }

    private void dropClaim(int bucket, String replicaset) {
        java.util.Map<String, Long> c = writableClaims.get(bucket);
        if (c != null && c.remove(replicaset) != null && c.isEmpty()) writableClaims.remove(bucket);
        updateRefused(bucket);
    }

    /** Buckets two or more replicasets claim as writable (suspected doubled), in id order. */
    synchronized java.util.SortedSet<Integer> suspected() {
        java.util.SortedSet<Integer> out = new java.util.TreeSet<>();
        writableClaims.forEach((b, c) -> {
            if (c.size() > 1) out.add(b);
        });
        return out;
    }

    /**
     * True when two writable claims share the highest generation: no copy can be preferred, so
     * writes are refused until one of them gives the bucket up (or is contained).
     */
    boolean writesRefused(int bucket) {
        return refused.contains(bucket); // read on every write: a lock-free snapshot, rebuilt on (rare) changes
    }

    private volatile java.util.Set<Integer> refused = java.util.Set.of();

    private void updateRefused(int bucket) {
        java.util.Map<String, Long> c = writableClaims.get(bucket);
        boolean tie = false;
        if (c != null && c.size() > 1) {
            long top = java.util.Collections.max(c.values());
            tie = c.values().stream().filter(g -> g == top).count() > 1;
        }
        if (tie == refused.contains(bucket)) return;
        java.util.Set<Integer> next = new java.util.HashSet<>(refused);
        if (tie) next.add(bucket);
        else next.remove(bucket);
        refused = java.util.Set.copyOf(next);
    }

    /** Forgets what {@code replicaset} claimed (its copy of the data was replaced). */
    synchronized void forget(String replicaset) {
        for (int b : new java.util.ArrayList<>(writableClaims.keySet())) dropClaim(b, replicaset);
        for (int b : new java.util.ArrayList<>(containedClaims.keySet())) dropContained(b, replicaset);
        for (int b = 1; b <= bucketCount; b++) {
            if (replicaset.equals(owner.get(b))) {
                owner.set(b, null);
                generation.set(b, 0);
            }
        }
    }

    /**
     * A wrong-owner answer from {@code from} naming where the bucket went ({@code to}, handed over at
     * {@code generation}: a SENT record's peer): route the bucket there now rather than after a
     * discovery round. Generations still decide, so a hint never overrides what discovery knows: a
     * route at a higher generation is newer, and at the same generation only the refusing
     * replicaset's own route (or none) gives way. The owner's record state is presumed ACTIVE (the
     * new owner took the bucket writable) until discovery reports the record itself.
     *
     * @return whether the bucket is now routed to {@code to}
     */
    synchronized boolean followMove(int bucket, String from, String to, long generation) {
        if (bucket < 1 || bucket > bucketCount || to.equals(from)) return false;
        long known = this.generation.get(bucket);
        String current = owner.get(bucket);
        if (known > generation || (known == generation && current != null && !current.equals(from))) return to.equals(current);
        owner.set(bucket, to);
        this.generation.set(bucket, generation);
        ownerState.set(bucket, BucketState.ACTIVE.code() & 0xff);
        return true;
    }

    /**
     * A wrong-owner answer from {@code refusedBy}: follows the new owner its payload names
     * ({@link #followMove}); without one, or when that leaves the route with {@code refusedBy}, stops
     * sending there until discovery says otherwise ({@link #forgetBucket}).
     *
     * @return true when the bucket is now routed to another replicaset (send there at once), false when
     *         discovery has to find its owner
     */
    synchronized boolean wrongOwner(int bucket, String refusedBy, ErrorPayload payload) {
        if (payload != null) {
            followMove(bucket, refusedBy, payload.movedTo(), payload.generation());
            String now = owner.get(bucket);
            if (now != null && !now.equals(refusedBy)) return true;
        }
        forgetBucket(bucket, refusedBy);
        return false;
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
