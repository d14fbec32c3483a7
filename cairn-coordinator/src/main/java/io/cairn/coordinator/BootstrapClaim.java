package io.cairn.coordinator;

/**
 * The coordinator's answer to a replicaset asking to create its initial buckets. Granted to
 * the first incarnation of the replicaset that asks, and again to that same incarnation (a
 * leader that crashed between claim and creation); refused to any other incarnation, which is a
 * wiped or replaced copy that must not re-create buckets living elsewhere by now.
 *
 * @param first first bucket of the replicaset's initial range (when {@code last < first} the
 *              range is empty: the replicaset joined after bootstrap and starts with no buckets)
 */
public record BootstrapClaim(boolean granted, int first, int last, String reason) {
    static BootstrapClaim grant(int first, int last) {
        return new BootstrapClaim(true, first, last, null);
    }

    static BootstrapClaim refuse(String reason) {
        return new BootstrapClaim(false, 1, 0, reason);
    }
}
