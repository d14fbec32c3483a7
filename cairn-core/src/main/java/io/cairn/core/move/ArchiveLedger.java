package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.move.MoveCommand.*;

import static io.cairn.core.BucketRecord.FLAG_ARCHIVED;
import static io.cairn.core.BucketRecord.FLAG_ARCHIVING;
import static io.cairn.core.BucketRecord.FLAG_DATA_DROPPED;
import static io.cairn.core.BucketRecord.FLAG_QUARANTINED;
import static io.cairn.core.BucketState.ACTIVE;
import static io.cairn.core.BucketState.GARBAGE;
import static io.cairn.core.BucketState.RECEIVING;

/**
 * The archive tier's replicated decisions on one replicaset's bucket records (issue 23, seed 002;
 * docs/archive.md). Pure, like {@link BucketLedger}, which hands these commands here.
 *
 * <p>An archived bucket never changes owner or state: it stays ACTIVE (or PINNED) here, at the same
 * generation, and routers keep sending its requests here. Only its data moves, between RocksDB and
 * one object, so the bucket-state table needs no new state and the single-owner invariant is
 * untouched. What must hold instead:
 * <ul>
 *   <li><b>Nothing lost on archive.</b> BeginArchive holds writes (retryable refusal) before the
 *       leader reads its snapshot, and FinishArchive drops the local data only if the record has not
 *       changed since (same BSN: no FLUSHALL, pin, containment, cancel or second archive in between)
 *       and every replica's copy has exactly the archived key count and checksum. The object was
 *       verified in the store (HEAD) before FinishArchive was proposed.</li>
 *   <li><b>Nothing resurrected.</b> Reads and writes are refused while {@link BucketRecord#FLAG_ARCHIVED}
 *       is set, so no write lands next to an archive that lacks it; FLUSHALL clears the flag (the
 *       object is then stale and is never restored).</li>
 *   <li><b>A restore copies.</b> Chunks land in the bucket's range while it is still archived (not
 *       served); FinishRestore serves the data only if it adds up to the archive's counts, and keeps
 *       the pointer: the object stays until a newer archive of the bucket replaces it.</li>
 * </ul>
 * Every command is idempotent, so a re-sent command after a lost reply or a leader change is safe.
 */
final class ArchiveLedger {
    private ArchiveLedger() {}

    static MoveReply apply(MoveCommand command, BucketRecord r, BucketLedger.Store store) {
        if (command instanceof BeginArchive c) return begin(c, r, store);
        if (command instanceof FinishArchive c) return finish(c, r, store);
        if (command instanceof CancelArchive c) return cancel(c, r, store);
        if (command instanceof RestoreChunk c) return restoreChunk(c, r, store);
        if (command instanceof FinishRestore c) return finishRestore(c, r, store);
        if (command instanceof AdoptArchive c) return adopt(c, r, store);
        if (command instanceof AdoptBackup c) return adoptBackup(c, r, store);
        if (command instanceof AdoptRestored c) return adoptRestored(c, r, store);
        throw new IllegalArgumentException("not an archive command: " + command);
    }

    /** Writable here (ACTIVE or PINNED) at {@code generation}. */
    private static boolean ownedAt(BucketRecord r, long generation) {
        return r != null && r.state().servesWrites() && r.generation() == generation;
    }

