package io.cairn.core;

/** What a caller should do on an error, so a router can heal itself from the answer alone. */
public enum RetryClass {
    /** Send again elsewhere: the hint names where (another replicaset or leader). */
    REROUTE,
    /** Send again to the same place after a short wait (bucket locked, leader election). */
    RETRY_LATER,
    /** Fetch a newer topology first, then retry. */
    REFRESH_TOPOLOGY,
    /** Retrying cannot help: report to the client. */
    FATAL
}
