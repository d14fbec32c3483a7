package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.kv.CollectionMeta;
import io.cairn.core.kv.KvView;
import io.cairn.core.kv.MovePiece;
import io.cairn.core.move.MoveCommand.*;

import java.util.Arrays;
import java.util.List;

import static io.cairn.core.BucketState.*;

/**
 * Applies bucket-move commands to one replicaset's bucket records. Pure and deterministic: it
 * runs inside the Raft apply of a storage node (and inside the simulator), reads and writes only
 * through {@link Store}, and decides everything from the record's state and generation.
 *
 * <p>Why this cannot double or lose a bucket (docs/moves.md has the long form):
 * <ul>
 *   <li>A destination copy reaches exactly one of two terminal verdicts, each one replicated
 *       decision: COMPLETE (verified count and checksum, will be activated) or GARBAGE (fenced:
 *       chunks of that generation are refused forever, because GARBAGE records are kept).</li>
 *   <li>The source turns SENT only after COMPLETE, and rolls back only after the fence. The
 *       destination activates only a COMPLETE copy: at the verdict itself when the source is a
 *       copied SENDING (which serves neither writes nor reads, and can no longer roll back once
 *       the copy is COMPLETE), otherwise on Activate, which the driver sends only after SENT
 *       committed. So a delayed or duplicated message can never produce a second writable copy,
 *       nor a readable stale one.</li>
 *   <li>Every command is idempotent: re-sending after a lost reply or a leader change is safe.</li>
 * </ul>
 * Writes in flight need no separate drain: they are log entries ordered before or after
 * StartSend, and every write after it is refused with a retryable error.
 */
public final class BucketLedger {
    /** The replicaset's persistent state as the ledger sees it; changes land in the current log entry's batch. */
    public interface Store {
        BucketRecord record(int bucket);

        /** Stores the record with the next BSN and returns what was stored. */
        BucketRecord put(BucketRecord withoutBsn);

        ReceiveProgress progress(int bucket);

        void putProgress(int bucket, ReceiveProgress progress);

        void clearProgress(int bucket);

        /** Stores one key of the bucket; returns the value it replaced (this entry's writes included), or null. */
        byte[] putData(int bucket, ChunkEntry entry);

        /** Deletes one key of the bucket; returns the value it had, or null. */
        byte[] deleteData(int bucket, byte[] key);

        /**
         * Adds {@code fields}, the elements of a MIDDLE or LAST {@link io.cairn.core.kv.MovePiece}, to the collection
         * {@code key} its FIRST piece stored. Stores that hold strings only never receive pieces.
         */
        default void putPiece(int bucket, byte[] key, List<KvView.Field> fields) {
            throw new UnsupportedOperationException("this store holds strings only: a move piece of " + fields.size() + " elements");
        }

        /** Deletes every key of the bucket. */
        void dropData(int bucket);

        /** Forgets which keys of the bucket were written while it was copied ahead. */
        void clearChanges(int bucket);

        /**
         * True while storage refs of a map-reduce call (or a map-reduce waiting for its turn) keep
         * buckets from leaving this replicaset, judged at the current entry's stamped time. StartSend
         * is refused meanwhile; the rebalancer retries it in a later round.
         */
        default boolean mapReduceRefsHeld() {
            return false;
        }

        /** The leader stamp of the entry being applied (the same on every replica). */
        default long nowMs() {
            return 0;
        }

        /** When {@code bucket}'s copy was quarantined here (entry stamp), or -1. */
        default long quarantinedAtMs(int bucket) {
            return -1;
        }

        default void putQuarantinedAt(int bucket, long stampMs) {}

        /**
         * The first page of the keys changed while {@code bucket} (SENDING at {@code generation} now)
         * was copied ahead, as they are now, with the source's digest when it is the only page;
         * null when this store does not answer it (the driver then asks with a query).
         */
        default MoveQuery.ChangesPage changes(int bucket, long generation) {
            return null;
        }

