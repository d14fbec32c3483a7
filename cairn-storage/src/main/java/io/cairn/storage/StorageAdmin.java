package io.cairn.storage;

import io.cairn.core.CairnException;
import io.cairn.core.ErrorCode;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.kv.OpResult;
import io.cairn.core.topology.ReplicasetSpec;
import io.cairn.core.wire.MemberChange;
import io.cairn.core.wire.StorageRequest;
import io.cairn.core.wire.StorageStats;
import io.cairn.client.DataPlaneClient;
import io.cairn.core.kv.KvOp;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveReply;
import io.cairn.core.wire.DataPlane;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;

/**
 * Administrative calls to one replicaset over its data plane (bootstrap, stats, expiry,
 * tombstone collection), as a router's calls: to the leader, retried with the same ids.
 * Blocking, bounded in time: every call fails with UNAVAILABLE after about {@code timeout}.
 */
public final class StorageAdmin implements AutoCloseable {
    private final DataPlaneClient dataPlane;
    private final ReplicasetSpec replicaset;

    public StorageAdmin(ReplicasetSpec replicaset, Duration timeout) {
        this.replicaset = replicaset;
        this.dataPlane = new DataPlaneClient(replicaset, timeout.toMillis(), null);
    }

    /** Creates ACTIVE records for buckets first..last unless this replicaset was bootstrapped; returns how many. */
    public long bootstrap(int first, int last) {
        OpResult r = OpCodec.decodeResults(send(StorageRequest.bootstrap(first, last), false)).get(0);
        if (r.isError()) throw new CairnException(r.error(), r.message());
        return r.number();
    }

    /** Proposes conditional deletes of expired keys; returns how many were deleted. */
    public long deleteExpired(List<KvOp> ops) {
        List<OpResult> results = OpCodec.decodeResults(send(StorageRequest.write(ops), false));
        return results.stream().filter(r -> !r.isError()).mapToLong(OpResult::number).sum();
    }

    /**
     * Proposes the collection of {@code tombstones} (all below {@code belowBsn}, older than {@code retentionMs}
     * at the entry's stamp); returns how many were collected.
     */
    public long collectTombstones(long belowBsn, long retentionMs, int[] tombstones) {
        OpResult r = OpCodec.decodeResults(send(StorageRequest.collect(belowBsn, retentionMs, tombstones), false)).get(0);
        if (r.isError()) throw new CairnException(r.error(), r.message());
        return r.number();
    }

    /** Records, through the replicaset's log, that {@code node} runs on disk {@code disk} (see {@code DiskRecords}). */
    public void recordDisk(String node, String disk) {
        OpResult r = OpCodec.decodeResults(send(StorageRequest.recordDisk(node, disk), false)).get(0);
        if (r.isError()) throw new CairnException(r.error(), r.message());
    }

    /** The disk the replicaset's state records for {@code node}, as its leader answers; null when none is. */
    public String recordedDisk(String node) {
        return StorageRequest.decodeDisk(send(StorageRequest.diskQuery(node), true));
    }

    /** One bucket command through the replicaset's log (the archive tier's steps); the ledger's reply. */
    public MoveReply move(MoveCommand command) {
        return MoveCodec.decodeReply(send(StorageRequest.move(command), false));
    }

    /** Makes sure the replicaset has applied at least one stamped entry, which fixes its incarnation. */
    public StorageStats ensureIncarnation() {
        StorageStats s = stats();
        if (s.incarnation() != 0) return s;
        send(StorageRequest.write(List.of()), false);
        return stats();
    }

    /** The replicaset's Raft members, as its leader knows them. */
    public MemberChange.View members() {
        return changeMembers(MemberChange.get());
    }

    /**
     * One membership change on the leader ({@link MemberChange}); the membership after it.
     *
     * @throws CairnException UNAVAILABLE with the leader's reason when refused (the membership changed since
     *                        the index the change names, the engine has none) or when no leader answered in time
     */
    public MemberChange.View changeMembers(MemberChange change) {
        try {
            return MemberChange.decodeView(dataPlane.call(DataPlane.MEMBERSHIP, change.encode(), dataPlane.budgetDeadlineNs()).get().body());
        } catch (ExecutionException e) {
            throw new CairnException(ErrorCode.UNAVAILABLE, "replicaset " + replicaset.id() + ": " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CairnException(ErrorCode.UNAVAILABLE, "interrupted while calling replicaset " + replicaset.id());
        }
    }

    public StorageStats stats() {
        return StorageStats.decode(send(StorageRequest.stats(), true));
    }

    /** The reply's body, or UNAVAILABLE when the replicaset did not answer within the timeout. */
    private ByteBuffer send(byte[] request, boolean readOnly) {
        try {
            return dataPlane.call(readOnly ? DataPlane.READ : DataPlane.WRITE, request, dataPlane.budgetDeadlineNs()).get().body();
        } catch (ExecutionException e) {
            throw new CairnException(ErrorCode.UNAVAILABLE, "replicaset " + replicaset.id() + " unavailable: " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CairnException(ErrorCode.UNAVAILABLE, "interrupted while calling replicaset " + replicaset.id());
        }
    }

    @Override
    public void close() {
        dataPlane.close();
    }
}
