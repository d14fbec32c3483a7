package io.cairn.core.kv;

import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/** A {@link KvView} over a sorted map, copying bytes in and out so tests see what was stored. */
final class InMemoryKvView implements KvView {
    private final Map<String, byte[]> entries = new TreeMap<>();

    private static String id(int bucket, byte[] key) {
        return bucket + "/" + HexFormat.of().formatHex(key);
    }

    @Override
    public byte[] get(int bucket, byte[] key) {
        byte[] stored = entries.get(id(bucket, key));
        return stored == null ? null : stored.clone();
    }

    @Override
    public void put(int bucket, byte[] key, byte[] stored) {
        entries.put(id(bucket, key), stored.clone());
    }

    @Override
    public void delete(int bucket, byte[] key) {
        entries.remove(id(bucket, key));
    }

    int size() {
        return entries.size();
    }

    /** Bucket/key -> stored bytes (header included), as hex, in key order. */
    Map<String, String> snapshot() {
        Map<String, String> out = new TreeMap<>();
        entries.forEach((k, v) -> out.put(k, HexFormat.of().formatHex(v)));
        return out;
    }
}
