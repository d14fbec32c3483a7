package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

/**
 * RENAME, RENAMENX and COPY within one bucket (issue 24; the router refuses keys of two buckets with
 * CROSSSLOT, as Redis Cluster does for two slots). The op's key is the source, its value the
 * destination key. A key of any type is copied whole: its record (type, expiry, count) and, for a
 * collection, every entry under it in the fields column, so lists, sets and sorted sets keep their
 * layout. Redis renames in O(1); here a collection is copied entry by entry in the one Raft entry,
 * so one of more than {@link #MAX_COPIED_ENTRIES} entries is refused rather than made into a huge entry.
 */
final class KeyCopyApplier {
    /** The most collection entries one RENAME or COPY rewrites (a bound on the Raft entry's size). */
    static final long MAX_COPIED_ENTRIES = 100_000;

    /** @param raw the source's record as stored; {@code stored} the live one (null: absent or expired) */
    OpResult apply(KvOp op, byte[] raw, byte[] stored, KvView view, long nowMs) {
        byte[] to = op.value();
        boolean copy = op.type() == KvOp.Type.COPY;
        if (stored == null) return copy ? OpResult.integer(0) : OpResult.error(ErrorCode.NO_SUCH_KEY, null);
        if (java.util.Arrays.equals(op.key(), to)) {
            // Redis: RENAME to itself is OK, RENAMENX to itself 0, COPY to itself an error
            if (copy) return OpResult.error(ErrorCode.PROTOCOL, "source and destination objects are the same");
            return op.type() == KvOp.Type.RENAMENX ? OpResult.integer(0) : OpResult.OK;
        }
        long entries = CollectionMeta.isCollection(stored) ? CollectionMeta.entryCount(stored) : 0;
        if (entries > MAX_COPIED_ENTRIES) {
            return OpResult.error(ErrorCode.PROTOCOL, op.type() + " of a collection of more than " + MAX_COPIED_ENTRIES
                    + " elements is not supported by Cairn (it rewrites every element)");
        }
        byte[] targetRaw = view.get(op.bucket(), to);
        boolean targetLive = targetRaw != null && !StoredValue.isExpired(targetRaw, nowMs);
        boolean replace = !copy && op.type() == KvOp.Type.RENAME || copy && op.has(KvOp.FLAG_XX);
        if (targetLive && !replace) return OpResult.integer(0);
        if (targetRaw != null) {
            if (CollectionMeta.isCollection(targetRaw)) view.clearFields(op.bucket(), to, CollectionMeta.entryCount(targetRaw));
            view.delete(op.bucket(), to);
        }
        if (entries > 0) {
            for (KvView.Field f : view.fields(op.bucket(), op.key())) view.putField(op.bucket(), to, f.name(), f.value());
        }
        view.put(op.bucket(), to, stored);
        if (!copy) {
            if (entries > 0) view.clearFields(op.bucket(), op.key(), entries);
            view.delete(op.bucket(), op.key());
        }
        return op.type() == KvOp.Type.RENAME ? OpResult.OK : OpResult.integer(1);
    }
}
