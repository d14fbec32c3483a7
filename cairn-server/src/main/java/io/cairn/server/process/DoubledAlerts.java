package io.cairn.server.process;

import io.cairn.core.BucketRecord;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/** The DOUBLED_BUCKETS alert text of storages and routers (docs/doubled-buckets.md), in one place. */
final class DoubledAlerts {
    /** Buckets named in one alert line; the count is always complete. */
    static final int MAX_LISTED = 20;

    private DoubledAlerts() {}

    /** Contained doubled copies held here: bucket -> the replicasets that also claim it. */
    static Map<Integer, String> contained(Collection<BucketRecord> records) {
        Map<Integer, String> out = new TreeMap<>();
        for (BucketRecord r : records) if (r.isContainedDouble()) out.put(r.id(), r.peer());
        return out;
    }

    /** Quarantined losing copies kept here (data exportable): bucket -> generation. */
    static Map<Integer, Long> quarantined(Collection<BucketRecord> records) {
        Map<Integer, Long> out = new TreeMap<>();
        for (BucketRecord r : records) if (r.has(BucketRecord.FLAG_QUARANTINED) && !r.has(BucketRecord.FLAG_DATA_DROPPED)) out.put(r.id(), r.generation());
        return out;
    }

    /** The storage's alert, or null when it holds no contained doubled copy. */
    static String storage(String replicaset, Collection<BucketRecord> records) {
        Map<Integer, String> c = contained(records);
        if (c.isEmpty()) return null;
        StringBuilder sb = new StringBuilder("DOUBLED_BUCKETS: ").append(c.size()).append(" buckets on ").append(replicaset)
                .append(" are contained doubled copies (READONLY, writes refused); resolve with `cairn bucket doubled` and `cairn bucket resolve`:");
        c.entrySet().stream().limit(MAX_LISTED).forEach(e -> sb.append(' ').append(e.getKey()).append(" (also on ")
                .append(e.getValue().isEmpty() ? "?" : e.getValue()).append(')'));
        if (c.size() > MAX_LISTED) sb.append(" ...");
        return sb.toString();
    }

    /** The router's alert from what discovery reported: bucket -> (replicaset -> state@generation), or null. */
    static String router(Map<Integer, Map<String, String>> doubled) {
        if (doubled.isEmpty()) return null;
        StringBuilder sb = new StringBuilder("DOUBLED_BUCKETS: ").append(doubled.size())
                .append(" buckets have a contained doubled copy (writes to it are refused):");
        doubled.entrySet().stream().limit(MAX_LISTED).forEach(e -> sb.append(' ').append(e.getKey()).append(' ').append(e.getValue()));
        if (doubled.size() > MAX_LISTED) sb.append(" ...");
        return sb.toString();
    }
}
