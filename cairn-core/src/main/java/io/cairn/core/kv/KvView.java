package io.cairn.core.kv;

/** The storage seen by {@link KvApplier}: raw stored values (see {@link StoredValue}) by bucket and key. */
public interface KvView {
    byte[] get(int bucket, byte[] key);

    void put(int bucket, byte[] key, byte[] stored);

    void delete(int bucket, byte[] key);
}