        /** The bucket's archive object (the current one while archived, else the last one), or null ({@link ArchiveLedger}). */
        default ArchivePointer archivePointer(int bucket) {
            return null;
        }

        default void putArchivePointer(int bucket, ArchivePointer pointer) {
            throw new UnsupportedOperationException("this store keeps no archive pointers");
        }

        /** Forgets the bucket's archive pointer (its object left with a move). */
        default void clearArchivePointer(int bucket) {
            throw new UnsupportedOperationException("this store keeps no archive pointers");
        }

        /** The bucket's local key count and checksum (as a move computes them), or null when this store does not answer it. */
        default MoveQuery.BucketDigest digest(int bucket) {
            return null;
        }
    }

    /**
     * The refusal of a copy ahead (StartCopy) of an archived bucket, or of any move of one being
     * archived: an archived bucket moves by server-side copy after a plain StartSend (its driver falls
     * back to that when the record it gets back is archived); one being archived moves once that ends.
     */
    public static String archivedRefusal(int bucket) {
        return "bucket " + bucket + " is archived or being archived; it moves by server-side copy (StartSend), not by a copy ahead";
    }

    /** The refusal message of a StartSend kept out by storage refs (older nodes' only sign of {@link MoveReply.Refusal#REFS_HELD}). */
    public static final String REFS_HELD = "storage refs of a map-reduce call are held";

    /** The refusal of a command kept out by storage refs: typed, so the driver retries rather than ends the move. */
    static MoveReply refsHeld(BucketRecord r) {
        return MoveReply.refused(r, MoveReply.Refusal.REFS_HELD, REFS_HELD);
    }

    private BucketLedger() {}

    public static MoveReply apply(MoveCommand command, Store store) {
        BucketRecord r = store.record(command.bucket());
        if (command instanceof StartSend c) return startSend(c, r, store);
        if (command instanceof StartCopy c) return startCopy(c, r, store);
        if (command instanceof SendCopied c) return sendCopied(c, r, store);
        if (command instanceof CancelCopy c) return cancelCopy(c, r, store);
        if (command instanceof ReceiveChunk c) return receiveChunk(c, r, store);
        if (command instanceof FinishReceive c) return finishReceive(c, r, store);
        if (command instanceof ReceiveLastChunk c) return receiveLastChunk(c, r, store);
        if (command instanceof MarkSent c) return markSent(c, r, store);
        if (command instanceof Activate c) return activate(c, r, store);
        if (command instanceof RollbackSend c) return rollbackSend(c, r, store);
        if (command instanceof AbortReceive c) return abortReceive(c, r, store);
        if (command instanceof DropData c) return dropData(c, r, store);
        if (command instanceof Pin c) return pin(c, r, store);
        if (command instanceof Contain c) return DoubledLedger.contain(c, r, store);
        if (command instanceof Quarantine c) return DoubledLedger.quarantine(c, r, store);
        if (command instanceof Reactivate c) return DoubledLedger.reactivate(c, r, store);
        if (command instanceof DropQuarantined c) return DoubledLedger.dropQuarantined(c, r, store);
        if (command instanceof BeginArchive || command instanceof FinishArchive || command instanceof CancelArchive
                || command instanceof RestoreChunk || command instanceof FinishRestore || command instanceof AdoptArchive
                || command instanceof AdoptBackup || command instanceof AdoptRestored) {
            return ArchiveLedger.apply(command, r, store);
        }
        throw new IllegalArgumentException("unknown command " + command);
    }

