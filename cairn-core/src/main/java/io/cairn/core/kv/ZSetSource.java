package io.cairn.core.kv;

import java.util.ArrayList;
import java.util.List;

/**
 * One input of the sorted-set algebra ({@link ZSetAlgebraApplier}): a sorted set, a set (Redis takes
 * its members with score 1), or a missing key (empty). Point lookups go to the store; a walk over
 * all members reads them in member order, which is the cheapest order for both encodings.
 */
final class ZSetSource {
    private final int bucket;
    private final byte[] key;
    private final KvView view;
    /** The sorted set, or null for a set or a missing key. */
    private final ZSet zset;
    private final long count;
    /** WEIGHTS' factor for this input; 1 unless given. */
    double weight = 1;

    private ZSetSource(int bucket, byte[] key, KvView view, ZSet zset, long count) {
        this.bucket = bucket;
        this.key = key;
        this.view = view;
        this.zset = zset;
        this.count = count;
    }

    /** The input at {@code key} (empty when absent or expired), or null when it is neither a sorted set nor a set. */
    static ZSetSource open(int bucket, byte[] key, KvView view, long nowMs) {
        byte[] raw = view.get(bucket, key);
        byte[] stored = raw == null || StoredValue.isExpired(raw, nowMs) ? null : raw;
        if (stored == null) return new ZSetSource(bucket, key, view, null, 0);
        if (ZSetMeta.isZSet(stored)) {
            ZSet z = new ZSet(bucket, key, raw, stored, view);
            return new ZSetSource(bucket, key, view, z, z.count);
        }
        if (SetApplier.isSet(stored)) return new ZSetSource(bucket, key, view, null, CollectionMeta.count(stored));
        return null;
    }

    long count() {
        return count;
    }

    /** The member's score here, or null when it is not a member. */
    Double find(byte[] member) {
        if (count == 0) return null;
        if (zset != null) return zset.score(member);
        return view.getField(bucket, key, member) != null ? 1.0 : null;
    }

    /** Every member with its score, in member order. */
    List<ZSet.Entry> all() {
        if (count == 0) return List.of();
        if (zset != null) return zset.byMember(0, (int) Math.min(count, Integer.MAX_VALUE));
        List<ZSet.Entry> out = new ArrayList<>((int) Math.min(count, 1 << 16));
        for (KvView.Field f : view.fields(bucket, key)) out.add(new ZSet.Entry(f.name(), 1.0));
        return out;
    }
}
