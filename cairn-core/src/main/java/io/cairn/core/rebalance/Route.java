package io.cairn.core.rebalance;

/** Move {@code count} ACTIVE buckets from one replicaset to another. */
public record Route(String from, String to, int count) {
    public Route {
        if (from == null || to == null || from.equals(to)) throw new IllegalArgumentException("a route needs two different replicasets");
        if (count < 1) throw new IllegalArgumentException("a route moves at least one bucket: " + count);
    }
}