    private static MoveReply startSend(StartSend c, BucketRecord r, Store store) {
        if (r != null && r.state() == SENDING && r.peer().equals(c.destination())) return MoveReply.ok(r);
        if (r == null || r.state() != ACTIVE) return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r) + ", not ACTIVE");
        if (r.isCopying()) return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r));
        // An archived bucket moves with its flag and pointer (its object is copied by the store); one being archived waits.
        if (r.has(BucketRecord.FLAG_ARCHIVING)) return MoveReply.refused(r, MoveReply.Refusal.ARCHIVED, archivedRefusal(c.bucket()));
        if (store.mapReduceRefsHeld()) return refsHeld(r);
        BucketRecord sending = r.transition(SENDING, 0, c.destination());
        return MoveReply.ok(store.put(withGeneration(sending, r.generation() + 1)));
    }

    /**
     * The record keeps its generation (the owner does not change yet); the copy is made at the
     * next one, which the source takes at SendCopied, as StartSend would.
     */
    private static MoveReply startCopy(StartCopy c, BucketRecord r, Store store) {
        if (r != null && r.marksChanges() && r.peer().equals(c.destination())) return MoveReply.ok(r);
        if (r == null || r.state() != ACTIVE || r.isCopying()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r) + ", not ACTIVE and idle");
        }
        if (r.isArchivedOrArchiving()) return MoveReply.refused(r, MoveReply.Refusal.ARCHIVED, archivedRefusal(c.bucket()));
        if (store.mapReduceRefsHeld()) return refsHeld(r);
        return MoveReply.ok(store.put(new BucketRecord(c.bucket(), ACTIVE, r.generation(), 0, c.destination(),
                r.flags() | BucketRecord.FLAG_COPYING)));
    }

    /** Whether {@code r} is being copied to {@code destination} for a move at {@code generation}. */
    private static boolean copying(BucketRecord r, String destination, long generation) {
        return r != null && r.marksChanges() && r.peer().equals(destination) && r.copyGeneration() == generation;
    }

    /** The answer carries the first page of changed keys: the data is frozen from here on, and the hand-over saves a query. */
    private static MoveReply sendCopied(SendCopied c, BucketRecord r, Store store) {
        if (r != null && r.state() == SENDING && r.generation() == c.generation() && r.peer().equals(c.destination())) {
            return withChanges(r, store);
        }
        if (!copying(r, c.destination(), c.generation())) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r) + ", not being copied to " + c.destination()
                    + " for generation " + c.generation());
        }
        if (store.mapReduceRefsHeld()) return refsHeld(r);
        return withChanges(store.put(withGeneration(r.transition(SENDING, 0, r.peer()), c.generation())), store);
    }

    private static MoveReply withChanges(BucketRecord sending, Store store) {
        return new MoveReply(MoveReply.Outcome.OK, sending, 0, "", store.changes(sending.id(), sending.generation()));
    }

    /**
     * Ends the copy for generation {@code c.generation()}: the bucket stays ACTIVE and takes that
     * generation, as after a rolled-back StartSend, so the next move (and its copy) takes the one
     * after, above the fence at the destination; or keeps its own when the destination owns the
     * bucket at that generation (see {@link CancelCopy}).
     */
    private static MoveReply cancelCopy(CancelCopy c, BucketRecord r, Store store) {
        if (r == null) return MoveReply.refused(null, "bucket " + c.bucket() + " is unknown here");
        if (r.marksChanges() && r.copyGeneration() == c.generation()) {
            BucketRecord ended = endCopy(r, "", store);
            return MoveReply.ok(store.put(c.takeGeneration() ? withGeneration(ended, c.generation()) : ended));
        }
        if (r.state() == SENDING && r.generation() == c.generation()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is SENDING; only the destination's verdict ends that");
        }
        if (r.marksChanges()) return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r) + ", another copy");
        return MoveReply.ok(r); // that copy ended already (cancelled, contained, reactivated)
    }

    /** The record without the copying flag, its changed-key marks forgotten. */
    static BucketRecord endCopy(BucketRecord r, String peer, Store store) {
        if (!r.isCopying()) return new BucketRecord(r.id(), r.state(), r.generation(), r.bsn(), peer, r.flags());
        store.clearChanges(r.id());
        return new BucketRecord(r.id(), r.state(), r.generation(), r.bsn(), peer, r.flags() & ~BucketRecord.FLAG_COPYING);
    }

    private static MoveReply receiveChunk(ReceiveChunk c, BucketRecord r, Store store) {
        if (r != null && r.generation() > c.generation()) return MoveReply.refused(r, "generation " + c.generation() + " is stale");
        if (r != null && r.generation() == c.generation() && r.state() != RECEIVING) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + r.state() + " at generation " + r.generation());
        }
        ReceiveProgress p;
        if (r == null || r.generation() < c.generation()) {
            if (r != null && r.state().isRoutable()) {
                return MoveReply.refused(r, "bucket " + c.bucket() + " is " + r.state() + " here; refusing a second copy");
            }
            if (r != null && r.has(BucketRecord.FLAG_QUARANTINED)) {
                return MoveReply.refused(r, "bucket " + c.bucket() + " holds a quarantined doubled copy here; export it, its data is kept");
            }
            if (c.seq() != 0) return new MoveReply(MoveReply.Outcome.GAP, r, 0, "expected chunk 0");
            // Leftovers of an older copy that left this replicaset. Data lives only under a record
            // without FLAG_DATA_DROPPED (records are collected only once dropped), so a dropped or
            // absent record needs no delete: each one is a range tombstone RocksDB must consult.
            if (r != null && !r.has(BucketRecord.FLAG_DATA_DROPPED)) store.dropData(c.bucket());
            BucketRecord created = r == null
                    ? new BucketRecord(c.bucket(), RECEIVING, c.generation(), 0, c.source(), 0)
                    : withGeneration(r.state() == RECEIVING ? r : r.transition(RECEIVING, 0, c.source()), c.generation());
            r = store.put(withFlags(created, 0));
            p = new ReceiveProgress(c.generation(), 0, 0, 0, false);
        } else {
            p = store.progress(c.bucket());
            if (p == null) p = new ReceiveProgress(c.generation(), 0, 0, 0, false);
            if (p.complete() || c.seq() < p.nextSeq()) return MoveReply.ok(r);
            if (c.seq() > p.nextSeq()) return new MoveReply(MoveReply.Outcome.GAP, r, p.nextSeq(), "expected chunk " + p.nextSeq());
        }
        // Keys changed during a copy ahead replace or delete what the copy holds; the progress
        // always sums what is stored, so the verdict compares real contents with the source's.
        for (ChunkEntry e : c.entries()) {
            if (e.isPiece() && MovePiece.kind(e.stored()) != MovePiece.Kind.FIRST) {
                // A big collection's later pieces add elements; the key counts once complete, with the CRC of
                // what is held here, kept piece by piece in the progress (no FIRST piece here: it cannot match).
                List<KvView.Field> fields = CollectionMeta.fieldsOfMoveForm(MovePiece.moveForm(e.stored()));
                store.putPiece(c.bucket(), e.key(), fields);
                MovePiece.Check check = p.piece() != null && Arrays.equals(p.piece().key(), e.key()) ? p.piece().then(fields) : null;
                boolean last = MovePiece.kind(e.stored()) == MovePiece.Kind.LAST;
                p = last ? p.withPiece(null).addKey(check == null ? 0 : check.wholeCrc()) : p.withPiece(check);
                continue;
            }
            // A FIRST piece replaces the key like a whole entry; it is counted at its LAST.
            ChunkEntry stored = e.isPiece() ? new ChunkEntry(e.key(), MovePiece.moveForm(e.stored())) : e;
            byte[] old = e.isDeletion() ? store.deleteData(c.bucket(), e.key()) : store.putData(c.bucket(), stored);
            if (old != null) p = p.remove(new ChunkEntry(e.key(), old));
            if (!e.isDeletion() && !e.isPiece()) p = p.add(e);
            p = p.withPiece(e.isPiece() ? MovePiece.Check.first(e.key(), stored.stored()) : null);
        }
        store.putProgress(c.bucket(), p.nextChunk());
        return MoveReply.ok(r);
    }

    /**
     * The last chunk, then the verdict on the whole copy, whatever the chunk's own answer: a refused
     * chunk gets what FinishReceive would answer next (fenced, already activated, a doubled copy kept
     * here), and a GAP means a chunk the driver saw committed is missing here (the driver sends chunk
     * n only after n - 1 was acknowledged), so the copy cannot add up and is fenced.
     */
    private static MoveReply receiveLastChunk(ReceiveLastChunk c, BucketRecord r, Store store) {
        receiveChunk(c.chunk(), r, store);
        return finishReceive(c.finish(), store.record(c.bucket()), store);
    }

    private static MoveReply finishReceive(FinishReceive c, BucketRecord r, Store store) {
        if (r != null && r.generation() > c.generation()) {
            // A copied hand-over's copy was activated here at the verdict and the bucket has moved on
            // since (nothing else lifts it above the source's generation while the source is SENDING).
            if (c.activate()) return new MoveReply(MoveReply.Outcome.COMPLETE, r, 0, "activated, and moved on since");
            // Cannot happen without activation at the verdict (the bucket moved on before its source was SENT); never roll back over it.
            return MoveReply.refused(r, "generation " + c.generation() + " is older than the local " + r.generation());
        }
        if (r != null && r.generation() == c.generation()) {
            if (r.state() == GARBAGE) return new MoveReply(MoveReply.Outcome.ABORTED, r, 0, "already fenced");
            if (r.state() != RECEIVING) return new MoveReply(MoveReply.Outcome.COMPLETE, r, 0, "already activated");
            ReceiveProgress p = store.progress(c.bucket());
            boolean verified = p != null && (p.complete() || (p.keyCount() == c.keyCount() && p.checksum() == c.checksum()));
            if (verified && c.activate()) {
                store.clearProgress(c.bucket());
                return new MoveReply(MoveReply.Outcome.COMPLETE, store.put(r.transition(ACTIVE, 0, r.peer())), 0, "");
            }
            if (verified) {
                if (!p.complete()) store.putProgress(c.bucket(), new ReceiveProgress(p.generation(), p.nextSeq(), p.keyCount(), p.checksum(), true));
                return new MoveReply(MoveReply.Outcome.COMPLETE, r, 0, "");
            }
            String why = p == null ? "nothing received" : "received " + p.keyCount() + " keys, source has " + c.keyCount();
            return new MoveReply(MoveReply.Outcome.ABORTED, fence(c.bucket(), c.generation(), r, store), 0, why);
        }
        if (r != null && r.isContainedDouble()) {
            // Its first chunk was refused, so nothing arrived: tell the source to roll back, keep the contained copy as it is.
            return new MoveReply(MoveReply.Outcome.ABORTED, r, 0, "a contained doubled copy is kept here; nothing was received");
        }
        if (r != null && r.state().isRoutable()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + r.state() + " here at an older generation");
        }
        if (r != null && r.has(BucketRecord.FLAG_QUARANTINED)) {
            // Never fence over a quarantined copy: that would delete data kept for the operator.
            return new MoveReply(MoveReply.Outcome.ABORTED, r, 0, "a quarantined doubled copy is kept here; nothing was received");
        }
        return new MoveReply(MoveReply.Outcome.ABORTED, fence(c.bucket(), c.generation(), r, store), 0, "never received");
    }

    /** Makes the local copy GARBAGE at {@code generation}, deleting its data; the record stays as the fence. */
    private static BucketRecord fence(int bucket, long generation, BucketRecord r, Store store) {
        store.dropData(bucket);
        store.clearProgress(bucket);
        BucketRecord garbage = r == null
                ? new BucketRecord(bucket, GARBAGE, generation, 0, "", 0)
                : withGeneration(r.state() == GARBAGE ? r : r.transition(GARBAGE, 0, r.peer()), generation);
        return store.put(withFlags(garbage, BucketRecord.FLAG_DATA_DROPPED));
    }

    private static MoveReply markSent(MarkSent c, BucketRecord r, Store store) {
        if (r != null && r.state() == SENT && r.generation() == c.generation()) return MoveReply.ok(r);
        if (r == null || r.state() != SENDING || r.generation() != c.generation()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r) + ", not SENDING at " + c.generation());
        }
        return MoveReply.ok(store.put(r.transition(SENT, 0, r.peer())));
    }

    private static MoveReply activate(Activate c, BucketRecord r, Store store) {
        if (r != null && r.generation() == c.generation() && r.state().servesWrites()) return MoveReply.ok(r);
        ReceiveProgress p = store.progress(c.bucket());
        if (r == null || r.state() != RECEIVING || r.generation() != c.generation() || p == null || !p.complete()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r) + ", not a complete copy at " + c.generation());
        }
        store.clearProgress(c.bucket());
        return MoveReply.ok(store.put(r.transition(ACTIVE, 0, r.peer())));
    }

    private static MoveReply rollbackSend(RollbackSend c, BucketRecord r, Store store) {
        if (r != null && r.state() == ACTIVE && r.generation() == c.generation()) return MoveReply.ok(r);
        if (r == null || r.state() != SENDING || r.generation() != c.generation()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r) + ", not SENDING at " + c.generation());
        }
        return MoveReply.ok(store.put(endCopy(r.transition(ACTIVE, 0, ""), "", store)));
    }

    private static MoveReply abortReceive(AbortReceive c, BucketRecord r, Store store) {
        if (r != null && r.state() == GARBAGE && r.generation() >= c.generation()) return MoveReply.ok(r);
        ReceiveProgress p = store.progress(c.bucket());
        if (r == null || r.state() != RECEIVING || r.generation() != c.generation() || (p != null && p.complete())) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r) + ", not an incomplete copy at " + c.generation());
        }
        return MoveReply.ok(fence(c.bucket(), c.generation(), r, store));
    }

    private static MoveReply dropData(DropData c, BucketRecord r, Store store) {
        if (r == null || r.generation() != c.generation() || (r.state() != SENT && r.state() != GARBAGE)) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r) + ", not SENT at " + c.generation());
        }
        if ((r.flags() & BucketRecord.FLAG_DATA_DROPPED) != 0) return MoveReply.ok(r);
        if (r.has(BucketRecord.FLAG_QUARANTINED)) return MoveReply.refused(r, "bucket " + c.bucket() + " is a quarantined doubled copy; its data is kept");
        store.dropData(c.bucket());
        BucketRecord dropped = endCopy(r, r.peer(), store);
        if (r.isArchived()) return ArchiveLedger.dropArchived(dropped, store);
        return MoveReply.ok(store.put(withFlags(dropped, dropped.flags() | BucketRecord.FLAG_DATA_DROPPED)));
    }

    private static MoveReply pin(Pin c, BucketRecord r, Store store) {
        BucketState want = c.pinned() ? PINNED : ACTIVE;
        if (r != null && r.state() == want) return MoveReply.ok(r);
        if (r == null || r.state() != (c.pinned() ? ACTIVE : PINNED) || r.isCopying()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + describe(r) + " here");
        }
        return MoveReply.ok(store.put(r.transition(want, 0, r.peer())));
    }

    static BucketRecord withGeneration(BucketRecord r, long generation) {
        return new BucketRecord(r.id(), r.state(), generation, r.bsn(), r.peer(), r.flags());
    }

    static BucketRecord withFlags(BucketRecord r, int flags) {
        return new BucketRecord(r.id(), r.state(), r.generation(), r.bsn(), r.peer(), flags);
    }

    static String describe(BucketRecord r) {
        if (r == null) return "unknown here";
        String detail = r.isCopying() ? " (being copied to " + r.peer() + ")" : r.isArchived() ? " (archived)" : r.has(BucketRecord.FLAG_ARCHIVING) ? " (being archived)" : "";
        return r.state() + detail + " at generation " + r.generation();
    }
}
