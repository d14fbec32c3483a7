package io.cairn.sim;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.BucketTransitions;
import io.cairn.core.move.ReceiveProgress;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The safety invariants (SYSTEM.md 1-3 as far as moves reach them), checked after every event
 * for the buckets the event touched:
 * <ul>
 *   <li>single writer: at most one replicaset holds the bucket in a servesWrites() state, and a
 *       SENDING source next to it only as the copied source it took the bucket over from, at
 *       the same generation;</li>
 *   <li>no stale reads: while a replicaset takes writes for the bucket, no other one serves its
 *       reads (a contained doubled copy aside: it is the fault being contained);</li>
 *   <li>durability: the bucket's data holder (its writable owner; else its SENDING source;
 *       else a verified-complete RECEIVING copy whose source is SENT at that generation) holds
 *       exactly the model's keys and values: the last value applied for every key ever written,
 *       which covers every acknowledged write; a bucket with no holder is lost;</li>
 *   <li>a record never disappears, its generation never decreases, a state change is in the
 *       transition table;</li>
 *   <li>BSN: every changed record carries a new BSN, above every BSN the replicaset had issued
 *       before the event.</li>
 * </ul>
 * One bucket may be exempt from single writer and durability: scenario (d)'s injected double.
 */
final class Invariants {
    /** A broken invariant: what and where. */
    static final class Violation extends AssertionError {
        Violation(String message) {
            super(message);
        }
    }

    private final List<SimReplicaset> replicasets;
    /** bucket -> key -> the last value applied for it, anywhere. */
    private final Map<Integer, Map<String, String>> expected = new HashMap<>();
    private final Map<String, Map<Integer, BucketRecord>> seen = new HashMap<>();
    private final Map<String, Long> seenBsn = new HashMap<>();
    private final Set<Integer> dirty = new HashSet<>();
    private int exempt = -1;
    private long checks;

    private SimArchive archive;

    Invariants(List<SimReplicaset> replicasets) {
        this.replicasets = replicasets;
    }

    /** Archived holders' data is read from their objects. */
    void useArchive(SimArchive archive) {
        this.archive = archive;
    }

    /**
     * What {@code holder} holds of {@code bucket}: its keys, or for an archived record its object's.
     * A missing object counts only while the move's source still keeps its own at that generation
     * (the durable check has yet to find it missing; the source drops nothing before). Null: lost.
     */
    private TreeMap<byte[], byte[]> dataOf(int bucket, SimReplicaset holder) {
        BucketRecord r = holder.record(bucket);
        if (archive == null || r == null || !r.isArchived()) return holder.keys(bucket);
        TreeMap<byte[], byte[]> own = archive.contents(holder.archivePointer(bucket));
        if (own != null) return own;
        for (SimReplicaset rs : replicasets) {
            BucketRecord s = rs.record(bucket);
            boolean keeps = rs != holder && s != null && s.generation() == r.generation() && s.isArchived()
                    && (s.state() == BucketState.SENT || s.state() == BucketState.SENDING) && !s.has(BucketRecord.FLAG_DATA_DROPPED);
            TreeMap<byte[], byte[]> theirs = keeps ? archive.contents(rs.archivePointer(bucket)) : null;
            if (theirs != null) return theirs;
        }
        return null;
    }

    void touched(int bucket) {
        dirty.add(bucket);
    }

    void writeApplied(int bucket, String key, String value) {
        expected.computeIfAbsent(bucket, b -> new HashMap<>()).put(key, value);
    }

    void exempt(int bucket) {
        exempt = bucket;
    }

    boolean isExempt() {
        return exempt > 0;
    }

    long checks() {
        return checks;
    }

    /**
     * After an operator resolved a double by keeping {@code holder}'s copy: the model of the
     * bucket's data becomes that copy's (writes applied to the other copies are in quarantine).
     */
    void expectHolderData(int bucket, SimReplicaset holder) {
        Map<String, String> m = new HashMap<>();
        holder.keys(bucket).forEach((k, v) -> m.put(Sim.string(k), Sim.string(v)));
        expected.put(bucket, m);
    }

    /** Accepts the current state as is (after bootstrap or an operator's out-of-band change). */
    void acceptCurrentState() {
        for (SimReplicaset rs : replicasets) {
            Map<Integer, BucketRecord> m = seen.computeIfAbsent(rs.id, k -> new HashMap<>());
            for (BucketRecord r : rs.records()) m.put(r.id(), r);
            seenBsn.put(rs.id, rs.bsn());
        }
        dirty.clear();
    }

    /** Checks the buckets touched since the last call; throws {@link Violation}. */
    void check() {
        if (dirty.isEmpty()) return;
        checks++;
        for (SimReplicaset rs : replicasets) checkRecords(rs);
        for (int bucket : dirty) if (bucket != exempt) checkOwnership(bucket);
        dirty.clear();
    }

