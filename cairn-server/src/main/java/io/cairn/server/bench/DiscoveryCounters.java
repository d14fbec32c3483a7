package io.cairn.server.bench;

import io.cairn.router.DiscoveryStats;
import io.cairn.router.Router;

/**
 * One router's discovery counters summed over replicasets, taken at one moment; the difference
 * of two snapshots is what discovery cost in between. Reads {@link Router#discoveryCounters()}.
 */
record DiscoveryCounters(long atNanos, long requests, long bytes, long records, long resyncs) {

    static DiscoveryCounters of(Router router) {
        long requests = 0;
        long bytes = 0;
        long records = 0;
        long resyncs = 0;
        for (DiscoveryStats c : router.discoveryCounters().values()) {
            requests += c.requests();
            bytes += c.bytes();
            records += c.records();
            resyncs += c.resyncs();
        }
        return new DiscoveryCounters(System.nanoTime(), requests, bytes, records, resyncs);
    }

    /** What happened between {@code earlier} and this snapshot. */
    DiscoveryCounters since(DiscoveryCounters earlier) {
        return new DiscoveryCounters(atNanos - earlier.atNanos, requests - earlier.requests, bytes - earlier.bytes,
                records - earlier.records, resyncs - earlier.resyncs);
    }

    /** Seconds covered, for a difference made by {@link #since}. */
    double seconds() {
        return atNanos / 1e9;
    }

    double requestsPerMinute() {
        return requests * 60 / seconds();
    }

    double bytesPerMinute() {
        return bytes * 60 / seconds();
    }
}