    private static MoveReply begin(BeginArchive c, BucketRecord r, BucketLedger.Store store) {
        if (ownedAt(r, c.generation()) && r.has(FLAG_ARCHIVING)) return MoveReply.ok(r);
        if (!ownedAt(r, c.generation()) || r.isCopying() || r.isArchived()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + BucketLedger.describe(r) + ", not ACTIVE or PINNED and idle at generation " + c.generation());
        }
        // A map-reduce call (KEYS, SCAN, FLUSHALL) lists local data: it must not miss a bucket dropped under it.
        if (store.mapReduceRefsHeld()) return BucketLedger.refsHeld(r);
        return MoveReply.ok(store.put(BucketLedger.withFlags(r, r.flags() | FLAG_ARCHIVING)));
    }

    private static MoveReply finish(FinishArchive c, BucketRecord r, BucketLedger.Store store) {
        if (ownedAt(r, c.generation()) && r.isArchived() && c.pointer().equals(store.archivePointer(c.bucket()))) {
            return MoveReply.ok(r);
        }
        if (!ownedAt(r, c.generation()) || !r.has(FLAG_ARCHIVING) || r.bsn() != c.beganBsn()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " changed since its archive began (BSN " + c.beganBsn() + "): "
                    + BucketLedger.describe(r));
        }
        MoveQuery.BucketDigest here = store.digest(c.bucket());
        if (here != null && (here.keyCount() != c.pointer().keyCount() || here.checksum() != c.checksum())) {
            // Cannot happen while writes are held; refusing keeps the data rather than trusting the object.
            return MoveReply.refused(r, "bucket " + c.bucket() + " holds " + here.keyCount() + " keys here, the archive "
                    + c.pointer().keyCount() + " (or their checksums differ)");
        }
        ArchivePointer previous = store.archivePointer(c.bucket());
        store.dropData(c.bucket());
        store.putArchivePointer(c.bucket(), c.pointer());
        BucketRecord archived = store.put(BucketLedger.withFlags(r, (r.flags() & ~FLAG_ARCHIVING) | FLAG_ARCHIVED));
        // The leader deletes the replaced object once this is committed (never before: it is the only copy until now).
        String replaced = previous == null || previous.objectKey().equals(c.pointer().objectKey()) ? "" : previous.objectKey();
        return new MoveReply(MoveReply.Outcome.OK, archived, 0, replaced);
    }

    private static MoveReply cancel(CancelArchive c, BucketRecord r, BucketLedger.Store store) {
        if (r == null || !r.has(FLAG_ARCHIVING) || r.generation() != c.generation()) return MoveReply.ok(r); // nothing (left) to cancel
        return MoveReply.ok(store.put(BucketLedger.withFlags(r, r.flags() & ~FLAG_ARCHIVING)));
    }

    private static MoveReply restoreChunk(RestoreChunk c, BucketRecord r, BucketLedger.Store store) {
        // Only an owner restores: a SENDING (or received) archived bucket moves as its object, its data stays there.
        if (r == null || !r.isArchived() || r.generation() != c.generation() || !r.state().servesWrites()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + BucketLedger.describe(r) + ", not archived at generation " + c.generation());
        }
        ReceiveProgress p;
        if (c.seq() == 0) {
            store.dropData(c.bucket()); // leftovers of a restore that stopped half-way (a leader change)
            p = new ReceiveProgress(c.generation(), 0, 0, 0, false);
        } else {
            p = store.progress(c.bucket());
            if (p == null || p.generation() != c.generation()) return new MoveReply(MoveReply.Outcome.GAP, r, 0, "expected chunk 0");
            if (c.seq() < p.nextSeq()) return MoveReply.ok(r);
            if (c.seq() > p.nextSeq()) return new MoveReply(MoveReply.Outcome.GAP, r, p.nextSeq(), "expected chunk " + p.nextSeq());
        }
        for (ChunkEntry e : c.entries()) {
            if (e.isDeletion()) return MoveReply.refused(r, "an archive holds no deletions");
            byte[] old = store.putData(c.bucket(), e);
            if (old != null) p = p.remove(new ChunkEntry(e.key(), old));
            p = p.add(e);
        }
        store.putProgress(c.bucket(), new ReceiveProgress(p.generation(), p.nextSeq() + 1, p.keyCount(), p.checksum(), false));
        return MoveReply.ok(r);
    }

    private static MoveReply finishRestore(FinishRestore c, BucketRecord r, BucketLedger.Store store) {
        if (r != null && !r.isArchived() && r.generation() == c.generation() && r.state().isRoutable()) return MoveReply.ok(r);
        if (r == null || !r.isArchived() || r.generation() != c.generation() || !r.state().servesWrites()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + BucketLedger.describe(r) + ", not archived at generation " + c.generation());
        }
        ReceiveProgress p = store.progress(c.bucket());
        boolean adds = p != null && p.generation() == c.generation() && p.keyCount() == c.keyCount() && p.checksum() == c.checksum();
        store.clearProgress(c.bucket());
        if (!adds) {
            store.dropData(c.bucket());
            String got = p == null ? "nothing" : p.keyCount() + " keys";
            return MoveReply.refused(r, "restore of bucket " + c.bucket() + " received " + got + ", the archive holds " + c.keyCount()
                    + " (or the checksums differ); it stays archived");
        }
        return MoveReply.ok(store.put(BucketLedger.withFlags(r, r.flags() & ~FLAG_ARCHIVED)));
    }

    /**
     * The destination's verdict on an archived bucket moved by server-side copy. The object was copied
     * into this replicaset's prefix and verified by HEAD before this was sent; the bucket becomes a
     * complete RECEIVING copy with the archived flag and the pointer (the usual MarkSent, Activate,
     * DropData follow). The guards are a chunk 0's: never over a newer generation, a routable copy or a
     * quarantined one, and a fenced copy stays fenced. Sent again for the same generation (after the
     * durable check found the object missing and the driver copied it again) it records the new pointer.
     */
    private static MoveReply adopt(AdoptArchive c, BucketRecord r, BucketLedger.Store store) {
        if (r != null && r.generation() > c.generation()) return MoveReply.refused(r, "generation " + c.generation() + " is stale");
        if (r != null && r.generation() == c.generation()) return readopt(c, r, store);
        if (r != null && r.state().isRoutable()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + r.state() + " here; refusing a second copy");
        }
        if (r != null && r.has(FLAG_QUARANTINED)) {
            return new MoveReply(MoveReply.Outcome.ABORTED, r, 0, "a quarantined doubled copy is kept here; nothing was adopted");
        }
        if (r != null && !r.has(FLAG_DATA_DROPPED)) store.dropData(c.bucket()); // leftovers of an older copy, as chunk 0 drops them
        BucketRecord created = r == null
                ? new BucketRecord(c.bucket(), RECEIVING, c.generation(), 0, c.source(), FLAG_ARCHIVED)
                : BucketLedger.withFlags(BucketLedger.withGeneration(r.state() == RECEIVING ? r : r.transition(RECEIVING, 0, c.source()),
                        c.generation()), FLAG_ARCHIVED);
        store.putArchivePointer(c.bucket(), c.pointer());
        store.putProgress(c.bucket(), new ReceiveProgress(c.generation(), 1, c.pointer().keyCount(), 0, true));
        return new MoveReply(MoveReply.Outcome.COMPLETE, store.put(created), 0, "");
    }

    private static MoveReply readopt(AdoptArchive c, BucketRecord r, BucketLedger.Store store) {
        if (r.state() == GARBAGE) return new MoveReply(MoveReply.Outcome.ABORTED, r, 0, "already fenced");
        boolean holds = r.state() == RECEIVING || r.state().isRoutable();
        if (!holds) return MoveReply.refused(r, "bucket " + c.bucket() + " is " + BucketLedger.describe(r));
        if (r.state() == RECEIVING && !r.isArchived()) return MoveReply.refused(r, "bucket " + c.bucket() + " is receiving chunks at this generation");
        // Activated and restored since: its data is live here (on a Raft majority), the object is no longer needed.
        if (!r.isArchived()) return new MoveReply(MoveReply.Outcome.COMPLETE, r, 0, "already activated and restored");
        if (!c.pointer().equals(store.archivePointer(c.bucket()))) store.putArchivePointer(c.bucket(), c.pointer());
        return new MoveReply(MoveReply.Outcome.COMPLETE, r, 0, "");
    }

    /**
     * DropData of an archived bucket that was SENT: the record loses its archived flag and pointer, and the
     * answer names the object for the driver to delete (never restored first; the destination's own copy
     * was found durable just before). A lost answer leaves the object to the sweeper.
     */
    static MoveReply dropArchived(BucketRecord sent, BucketLedger.Store store) {
        ArchivePointer p = store.archivePointer(sent.id());
        store.clearArchivePointer(sent.id());
        BucketRecord dropped = store.put(BucketLedger.withFlags(sent, (sent.flags() & ~FLAG_ARCHIVED) | FLAG_DATA_DROPPED));
        return new MoveReply(MoveReply.Outcome.OK, dropped, 0, p == null ? "" : p.objectKey());
    }

    /**
     * A backup's object adopted as the data of a bucket owned here (a restore into a fresh cluster).
     * Only over an empty, unarchived bucket at {@code generation}: a restore never replaces data or an
     * archive (that would lose acknowledged writes or resurrect old ones), and the bucket keeps its
     * owner, state and generation, so the single-owner invariant is untouched. Idempotent.
     */
    private static MoveReply adoptBackup(AdoptBackup c, BucketRecord r, BucketLedger.Store store) {
        if (ownedAt(r, c.generation()) && r.isArchived() && c.pointer().equals(store.archivePointer(c.bucket()))) return MoveReply.ok(r);
        if (!ownedAt(r, c.generation()) || r.isArchivedOrArchiving() || r.isCopying()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + BucketLedger.describe(r) + ", not ACTIVE or PINNED, unarchived and idle at generation "
                    + c.generation());
        }
        MoveQuery.BucketDigest here = store.digest(c.bucket());
        if (here != null && here.keyCount() != 0) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " holds " + here.keyCount() + " keys here; a backup is restored only into empty buckets");
        }
        store.putArchivePointer(c.bucket(), c.pointer());
        return MoveReply.ok(store.put(BucketLedger.withFlags(r, r.flags() | FLAG_ARCHIVED)));
    }

    /**
     * A bucket of a wiped replicaset rebuilt from a backup: ACTIVE and archived at the backup's
     * generation, only where this replicaset has no record of the bucket (it lost its disks). Never
     * over a record, even a tombstone: that would bring back a bucket this replicaset knows it gave
     * away. Archived, the copy serves nothing until a restore, and a copy that moved away since the
     * backup (a higher generation elsewhere) is contained by the doubled-bucket check, not served.
     * Idempotent (the same pointer at the same generation, contained since or not).
     */
    private static MoveReply adoptRestored(AdoptRestored c, BucketRecord r, BucketLedger.Store store) {
        if (r != null && r.generation() == c.generation() && r.isArchived() && c.pointer().equals(store.archivePointer(c.bucket()))) {
            return MoveReply.ok(r);
        }
        if (r != null) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + BucketLedger.describe(r)
                    + " here; a backup rebuilds only buckets a wiped replicaset holds no record of");
        }
        store.putArchivePointer(c.bucket(), c.pointer());
        return MoveReply.ok(store.put(new BucketRecord(c.bucket(), ACTIVE, c.generation(), 0, "", FLAG_ARCHIVED)));
    }
}
