package io.cairn.archive;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;

import java.util.Map;

/** The key and metadata rules of {@link ObjectStore}, checked the same way by every implementation. */
final class ObjectKeys {
    /** S3's limit on a key's UTF-8 length. */
    static final int MAX_KEY_BYTES = 1024;
    /** S3's limit on all user metadata of an object (keys and values). */
    static final int MAX_METADATA_BYTES = 2048;

    private ObjectKeys() {}

    static String checkKey(String key) {
        if (key == null || key.isEmpty()) throw refused("an object key must not be empty");
        if (key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_KEY_BYTES)
            throw refused("object key longer than " + MAX_KEY_BYTES + " bytes: " + key.substring(0, 64) + "...");
        if (key.startsWith("/") || key.endsWith("/") || key.contains("\\") || key.contains("\0"))
            throw refused("object key must not start or end with '/' or hold '\\' or NUL: " + key);
        for (String segment : key.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals(".."))
                throw refused("object key has an empty, '.' or '..' segment: " + key);
        }
        return key;
    }

    static String checkPrefix(String prefix) {
        if (prefix == null || prefix.isEmpty()) return "";
        if (prefix.startsWith("/") || prefix.contains("\\") || prefix.contains("\0") || prefix.contains("//"))
            throw refused("bad object key prefix: " + prefix);
        return prefix;
    }

    static Map<String, String> checkMetadata(Map<String, String> metadata) {
        int bytes = 0;
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            String k = e.getKey();
            if (k.isEmpty() || !k.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
                throw refused("metadata keys are lower-case letters, digits and '-': " + k);
            if (!e.getValue().chars().allMatch(c -> c >= 0x20 && c < 0x7f))
                throw refused("metadata values are printable ASCII (an HTTP header): " + k);
            bytes += k.length() + e.getValue().length();
        }
        if (bytes > MAX_METADATA_BYTES) throw refused("metadata larger than " + MAX_METADATA_BYTES + " bytes");
        return Map.copyOf(metadata);
    }

    static int checkPageSize(int maxKeys) {
        if (maxKeys < 1 || maxKeys > ObjectStore.MAX_PAGE_KEYS)
            throw refused("list page size must be 1.." + ObjectStore.MAX_PAGE_KEYS + ", was " + maxKeys);
        return maxKeys;
    }

    static CairnException refused(String message) {
        return new CairnException(ErrorCode.OBJECT_STORE_REFUSED, message);
    }

    static CairnException notFound(String key) {
        return new CairnException(ErrorCode.OBJECT_NOT_FOUND, "no object at key " + key);
    }
}
