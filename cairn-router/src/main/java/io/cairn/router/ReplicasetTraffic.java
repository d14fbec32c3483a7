package io.cairn.router;

/**
 * Counters of what a router sent one replicaset, since it started: operations, batches (Raft
 * entries for writes), and the batches answered with the nanoseconds they took from being sent
 * to being answered (the router's view of the replicaset's latency, queueing before the send
 * excluded). Rates and means come from the difference of two readings.
 */
public record ReplicasetTraffic(long writeOps, long readOps, long writeBatches, long readBatches,
                                long writeBatchesAnswered, long writeAnswerNanos, long readBatchesAnswered, long readAnswerNanos) {}
