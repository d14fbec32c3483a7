package io.cairn.router;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What the RESP front end needs from the cluster: executes operations (which may span many
 * buckets and replicasets) and answers with one result per operation, in order. Operations of
 * one call that fall in the same bucket are applied atomically, in order. Failures of single
 * operations are {@link OpResult} errors; the future fails only on a bug.
 */
public interface KvBackend {
    CompletableFuture<List<OpResult>> execute(List<KvOp> ops);

    /** Number of live keys over all replicasets (counted by each replicaset's leader). */
    CompletableFuture<Long> dbSize();

    int bucketCount();

    /** Sections for the INFO command: section name to ordered key/value pairs. */
    Map<String, Map<String, String>> info();
}
