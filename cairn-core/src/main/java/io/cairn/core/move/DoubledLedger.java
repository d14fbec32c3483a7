package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.MoveCommand.Contain;
import io.cairn.core.move.MoveCommand.DropQuarantined;
import io.cairn.core.move.MoveCommand.Quarantine;
import io.cairn.core.move.MoveCommand.Reactivate;

import static io.cairn.core.BucketRecord.FLAG_DATA_DROPPED;
import static io.cairn.core.BucketRecord.FLAG_DOUBLED;
import static io.cairn.core.BucketRecord.FLAG_QUARANTINED;
import static io.cairn.core.BucketState.*;

/**
 * The doubled-bucket commands of {@link BucketLedger} (design 000, docs/doubled-buckets.md).
 * Each is one replicated decision, idempotent, and guarded by the generation it expects, so a
 * late or repeated command cannot contain or quarantine a copy that changed meanwhile.
 *
 * <p>None of them deletes data: a contained copy serves reads, a quarantined copy keeps its
 * keys for export. The order of a resolution (quarantine every losing copy, then reactivate
 * the kept one) is the resolver's; the ledger only makes sure each step is legal here.
 */
final class DoubledLedger {
    private DoubledLedger() {}

    static MoveReply contain(Contain c, BucketRecord r, BucketLedger.Store store) {
        if (r != null && r.isContainedDouble() && r.generation() == c.generation()) return MoveReply.ok(r);
        if (r == null || !r.state().servesWrites() || r.generation() != c.generation()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + BucketLedger.describe(r) + ", not writable at " + c.generation());
        }
        // A copy ahead of a move ends here: a contained copy never leaves (its mover's next read is refused).
        BucketRecord readonly = BucketLedger.endCopy(r, c.otherHolders(), store).transition(READONLY, 0, c.otherHolders());
        return MoveReply.ok(store.put(BucketLedger.withFlags(readonly, readonly.flags() | FLAG_DOUBLED)));
    }

    static MoveReply quarantine(Quarantine c, BucketRecord r, BucketLedger.Store store) {
        if (r != null && r.state() == GARBAGE && r.has(FLAG_QUARANTINED) && r.generation() == c.generation()) return MoveReply.ok(r);
        // Only a contained copy: a writable one is contained first (its own entry), so every step is in the transition table.
        if (r == null || r.state() != READONLY || r.generation() != c.generation()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + BucketLedger.describe(r) + ", not a contained copy at " + c.generation());
        }
        BucketRecord garbage = r.transition(GARBAGE, 0, r.peer());
        store.putQuarantinedAt(c.bucket(), store.nowMs());
        return MoveReply.ok(store.put(BucketLedger.withFlags(garbage, r.flags() | FLAG_DOUBLED | FLAG_QUARANTINED)));
    }

    static MoveReply dropQuarantined(DropQuarantined c, BucketRecord r, BucketLedger.Store store) {
        if (r != null && r.state() == GARBAGE && r.generation() == c.generation() && r.has(FLAG_DATA_DROPPED) && !r.has(FLAG_QUARANTINED)) {
            return MoveReply.ok(r);
        }
        if (r == null || r.state() != GARBAGE || !r.has(FLAG_QUARANTINED) || r.generation() != c.generation()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + BucketLedger.describe(r) + ", not quarantined at " + c.generation());
        }
        long since = store.quarantinedAtMs(c.bucket());
        if (since < 0 || store.nowMs() - since < c.retentionMs()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is kept until its retention of " + c.retentionMs() + " ms has passed");
        }
        store.dropData(c.bucket());
        return MoveReply.ok(store.put(BucketLedger.withFlags(r, (r.flags() & ~FLAG_QUARANTINED) | FLAG_DATA_DROPPED)));
    }

    static MoveReply reactivate(Reactivate c, BucketRecord r, BucketLedger.Store store) {
        if (r != null && r.state().servesWrites() && r.generation() == c.newGeneration()) return MoveReply.ok(r);
        boolean holder = r != null && (r.state().servesWrites() || r.state() == READONLY);
        if (!holder || r.generation() >= c.newGeneration()) {
            return MoveReply.refused(r, "bucket " + c.bucket() + " is " + BucketLedger.describe(r) + ", cannot become ACTIVE at " + c.newGeneration());
        }
        // ACTIVE or PINNED keeps its state (no transition, only a newer generation); READONLY becomes ACTIVE.
        BucketState to = r.state() == READONLY ? ACTIVE : r.state();
        // A copy ahead of a move ends here too: its generation is gone, so its driver's next step is refused.
        BucketRecord kept = BucketLedger.endCopy(to == r.state() ? r : r.transition(to, 0, ""), "", store);
        BucketRecord fresh = new BucketRecord(r.id(), to, c.newGeneration(), 0, "", kept.flags() & ~FLAG_DOUBLED);
        return MoveReply.ok(store.put(fresh));
    }
}
