package io.cairn.storage.state;

import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.StorageRequest;
import io.cairn.storage.rocks.RocksStore;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The disk each member of a replicaset runs on, as the replicaset's own replicated state records it
 * (issue 21): one system key per node, written by a DISK entry through the log (so every member holds
 * it, and a snapshot carries it to a member that catches up), read by a restarted member's check
 * ({@link io.cairn.core.topology.DiskCheck}) even when its coordinator is out of reach. A member
 * records its disk itself once it has caught up on it; the entry overwrites the node's earlier record.
 */
final class DiskRecords {
    private static final byte[] PREFIX = RocksStore.bytes("disk/");

    private DiskRecords() {
    }

    static byte[] key(String node) {
        byte[] id = RocksStore.bytes(node);
        return ByteBuffer.allocate(PREFIX.length + id.length).put(PREFIX).put(id).array();
    }

    /** Applies a DISK entry's body (positioned after its stamp) into {@code batch}; the reply is OK. */
    static byte[] apply(RocksStore store, ByteBuffer entry, WriteBatch batch) {
        String node = StorageRequest.idString(entry, "node");
        String disk = StorageRequest.idString(entry, "disk");
        try {
            batch.put(store.system, key(node), RocksStore.bytes(disk));
        } catch (RocksDBException e) {
            throw new RocksStore.StorageFailure("batch put failed", e);
        }
        return OpCodec.encodeResults(List.of(OpResult.status("OK")));
    }

    /** The disk recorded for {@code node} in this member's copy of the state, or null. */
    static String recorded(RocksStore store, String node) {
        byte[] v = store.get(store.system, key(node));
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    /** Answers a DISK_QUERY (positioned after its kind). */
    static byte[] query(RocksStore store, ByteBuffer request) {
        return StorageRequest.encodeDisk(recorded(store, StorageRequest.idString(request, "node")));
    }
}
