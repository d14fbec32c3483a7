package io.cairn.storage;

/**
 * Discovery answers one storage member served since it started (docs/discovery.md).
 *
 * @param requests answers sent
 * @param records  bucket records in them
 * @param resyncs  answers that told a router to resync fully
 * @param bytes    their encoded size
 */
public record DiscoveryServed(long requests, long records, long resyncs, long bytes) {
    public static final DiscoveryServed NONE = new DiscoveryServed(0, 0, 0, 0);
}
