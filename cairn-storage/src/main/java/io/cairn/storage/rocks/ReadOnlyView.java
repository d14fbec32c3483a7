package io.cairn.storage.rocks;

import io.cairn.core.kv.KvView;
import org.rocksdb.ReadOptions;

import java.util.List;

/** Reads straight from RocksDB (a hash command from one snapshot, so its metadata and fields agree); queries never write. */
public record ReadOnlyView(RocksStore store, ReadOptions options) implements KvView {
    @Override
    public byte[] get(int bucket, byte[] key) {
        return options == null ? store.get(store.data, RocksStore.dataKey(bucket, key))
                : store.get(store.data, RocksStore.dataKey(bucket, key), options);
    }

    @Override
    public byte[] getField(int bucket, byte[] key, byte[] field) {
        byte[] fieldKey = RocksStore.fieldKey(bucket, key, field);
        return options == null ? store.get(store.fields, fieldKey) : store.get(store.fields, fieldKey, options);
    }

    @Override
    public List<Field> fields(int bucket, byte[] key) {
        return options == null ? store.fields(bucket, key) : store.fields(bucket, key, options);
    }

    @Override
    public List<Field> fields(int bucket, byte[] key, long offset, int limit) {
        if (options != null) return store.fields(bucket, key, offset, limit, options);
        try (ReadOptions latest = new ReadOptions()) {
            return store.fields(bucket, key, offset, limit, latest);
        }
    }

    @Override
    public Field lastField(int bucket, byte[] key) {
        if (options != null) return store.lastField(bucket, key, name -> false, options);
        try (ReadOptions latest = new ReadOptions()) {
            return store.lastField(bucket, key, name -> false, latest);
        }
    }

    @Override
    public List<Field> fieldsFrom(int bucket, byte[] key, byte[] from, int limit) {
        if (options != null) return store.fieldsFrom(bucket, key, from, limit, options);
        try (ReadOptions latest = new ReadOptions()) {
            return store.fieldsFrom(bucket, key, from, limit, latest);
        }
    }

    @Override
    public void put(int bucket, byte[] key, byte[] stored) {
        throw new IllegalStateException("read-only view");
    }

    @Override
    public void delete(int bucket, byte[] key) {
        throw new IllegalStateException("read-only view");
    }
}
