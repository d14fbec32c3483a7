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

    /** bucket/key -> field -> value, fields in unsigned byte order as RocksDB keeps them. */
    private final Map<String, java.util.TreeMap<byte[], byte[]>> fields = new TreeMap<>();

    @Override
    public byte[] getField(int bucket, byte[] key, byte[] field) {
        var hash = fields.get(id(bucket, key));
        byte[] v = hash == null ? null : hash.get(field);
        return v == null ? null : v.clone();
    }

    @Override
    public void putField(int bucket, byte[] key, byte[] field, byte[] value) {
        fields.computeIfAbsent(id(bucket, key), k -> new java.util.TreeMap<>(java.util.Arrays::compareUnsigned)).put(field.clone(), value.clone());
    }

    @Override
    public void deleteField(int bucket, byte[] key, byte[] field) {
        var hash = fields.get(id(bucket, key));
        if (hash != null) hash.remove(field);
    }

    @Override
    public void clearFields(int bucket, byte[] key, long fieldCount) {
        fields.remove(id(bucket, key));
    }

    @Override
    public java.util.List<Field> fields(int bucket, byte[] key) {
        var hash = fields.get(id(bucket, key));
        java.util.List<Field> out = new java.util.ArrayList<>();
        if (hash != null) hash.forEach((f, v) -> out.add(new Field(f.clone(), v.clone())));
        return out;
    }

    /** Fields stored for {@code key}, whether or not its metadata still exists (to catch orphans). */
    int storedFields(int bucket, byte[] key) {
        var hash = fields.get(id(bucket, key));
        return hash == null ? 0 : hash.size();
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
