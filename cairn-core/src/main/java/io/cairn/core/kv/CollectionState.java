package io.cairn.core.kv;

/**
 * One collection (list, set, sorted set) being read or changed by an operation: its metadata in
 * memory, its element entries through the view. Changes go to the view at once; {@link #save}
 * writes the metadata once at the end, or deletes the key when the last element went. The first
 * write over an expired record not yet swept clears that record's leftover entries, so none of
 * them reappears in the new key.
 */
abstract class CollectionState {
    final int bucket;
    final byte[] key;
    final KvView view;
    /** The key's record as stored when the operation began (maybe expired, maybe another type), or null. */
    final byte[] raw;
    private final boolean existed;
    private final long expireAtMs;
    private boolean cleared;
    private boolean changed;
    long count;

    /**
     * @param raw    the key's record as stored (maybe expired, maybe another type), or null
     * @param stored the live record of this collection's type: null when absent or expired
     */
    CollectionState(int bucket, byte[] key, byte[] raw, byte[] stored, KvView view) {
        this.bucket = bucket;
        this.key = key;
        this.raw = raw;
        this.view = view;
        this.existed = stored != null;
        this.count = existed ? CollectionMeta.count(stored) : 0;
        this.expireAtMs = existed ? StoredValue.expireAtMs(stored) : 0;
    }

    /** The metadata record for the current count (and whatever else the type keeps there). */
    abstract byte[] meta(long expireAtMs);

    /** Call before writing an element entry: clears an expired record's leftovers once. */
    final void beforeWrite() {
        changed = true;
        if (cleared) return;
        cleared = true;
        if (!existed && CollectionMeta.isCollection(raw)) view.clearFields(bucket, key, CollectionMeta.entryCount(raw));
    }

    /** Call after deleting an element entry. */
    final void afterDelete() {
        changed = true;
    }

    /** Treats the record as cleared already (a STORE form deleted it whole). */
    final void markCleared() {
        cleared = true;
    }

    final void save() {
        if (!changed) return;
        if (count == 0) {
            if (existed) view.delete(bucket, key);
            return;
        }
        view.put(bucket, key, meta(expireAtMs));
    }
}
