package io.cairn.router;

import io.cairn.client.DataPlaneClient;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.wire.DataPlane;
import io.cairn.core.wire.KeyPage;
import io.cairn.core.wire.KeyQuery;

import java.util.concurrent.CompletableFuture;

/**
 * The router's map-reduce calls to one replicaset: storage refs, FLUSH entries and key listings,
 * over the replicaset's data-plane connection. Sharing it with group-committed reads and writes
 * holds none of them up: calls are multiplexed (no ordering between them), a key page is at most
 * {@link KeyQuery#MAX_BYTES_PER_PAGE}, and the leader runs key queries off the connection's event
 * loop. A REF, UNREF or FLUSH re-sent after a lost answer keeps its call id, so it applies once.
 */
final class MapReduceClient {
    private final String replicasetId;
    private final DataPlaneClient dataPlane;

    MapReduceClient(String replicasetId, DataPlaneClient dataPlane) {
        this.replicasetId = replicasetId;
        this.dataPlane = dataPlane;
    }

    String id() {
        return replicasetId;
    }

    /** Appends a REF, UNREF or FLUSH entry; its single result. */
    CompletableFuture<OpResult> command(byte[] entry) {
        return dataPlane.call(DataPlane.WRITE, entry, dataPlane.budgetDeadlineNs())
                .thenApply(reply -> OpCodec.decodeResults(reply.body()).get(0));
    }

    /** A key query answered by the leader under its lease. */
    CompletableFuture<KeyPage> keys(KeyQuery query) {
        return dataPlane.call(DataPlane.READ, query.encode(), dataPlane.budgetDeadlineNs())
                .thenApply(reply -> KeyPage.decode(reply.body()));
    }
}
