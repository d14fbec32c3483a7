package io.cairn.storage.state;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.ErrorCode;
import io.cairn.core.ErrorPayload;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpResult;

/** Which client operations a bucket's record lets through on this replicaset, and the error for the others. */
final class BucketAdmission {
    private BucketAdmission() {
    }

    /**
     * Null when this replicaset may apply {@code op} to its bucket, else the error to answer. The same
     * on every replica for a write (it is decided in the apply), so an archived bucket's write is
     * always answered BUCKET_RESTORING; only reads (queries) can say the restore queue is full.
     */
    static OpResult refusal(KvOp op, BucketRecord r, ArchivedAccess archivedAccess) {
        BucketState state = r == null ? null : r.state();
        if (r != null && r.isArchived() && state.isRoutable()) return archivedRefusal(op, archivedAccess);
        if (r != null && r.has(BucketRecord.FLAG_ARCHIVING) && !op.readOnly() && state.servesWrites()) {
            return OpResult.error(ErrorCode.BUCKET_LOCKED, "bucket " + op.bucket() + " is being archived");
        }
        if (state != null && (op.readOnly() ? r.servesReads() : state.servesWrites())) return null;
        if (state == BucketState.SENDING) return OpResult.error(ErrorCode.BUCKET_LOCKED, "bucket " + op.bucket() + " is being moved");
        if (state == BucketState.READONLY) {
            return OpResult.error(ErrorCode.BUCKET_READONLY, "bucket " + op.bucket() + " is a contained doubled copy");
        }
        String hint = state == BucketState.SENT ? " (moved to " + r.peer() + ")" : "";
        // The text is for people; the payload is what a router acts on (where to send the op now).
        return OpResult.error(ErrorCode.WRONG_BUCKET, "bucket " + op.bucket() + " is not on this replicaset" + hint, ErrorPayload.of(r));
    }

    private static OpResult archivedRefusal(KvOp op, ArchivedAccess archivedAccess) {
        ArchivedAccess.Admission admission = archivedAccess.requested(op.bucket());
        if (op.readOnly() && admission == ArchivedAccess.Admission.QUEUE_FULL) {
            return OpResult.error(ErrorCode.RESTORE_QUEUE_FULL, "bucket " + op.bucket() + " is archived and the restore queue is full");
        }
        if (op.readOnly() && admission == ArchivedAccess.Admission.NOT_LEADER) {
            // A follower read cannot start a restore: the router asks the leader, which does.
            return OpResult.error(ErrorCode.STALE_READ, "bucket " + op.bucket() + " is archived; ask the leader, which restores it");
        }
        return OpResult.error(ErrorCode.BUCKET_RESTORING, "bucket " + op.bucket() + " is archived and being restored");
    }
}
