package io.cairn.storage.state;

import io.cairn.core.kv.KvView;
import io.cairn.core.kv.StoredValue;

import java.util.List;

/**
 * A read view that remembers what the first record lookup found, so a read counts as a keyspace
 * hit or miss (INFO stats, as Redis counts its key lookups) without a second RocksDB read: every
 * operation's first lookup is its own key's record.
 */
final class LookupView implements KvView {
    private final KvView view;
    private boolean looked;
    private byte[] first;

    LookupView(KvView view) {
        this.view = view;
    }

    /** Whether the first record read was a live key at {@code nowMs} (false when none was read). */
    boolean foundLive(long nowMs) {
        return first != null && !StoredValue.isExpired(first, nowMs);
    }

    @Override
    public byte[] get(int bucket, byte[] key) {
        byte[] record = view.get(bucket, key);
        if (!looked) {
            looked = true;
            first = record;
        }
        return record;
    }

    @Override
    public void put(int bucket, byte[] key, byte[] stored) {
        view.put(bucket, key, stored);
    }

    @Override
    public void delete(int bucket, byte[] key) {
        view.delete(bucket, key);
    }

    @Override
    public byte[] getField(int bucket, byte[] key, byte[] field) {
        return view.getField(bucket, key, field);
    }

    @Override
    public void putField(int bucket, byte[] key, byte[] field, byte[] value) {
        view.putField(bucket, key, field, value);
    }

    @Override
    public void deleteField(int bucket, byte[] key, byte[] field) {
        view.deleteField(bucket, key, field);
    }

    @Override
    public void clearFields(int bucket, byte[] key, long fieldCount) {
        view.clearFields(bucket, key, fieldCount);
    }

    @Override
    public List<Field> fields(int bucket, byte[] key) {
        return view.fields(bucket, key);
    }

    @Override
    public List<Field> fields(int bucket, byte[] key, long offset, int limit) {
        return view.fields(bucket, key, offset, limit);
    }

    @Override
    public List<Field> fieldsFrom(int bucket, byte[] key, byte[] from, int limit) {
        return view.fieldsFrom(bucket, key, from, limit);
    }
}
