package io.cairn.archive;

import java.util.Map;

/**
 * What HEAD and LIST say about one object. {@code metadata} is empty in list results (S3 does not list
 * it). {@code lastModifiedMs} is when the object was last written or copied (epoch ms; -1 unknown): the
 * sweeper's age guard reads it.
 */
public record ObjectInfo(String key, long sizeBytes, Map<String, String> metadata, long lastModifiedMs) {
    public ObjectInfo {
        metadata = Map.copyOf(metadata);
    }

    public ObjectInfo(String key, long sizeBytes, Map<String, String> metadata) {
        this(key, sizeBytes, metadata, -1);
    }
}
