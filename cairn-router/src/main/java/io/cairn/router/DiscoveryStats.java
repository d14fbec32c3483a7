package io.cairn.router;

/**
 * What this router's discovery of one replicaset has done since it started.
 *
 * @param rounds   discovery rounds
 * @param records  bucket records received
 * @param resyncs  full resyncs (new incarnation, cursor below the horizon, or restored history)
 * @param cursor   the last BSN seen from the replicaset
 * @param requests discovery requests (pages)
 * @param bytes    bytes of discovery answers
 * @param lag      BSNs the replicaset had handed out beyond the cursor at its last answer
 */
public record DiscoveryStats(long rounds, long records, long resyncs, long cursor, long requests, long bytes, long lag) {}
