package io.cairn.core.kv;

import java.util.List;

/**
 * The storage seen by {@link KvApplier}: one record per key by bucket and key (see
 * {@link StoredValue}), and for collection types one entry per field beside it (see
 * {@link HashMeta}). Field methods have defaults that refuse, for views that hold strings only.
 */
public interface KvView {
    byte[] get(int bucket, byte[] key);

    void put(int bucket, byte[] key, byte[] stored);

    void delete(int bucket, byte[] key);

    /** The value of {@code field} of {@code key}'s hash, or null. */
    default byte[] getField(int bucket, byte[] key, byte[] field) {
        throw new UnsupportedOperationException("this view stores strings only");
    }

    default void putField(int bucket, byte[] key, byte[] field, byte[] value) {
        throw new UnsupportedOperationException("this view stores strings only");
    }

    default void deleteField(int bucket, byte[] key, byte[] field) {
        throw new UnsupportedOperationException("this view stores strings only");
    }

    /**
     * Deletes every field of {@code key} without reading them one by one when there are many;
     * {@code fieldCount} (the metadata's count) lets the view choose point deletes or a range delete.
     */
    default void clearFields(int bucket, byte[] key, long fieldCount) {
        throw new UnsupportedOperationException("this view stores strings only");
    }

    /** Every field of {@code key}, in unsigned byte order of the field names. */
    default List<Field> fields(int bucket, byte[] key) {
        throw new UnsupportedOperationException("this view stores strings only");
    }

    /**
     * At most {@code limit} fields of {@code key} from position {@code offset} in field order
     * (HSCAN's page, HRANDFIELD's one field); a view over a sorted store skips without copying.
     */
    default List<Field> fields(int bucket, byte[] key, long offset, int limit) {
        List<Field> all = fields(bucket, key);
        int from = (int) Math.min(Math.max(offset, 0), all.size());
        return all.subList(from, (int) Math.min(all.size(), from + (long) Math.max(limit, 0)));
    }

    /**
     * At most {@code limit} fields of {@code key} whose names are at or after {@code from} in field
     * order: a seek in a sorted store (a sorted set's score index read from a score on).
     */
    default List<Field> fieldsFrom(int bucket, byte[] key, byte[] from, int limit) {
        List<Field> out = new java.util.ArrayList<>();
        for (Field f : fields(bucket, key)) {
            if (out.size() >= limit) break;
            if (java.util.Arrays.compareUnsigned(f.name(), from) >= 0) out.add(f);
        }
        return out;
    }

    /** The last field of {@code key} in field order, or null when it has none: a seek from the end in a sorted store. */
    default Field lastField(int bucket, byte[] key) {
        List<Field> all = fields(bucket, key);
        return all.isEmpty() ? null : all.get(all.size() - 1);
    }

    /** One field of a hash and its value. */
    record Field(byte[] name, byte[] value) {}
}
