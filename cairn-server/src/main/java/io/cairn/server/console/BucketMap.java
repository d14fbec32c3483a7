package io.cairn.server.console;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.router.Router;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The bucket map as the web console draws it: two bytes per bucket (little-endian, bucket 1
 * first), so a million buckets cost 2 MB and 3,000 cost 6 KB. The low 12 bits are the owner (0:
 * unknown, n: the n-th name of {@link #owners}); the high 4 bits are marks. The version (a CRC of
 * the bytes) lets a page fetch the map only when it changed. Buckets per owner and unknown ones
 * are counted in the same pass.
 *
 * @param owners replicaset names, index 0 first (owner code 1)
 */
record BucketMap(List<String> owners, byte[] cells, long version, Map<String, Integer> counts, int unknown) {
    static final int MOVING = 1 << 12;
    static final int PINNED = 1 << 13;
    /** A contained doubled copy, or a bucket two replicasets claim (suspected). */
    static final int DOUBLED = 1 << 14;
    static final int ARCHIVED = 1 << 15;
    /** Owner codes have 12 bits: 4,095 replicasets. */
    static final int MAX_OWNERS = (1 << 12) - 1;

    /**
     * Encodes the router's routes, marking as moving the buckets whose owner's record says so
     * (SENDING, or copied ahead) and the ones the rebalancer lists in flight.
     */
    static BucketMap of(Router router, List<String> replicasets, BitSet moving, BitSet doubled) {
        List<String> owners = new ArrayList<>(replicasets);
        Map<String, Integer> codes = new HashMap<>();
        for (int i = 0; i < owners.size(); i++) codes.put(owners.get(i), i + 1);
        byte[] cells = new byte[router.bucketCount() * 2];
        int[] perCode = new int[MAX_OWNERS + 1];
        router.forEachRoute((bucket, owner, state, flags) -> {
            Integer code = owner == null ? null : codes.get(owner);
            if (owner != null && code == null) { // a replicaset the topology no longer names still owns it: show it under its name
                owners.add(owner);
                code = Math.min(owners.size(), MAX_OWNERS);
                codes.put(owner, code);
            }
            int cell = code == null ? 0 : code;
            perCode[cell]++;
            cell |= marks(state, flags, moving.get(bucket), doubled.get(bucket));
            cells[(bucket - 1) * 2] = (byte) cell;
            cells[(bucket - 1) * 2 + 1] = (byte) (cell >>> 8);
        });
        CRC32 crc = new CRC32();
        crc.update(cells);
        owners.forEach(o -> crc.update(o.getBytes(StandardCharsets.UTF_8)));
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (int i = 0; i < owners.size(); i++) counts.put(owners.get(i), perCode[i + 1]);
        return new BucketMap(List.copyOf(owners), cells, crc.getValue(), counts, perCode[0]);
    }

    static int marks(BucketState state, int flags, boolean listedMoving, boolean doubled) {
        int marks = 0;
        if (listedMoving || state == BucketState.SENDING || (flags & BucketRecord.FLAG_COPYING) != 0) marks |= MOVING;
        if (state == BucketState.PINNED) marks |= PINNED;
        if (doubled || state == BucketState.READONLY || (flags & BucketRecord.FLAG_DOUBLED) != 0) marks |= DOUBLED;
        if ((flags & BucketRecord.FLAG_ARCHIVED) != 0) marks |= ARCHIVED;
        return marks;
    }

    /** The names of a cell's marks, for one bucket's details. */
    static List<String> markNames(int marks) {
        List<String> out = new ArrayList<>();
        if ((marks & MOVING) != 0) out.add("moving");
        if ((marks & PINNED) != 0) out.add("pinned");
        if ((marks & DOUBLED) != 0) out.add("doubled");
        if ((marks & ARCHIVED) != 0) out.add("archived");
        return out;
    }
}
