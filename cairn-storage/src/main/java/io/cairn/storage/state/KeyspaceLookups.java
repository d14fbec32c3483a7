package io.cairn.storage.state;

import io.cairn.core.kv.KvOp;

import java.util.EnumSet;
import java.util.Set;

/** Which reads count in INFO's keyspace_hits and keyspace_misses: a client's read of one key, as Redis counts its key lookups. */
final class KeyspaceLookups {
    /** Reads over several keys (Redis counts each of their lookups; Cairn leaves them out) and the store's own queries. */
    private static final Set<KvOp.Type> NOT_COUNTED = EnumSet.of(KvOp.Type.BUCKET_VERSION, KvOp.Type.SINTER, KvOp.Type.SUNION,
            KvOp.Type.SDIFF, KvOp.Type.SINTERCARD, KvOp.Type.ZUNION, KvOp.Type.ZINTER, KvOp.Type.ZDIFF, KvOp.Type.ZINTERCARD);

    private KeyspaceLookups() {}

    static boolean counts(KvOp op) {
        return op.readOnly() && !op.has(KvOp.FLAG_NO_STATS) && !NOT_COUNTED.contains(op.type());
    }
}
