package io.cairn.archive;

import java.util.Map;

/** What HEAD and LIST say about one object. {@code metadata} is empty in list results (S3 does not list it). */
public record ObjectInfo(String key, long sizeBytes, Map<String, String> metadata) {
    public ObjectInfo {
        metadata = Map.copyOf(metadata);
    }
}