    private void checkRecords(SimReplicaset rs) {
        Map<Integer, BucketRecord> before = seen.computeIfAbsent(rs.id, k -> new HashMap<>());
        long bsnBefore = seenBsn.getOrDefault(rs.id, 0L);
        Set<Long> bsns = new HashSet<>();
        for (int bucket : dirty) {
            BucketRecord old = before.get(bucket);
            BucketRecord now = rs.record(bucket);
            if (now == null) {
                if (old != null) fail("bucket " + bucket + " record vanished on " + rs.id + " (was " + old + ")");
                continue;
            }
            if (now.equals(old)) continue;
            if (old != null && now.generation() < old.generation()) {
                fail("bucket " + bucket + " generation went back on " + rs.id + ": " + old + " -> " + now);
            }
            BucketState from = old == null ? null : old.state();
            if (from != now.state() && !BucketTransitions.isAllowed(from, now.state())) {
                fail("bucket " + bucket + " illegal transition on " + rs.id + ": " + old + " -> " + now);
            }
            if (now.bsn() <= bsnBefore || !bsns.add(now.bsn())) {
                fail("bucket " + bucket + " changed on " + rs.id + " without a new BSN (issued before: " + bsnBefore + "): " + old + " -> " + now);
            }
            before.put(bucket, now);
        }
        if (rs.bsn() < bsnBefore) fail("BSN of " + rs.id + " went back: " + bsnBefore + " -> " + rs.bsn());
        seenBsn.put(rs.id, rs.bsn());
    }

    private void checkOwnership(int bucket) {
        List<SimReplicaset> writers = new ArrayList<>();
        List<SimReplicaset> sending = new ArrayList<>();
        List<SimReplicaset> readers = new ArrayList<>();
        for (SimReplicaset rs : replicasets) {
            BucketRecord r = rs.record(bucket);
            if (r == null) continue;
            if (r.state().servesWrites()) writers.add(rs);
            if (r.state() == BucketState.SENDING && !handedOver(bucket, rs)) sending.add(rs);
            if (r.servesReads() && !r.isContainedDouble()) readers.add(rs);
        }
        if (writers.size() > 1) fail("bucket " + bucket + " is writable on " + describe(bucket, writers));
        if (writers.size() + sending.size() > 1) {
            fail("bucket " + bucket + " is owned twice: " + describe(bucket, concat(writers, sending)));
        }
        if (!writers.isEmpty() && readers.size() > 1) {
            fail("bucket " + bucket + " takes writes on " + writers.get(0).id + " while others serve reads: " + describe(bucket, readers));
        }
        SimReplicaset holder = !writers.isEmpty() ? writers.get(0) : !sending.isEmpty() ? sending.get(0) : completeCopy(bucket);
        if (holder == null) fail("bucket " + bucket + " is lost: no owner and no verified copy: " + describe(bucket, replicasets));
        checkData(bucket, holder);
    }

    /**
     * A copied SENDING {@code source} whose destination activated the copy at its verdict (and may
     * have moved the bucket on since): it serves nothing, and MarkSent has yet to follow.
     */
    private boolean handedOver(int bucket, SimReplicaset source) {
        BucketRecord s = source.record(bucket);
        if (!s.isCopying()) return false;
        for (SimReplicaset rs : replicasets) {
            BucketRecord d = rs.record(bucket);
            if (!rs.id.equals(s.peer()) || d == null) continue;
            return d.generation() > s.generation()
                    || (d.generation() == s.generation() && d.state() != BucketState.RECEIVING && d.state() != BucketState.GARBAGE);
        }
        return false;
    }

    /** A RECEIVING copy verified complete whose source is SENT at the same generation (between MarkSent and Activate). */
    private SimReplicaset completeCopy(int bucket) {
        for (SimReplicaset rs : replicasets) {
            BucketRecord r = rs.record(bucket);
            ReceiveProgress p = rs.progressOf(bucket);
            if (r == null || r.state() != BucketState.RECEIVING || p == null || !p.complete()) continue;
            for (SimReplicaset src : replicasets) {
                BucketRecord s = src.record(bucket);
                if (src.id.equals(r.peer()) && s != null && s.state() == BucketState.SENT && s.generation() == r.generation()) return rs;
            }
        }
        return null;
    }

    private void checkData(int bucket, SimReplicaset holder) {
        Map<String, String> want = expected.getOrDefault(bucket, Map.of());
        TreeMap<byte[], byte[]> have = dataOf(bucket, holder);
        if (have == null) {
            fail("bucket " + bucket + " is lost: its archive object on " + holder.id + " is gone and no source keeps one; "
                    + describe(bucket, replicasets));
        }
        for (Map.Entry<String, String> e : want.entrySet()) {
            byte[] v = have.get(Sim.bytes(e.getKey()));
            if (v == null || !Arrays.equals(v, Sim.bytes(e.getValue()))) {
                fail("bucket " + bucket + " key " + e.getKey() + " should be " + e.getValue() + " on its holder " + holder.id
                        + " but is " + (v == null ? "missing" : Sim.string(v)) + "; " + describe(bucket, replicasets));
            }
        }
        if (have.size() != want.size()) {
            fail("bucket " + bucket + " has " + have.size() + " keys on " + holder.id + ", expected " + want.size());
        }
    }

    private static List<SimReplicaset> concat(List<SimReplicaset> a, List<SimReplicaset> b) {
        List<SimReplicaset> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    static String describe(int bucket, List<SimReplicaset> sets) {
        StringBuilder sb = new StringBuilder();
        for (SimReplicaset rs : sets) {
            sb.append(rs.id).append('=').append(rs.record(bucket));
            ReceiveProgress p = rs.progressOf(bucket);
            if (p != null) sb.append(" progress=").append(p);
            sb.append(" keys=").append(rs.keys(bucket).size()).append("; ");
        }
        return sb.toString();
    }

    private static void fail(String message) {
        throw new Violation(message);
    }
}
