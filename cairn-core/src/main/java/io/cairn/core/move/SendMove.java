package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.kv.MovePiece;
import io.cairn.core.move.MoveCommand.*;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.core.move.MoveQuery.ChunkPage;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Drives one bucket from its source replicaset to a destination, step by step, through
 * {@link MovePort}. Every step is a replicated command checked by {@link BucketLedger} on the
 * receiving side, so this object holds no authority: if it dies (its node crashes, or the
 * rebalancer moves elsewhere) a new one created by {@link #resume} from the source's record
 * finishes or rolls the move back, and two drivers racing on the same move cannot break it.
 *
 * <p>With {@link Limits#copyAhead} the bucket's data is copied while it still serves writes
 * (StartCopy, chunks), and it refuses writes (SENDING) only while the keys changed meanwhile are
 * sent and the destination takes over. A copy that cannot go on is fenced at the destination
 * and cancelled at the source; the bucket never stopped serving writes.
 *
 * <p>Recovery never guesses: a SENDING source asks the destination for its verdict
 * (FinishReceive: COMPLETE or fenced), and acts on that one replicated answer. A copied one
 * first sends its changed keys again where the destination's copy stopped (PROBING), so a
 * driver lost during the hand-over does not cost the copy.
 *
 * <p>An archived bucket moves as its object (docs/archive.md, "Moves by server-side copy"): StartSend,
 * the store copies the object to the destination's prefix (COPYING_ARCHIVE), the destination adopts it
 * as its verdict (ADOPTING), MarkSent and Activate as usual, and before DropData the destination's
 * object is checked again (CONFIRMING, the durable acknowledgement): a missing one is copied again
 * from the source's, which is deleted only after a durable answer.
 *
 * <p>Single-threaded: all calls and callbacks run on the driver thread.
 */
public final class SendMove {
    public enum Phase {
        COPY_STARTING, COPYING, STARTING, PROBING, STREAMING, FINISHING, COPYING_ARCHIVE, ADOPTING, MARKING_SENT, ACTIVATING,
        CONFIRMING, DROPPING, ROLLING_BACK, CANCELLING, ENDING_COPY, DONE
    }

    public enum Result { MOVED, ROLLED_BACK, REFUSED }

    /**
     * Chunk bounds, the pause before re-trying an unanswered step, and whether data is copied
     * ahead while the bucket still serves writes.
     */
    public record Limits(int chunkKeys, int chunkBytes, long retryDelayMs, boolean copyAhead) {
        public static Limits defaults() {
            return new Limits(1_000, 1 << 20, 200, true);
        }
    }

    private final int bucket;
    private final String source;
    private final String destination;
    private final MovePort port;
    private final Limits limits;
    private final Consumer<SendMove> onDone;
    private Phase phase;
    /** The whole bucket reached the destination while it served writes; only changed keys follow. */
    private boolean copied;
    /** The destination answered the copy's fence with a record of its own at this generation or later (see onCopyFenced). */
    private boolean destinationOwns;
    /** The destination took the bucket over at its verdict (a copied hand-over); MarkSent follows. */
    private boolean activated;
    private long generation;
    /** The bucket moves as its archive object (the source's record was archived at StartSend). */
    private boolean archived;
    /** The destination's copy of the object, once the store made it. */
    private ArchivePointer adopted;
    /** Durable checks that found the destination's object missing (each one copied it again). */
    private int archiveRepairs;
    private int seq;
    private byte[] afterKey = new byte[0];
    /** Inside {@link #afterKey}, when a big collection is sent in pieces: the last element sent (else empty). */
    private byte[] afterElement = new byte[0];
    private ChunkPage pending;
    /**
     * The page after {@link #pending}, read while {@code pending} is submitted, so the source's reads and the
     * destination's commits overlap (a move's time was their sum, chunk by chunk). Null when none was asked.
     */
    private ReadAhead ahead;
    /** The driver waits for {@link #ahead}'s answer: it continues the stream when it comes. */
    private boolean awaitingAhead;
    private long keysSent;
    private long checksumSent;
    /** A collection whose pieces are acknowledged up to a MIDDLE one: the check of what was sent of it. */
    private MovePiece.Check piecesSent;
    /** The source's digest at SENDING, from the last page of changed keys (copy ahead only). */
    private long sourceKeys;
    private long sourceChecksum;
    private Result result;
    private String detail = "";
    private MoveReply.Refusal refusal = MoveReply.Refusal.NONE;
    /** When the source's SENDING (writes refused) was confirmed to this driver; -1 for a resumed move. */
    private long writesHeldSinceMs = -1;
    /** When the StartSend (or SendCopied) now being asked was first submitted; -1 before. */
    private long startingSinceMs = -1;
    private long writesHeldMs = -1;
    private int retries;
    private long lastStepMs;

    private SendMove(int bucket, String source, String destination, MovePort port, Limits limits, Consumer<SendMove> onDone) {
        this.bucket = bucket;
        this.source = source;
        this.destination = destination;
        this.port = port;
        this.limits = limits;
        this.onDone = onDone;
    }

    /** Starts a new move of an ACTIVE bucket. */
    public static SendMove start(int bucket, String source, String destination, MovePort port, Limits limits,
                                 Consumer<SendMove> onDone) {
        SendMove m = new SendMove(bucket, source, destination, port, limits, onDone);
        m.phase = limits.copyAhead() ? Phase.COPY_STARTING : Phase.STARTING;
        m.step();
        return m;
    }

    /**
     * Takes over an unfinished move found in the source's records (SENDING, SENT with data not
     * yet dropped, or a copy ahead, which is abandoned); returns null when {@code record} is not one.
     */
    public static SendMove resume(BucketRecord record, String source, MovePort port, Limits limits, Consumer<SendMove> onDone) {
        boolean sentNotDropped = record.state() == BucketState.SENT && (record.flags() & BucketRecord.FLAG_DATA_DROPPED) == 0;
        boolean sending = record.state() == BucketState.SENDING;
        if (!sending && !sentNotDropped && !record.isCopying()) return null;
        SendMove m = new SendMove(record.id(), source, record.peer(), port, limits, onDone);
        m.generation = record.marksChanges() ? record.copyGeneration() : record.generation();
        m.copied = sending && record.isCopying();
        m.archived = record.isArchived();
        m.phase = m.copied ? Phase.PROBING : sending && m.archived ? Phase.COPYING_ARCHIVE : sending ? Phase.FINISHING
                : sentNotDropped ? Phase.ACTIVATING : Phase.CANCELLING;
        m.detail = "resumed";
        m.step();
        return m;
    }

    public int bucket() { return bucket; }
    public String source() { return source; }
    public String destination() { return destination; }
    public Phase phase() { return phase; }
    public long generation() { return generation; }
    public long keysSent() { return keysSent; }
    /** Whether the bucket moved (or is moving) as its archive object, by server-side copy. */
    public boolean archived() { return archived; }
    /** How many times the durable check found the destination's object missing and it was copied again. */
    public int archiveRepairs() { return archiveRepairs; }
    /** Null until {@link Phase#DONE}. */
    public Result result() { return result; }
    public String detail() { return detail; }
    /** Why the source refused to start the move (with {@link Result#REFUSED}); {@link MoveReply.Refusal#NONE} otherwise. */
    public MoveReply.Refusal refusal() { return refusal; }

    /** The bucket is on its way and not yet ACTIVE at the destination (a rollback is not on its way). */
    public boolean beforeActivation() {
        return !activated && phase.ordinal() <= Phase.ACTIVATING.ordinal();
    }

    /**
     * How long the bucket refused writes, as this driver saw it: from submitting the StartSend (or
     * SendCopied) that made it SENDING, so the source's apply of it (a copied hand-over computes the
     * bucket's digest there) is inside, to the destination's activation reply (or the rollback's);
     * -1 when unknown (a resumed move, a refusal).
     */
    public long writesHeldMs() { return writesHeldMs; }

    private void step() {
        lastStepMs = port.nowMs();
        switch (phase) {
            case COPY_STARTING -> port.submit(source, new StartCopy(bucket, destination), this::onCopyStarted);
            case COPYING -> streamNext();
            case STARTING -> {
                if (startingSinceMs < 0) startingSinceMs = port.nowMs(); // an unanswered one may have applied: the first counts
                port.submit(source, copied ? new SendCopied(bucket, destination, generation) : new StartSend(bucket, destination),
                        this::onStarted);
            }
            // A chunk numbered past any real one changes nothing and is answered GAP with the next number expected.
            case PROBING -> port.submit(destination, new ReceiveChunk(bucket, source, generation, Integer.MAX_VALUE, List.of()), this::onProbed);
            case STREAMING -> streamNext();
            case FINISHING -> port.digest(source, bucket, this::onDigest);
            case MARKING_SENT -> port.submit(source, new MarkSent(bucket, generation), this::onMarkedSent);
            case COPYING_ARCHIVE -> port.copyArchive(source, destination, bucket, generation, this::onArchiveCopied);
            case ADOPTING -> port.submit(destination, new AdoptArchive(bucket, source, generation, adopted), this::onVerdict);
            case ACTIVATING -> port.submit(destination, new Activate(bucket, generation), this::onActivated);
            case CONFIRMING -> port.archiveDurable(destination, bucket, generation, this::onDurable);
            case DROPPING -> port.submit(source, new DropData(bucket, generation), this::onDropped);
            case ROLLING_BACK -> port.submit(source, new RollbackSend(bucket, generation), this::onRolledBack);
            case CANCELLING -> port.submit(destination, new AbortReceive(bucket, generation), this::onCopyFenced);
            case ENDING_COPY -> port.submit(source, new CancelCopy(bucket, generation, !destinationOwns), this::onCopyEnded);
            case DONE -> { }
        }
    }

    private void retryLater() {
        retries++;
        port.after(limits.retryDelayMs(), this::step);
    }

    /**
     * When this driver last took a step (sent a command or query): every answer, and every retry
     * pause, leads to the next one, so a move that took none for long is waiting on something lost.
     */
    public long lastStepMs() { return lastStepMs; }

    /** Steps this driver had to try again (no answer, or an answer that means "not yet"). */
    public int retries() { return retries; }

    private void moveTo(Phase next) {
        phase = next;
        step();
    }

    /** Ends a move its source refused to start, keeping why (a map-reduce call's refs let a manual move try again). */
    private void refused(MoveReply reply) {
        refusal = reply.refusal();
        finish(Result.REFUSED, reply.message());
    }

    private void finish(Result r, String why) {
        phase = Phase.DONE;
        result = r;
        detail = why;
        onDone.accept(this);
    }

    private void onCopyStarted(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        BucketRecord r = reply.record();
        if (!reply.isOk() && r != null && r.isArchived() && r.state() == BucketState.ACTIVE) {
            moveTo(Phase.STARTING); // nothing to copy ahead: an archived bucket moves as its object, after a StartSend
            return;
        }
        if (!reply.isOk() || r == null || !r.marksChanges() || !r.peer().equals(destination)) {
            refused(reply);
            return;
        }
        generation = r.copyGeneration();
        moveTo(Phase.COPYING);
    }

    private void onStarted(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        BucketRecord r = reply.record();
        boolean sending = reply.isOk() && r != null && r.state() == BucketState.SENDING && r.peer().equals(destination);
        // Map-reduce refs only delay the hand-over: the copy stays valid while writes are served and marked.
        if (copied && !sending && reply.refusedByRefs()) {
            startingSinceMs = -1; // refused: the bucket still takes writes until the next try
            retryLater();
            return;
        }
        if (copied && !(sending && r.generation() == generation)) { cancel(reply.message()); return; }
        if (!sending) { refused(reply); return; }
        generation = r.generation();
        writesHeldSinceMs = startingSinceMs;
        if (!copied && r.isArchived()) {
            archived = true;
            moveTo(Phase.COPYING_ARCHIVE);
            return;
        }
        phase = Phase.STREAMING;
        if (copied && reply.changes() != null) onChanges(reply.changes());
        else step();
    }

    /**
     * A resumed copied hand-over: where the destination's copy stands. If it holds the copy and
     * waits for chunk n, the changed keys are sent again from chunk n (each one replaces what is
     * there, so keys that had arrived change nothing) and the verdict decides; anything else
     * (nothing there, fenced, complete, activated) goes straight to the verdict.
     */
    private void onProbed(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        if (reply.outcome() != MoveReply.Outcome.GAP || reply.expectedSeq() == 0) { moveTo(Phase.FINISHING); return; }
        seq = reply.expectedSeq();
        moveTo(Phase.STREAMING);
    }

    /**
     * A copy ahead that cannot go on: fence the destination's copy, then let the source stop
     * marking changes. It ends as a rollback: the bucket rests before the rebalancer tries it again.
     */
    private void cancel(String why) {
        detail = why;
        moveTo(Phase.CANCELLING);
    }

    private void onCopyFenced(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        // Refused means no incomplete copy is left there (none was created, it is fenced already, or
        // a racing driver completed it, and then the source is SENDING and CancelCopy refuses), or the
        // destination owns the bucket at this generation or later: this source is an older copy
        // (restored from a backup taken during the copy ahead) and keeps its lower generation.
        BucketRecord there = reply.record();
        destinationOwns = reply.outcome() != MoveReply.Outcome.OK && there != null && there.generation() >= generation
                && there.state() != BucketState.GARBAGE;
        if (destinationOwns) detail = "the destination owns bucket " + bucket + " at generation " + there.generation() + " (" + there.state()
                + "): this copy is older and keeps its generation";
        moveTo(Phase.ENDING_COPY);
    }

    private void onCopyEnded(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        finish(Result.ROLLED_BACK, detail.isEmpty() ? reply.message() : detail);
    }

    /**
     * The next page: whole-bucket chunks while SENDING (no copy ahead) or copying ahead, or the keys
     * changed since the copy ahead started (whose last page carries the source's digest).
     */
    private void streamNext() {
        if (pending != null) { sendPending(); return; }
        if (ahead != null && ahead.startsAt(phase, copied, afterKey, afterElement)) {
            if (ahead.page == null) { awaitingAhead = true; return; } // its answer calls step() again
            MoveQuery.ChangesPage page = ahead.page;
            ahead = null;
            onPage(page);
            return;
        }
        ahead = null;
        read(afterKey, afterElement, this::onPage);
    }

    /** Reads the page after the cursor for the current phase; whole-bucket pages carry no digest. */
    private void read(byte[] fromKey, byte[] fromElement, Consumer<MoveQuery.ChangesPage> reply) {
        if (streamsChanges()) {
            port.readChanges(source, new MoveQuery.ReadChanges(bucket, generation, fromKey, limits.chunkKeys(), limits.chunkBytes(), fromElement), reply);
        } else {
            port.readChunk(source, new MoveQuery.ReadChunk(bucket, generation, fromKey, limits.chunkKeys(), limits.chunkBytes(), fromElement),
                    page -> reply.accept(page == null ? null : new MoveQuery.ChangesPage(page, 0, 0)));
        }
    }

    private boolean streamsChanges() {
        return copied && phase == Phase.STREAMING;
    }

    private void onPage(MoveQuery.ChangesPage answer) {
        if (answer == null) { retryLater(); return; }
        if (streamsChanges()) { onChanges(answer); return; }
        ChunkPage page = answer.page();
        if (!page.refusal().isEmpty()) { chunkFailed(page.refusal()); return; }
        // An empty bucket still sends chunk 0 (as the last one): it creates the destination's RECEIVING record.
        if (page.entries().isEmpty() && !page.last()) { chunkFailed("empty page before the end"); return; } // a reader that would loop
        pending = page;
        sendPending();
    }

    /** While SENDING the verdict decides; a copy ahead is abandoned. */
    private void chunkFailed(String why) {
        if (phase == Phase.COPYING) cancel(why);
        else moveTo(Phase.FINISHING);
    }

    /** A page of changed keys, from a query or from SendCopied's answer (the first page). */
    private void onChanges(MoveQuery.ChangesPage changes) {
        ChunkPage page = changes.page();
        if (!page.refusal().isEmpty() || (page.entries().isEmpty() && !page.last())) { moveTo(Phase.FINISHING); return; }
        pending = page;
        sourceKeys = changes.keyCount();
        sourceChecksum = changes.checksum();
        sendPending();
    }

    /** Asks for the page after {@link #pending} while it is submitted; a chunk refused or a phase left makes the answer unused. */
    private void readAhead() {
        List<ChunkEntry> entries = pending.entries();
        if (pending.last() || entries.isEmpty() || ahead != null) return;
        ChunkEntry lastSent = entries.get(entries.size() - 1);
        ReadAhead asked = new ReadAhead(phase, copied, lastSent.key(), lastSent.resumeElement());
        ahead = asked;
        read(asked.afterKey, asked.afterElement, page -> {
            if (ahead != asked) return; // dropped: the stream went elsewhere meanwhile
            if (page == null) ahead = null; // no answer: the stream reads it itself
            else asked.page = page;
            if (awaitingAhead) {
                awaitingAhead = false;
                step();
            }
        });
    }

    /** A page asked ahead of need: from where, in which phase, and its answer once it came. */
    private static final class ReadAhead {
        final Phase phase;
        final boolean copied;
        final byte[] afterKey;
        final byte[] afterElement;
        MoveQuery.ChangesPage page;

        ReadAhead(Phase phase, boolean copied, byte[] afterKey, byte[] afterElement) {
            this.phase = phase;
            this.copied = copied;
            this.afterKey = afterKey;
            this.afterElement = afterElement;
        }

        boolean startsAt(Phase p, boolean c, byte[] key, byte[] element) {
            return phase == p && copied == c && Arrays.equals(afterKey, key) && Arrays.equals(afterElement, element);
        }
    }

    private void sendPending() {
        List<ChunkEntry> entries = pending.entries();
        if (pending.last() && phase == Phase.STREAMING) {
            sendLastChunk(entries);
            return;
        }
        readAhead();
        ReceiveChunk chunk = new ReceiveChunk(bucket, source, generation, seq, entries);
        Consumer<MoveReply> onReply = reply -> {
            if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
            if (!reply.isOk()) { chunkFailed(reply.message()); return; } // GAP or REFUSED
            seq++;
            keysSent += ChunkEntry.keyCount(entries);
            ChunkEntry.Checksum sum = ChunkEntry.checksum(entries, piecesSent);
            checksumSent += sum.sum();
            piecesSent = sum.open();
            if (!entries.isEmpty()) {
                afterKey = entries.get(entries.size() - 1).key();
                afterElement = entries.get(entries.size() - 1).resumeElement();
            }
            boolean copyDone = pending.last();
            pending = null;
            if (copyDone) {
                copied = true;
                afterKey = new byte[0];
                afterElement = new byte[0];
                moveTo(Phase.STARTING);
            } else {
                step();
            }
        };
        if (phase == Phase.COPYING) port.submitCopy(destination, chunk, onReply);
        else port.submit(destination, chunk, onReply);
    }

    /**
     * The last chunk carries the digest of the whole bucket (summed from the chunks, or the
     * source's own after a copy ahead), so the destination judges the copy in the same entry.
     */
    private void sendLastChunk(List<ChunkEntry> entries) {
        long keys = copied ? sourceKeys : keysSent + ChunkEntry.keyCount(entries);
        long checksum = copied ? sourceChecksum : checksumSent + ChunkEntry.checksum(entries, piecesSent).sum();
        port.submit(destination, new ReceiveLastChunk(bucket, source, generation, seq, entries, keys, checksum, copied), reply -> {
            if (reply != null && reply.outcome() == MoveReply.Outcome.COMPLETE) keysSent = keys;
            onVerdict(reply);
        });
    }

    private void onDigest(BucketDigest digest) {
        if (digest == null) { retryLater(); return; }
        BucketRecord r = digest.record();
        if (r == null || r.generation() != generation) { finish(Result.REFUSED, "source record changed: " + r); return; }
        if (r.state() == BucketState.SENT) { moveTo(Phase.ACTIVATING); return; }
        if (r.state() != BucketState.SENDING) { finish(Result.ROLLED_BACK, "source is " + r.state()); return; }
        // A copied SENDING source serves no reads, so its destination may take over at the verdict.
        port.submit(destination, new FinishReceive(bucket, generation, digest.keyCount(), digest.checksum(), r.isCopying()), this::onVerdict);
    }

    /** The destination's answer to FinishReceive or ReceiveLastChunk; an unclear one sends the same command again. */
    private void onVerdict(MoveReply reply) {
        if (reply == null) { retryLater(); return; }
        switch (reply.outcome()) {
            case COMPLETE -> {
                // Activated at the verdict, or earlier (and perhaps contained or moved on since): no Activate to send.
                BucketRecord dst = reply.record();
                if (dst != null && (dst.generation() > generation || (dst.generation() == generation && dst.state() != BucketState.RECEIVING))) {
                    activated = true;
                    writesReleased();
                }
                moveTo(Phase.MARKING_SENT);
            }
            case ABORTED -> { detail = reply.message(); moveTo(Phase.ROLLING_BACK); }
            case REFUSED -> {
                // The destination holds its own routable copy (a doubled bucket): it refused every chunk of
                // this generation and can never activate it, so rolling back is safe and frees the bucket.
                BucketRecord dst = reply.record();
                if (dst != null && dst.state().isRoutable() && dst.generation() < generation) {
                    detail = "destination holds its own copy: " + reply.message();
                    moveTo(Phase.ROLLING_BACK);
                } else {
                    retryLater();
                }
            }
            default -> retryLater(); // unreachable destination or an impossible state: never roll back without the fence
        }
    }

    private void onMarkedSent(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        if (!reply.isOk()) { finish(Result.REFUSED, reply.message()); return; }
        moveTo(activated ? afterActivation() : Phase.ACTIVATING);
    }

    /** The source drops its copy next; an archived one only after the destination's object answered HEAD again. */
    private Phase afterActivation() {
        return archived ? Phase.CONFIRMING : Phase.DROPPING;
    }

    /** The store's copy to the destination's prefix: adopt it, or (refused: the source's record changed) let the verdict decide. */
    private void onArchiveCopied(MovePort.ArchiveCopy copy) {
        if (copy == null) { retryLater(); return; }
        if (!copy.copied()) {
            detail = copy.refusal();
            moveTo(Phase.FINISHING); // the destination's verdict: adopted earlier (COMPLETE) or fenced (ABORTED, roll back)
            return;
        }
        adopted = copy.pointer();
        moveTo(Phase.ADOPTING);
    }

    /**
     * The durable acknowledgement: only a DURABLE answer lets the source drop its object. A missing
     * object at the destination is copied again from the source's (which is still there) and adopted
     * again; the pause bounds the loop against a store that keeps losing it.
     */
    private void onDurable(MovePort.Durability durability) {
        if (durability == null || durability == MovePort.Durability.NOT_HELD) { retryLater(); return; }
        if (durability == MovePort.Durability.MISSING) {
            archiveRepairs++;
            detail = "the destination's object was missing; copied again";
            retries++;
            port.after(limits.retryDelayMs(), () -> moveTo(Phase.COPYING_ARCHIVE));
            return;
        }
        moveTo(Phase.DROPPING);
    }

    private void onActivated(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        BucketRecord r = reply.record();
        boolean activatedOrMovedOn = reply.isOk() || (r != null && r.generation() > generation);
        if (!activatedOrMovedOn) { retryLater(); return; }
        writesReleased();
        moveTo(afterActivation());
    }

    private void writesReleased() {
        if (writesHeldSinceMs >= 0) writesHeldMs = port.nowMs() - writesHeldSinceMs;
    }

    private void onDropped(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        // DropData of an archived bucket names the source's object, which no record points to any more.
        if (archived && reply.isOk() && !reply.message().isEmpty()) {
            port.deleteArchive(reply.message());
            finish(Result.MOVED, "");
            return;
        }
        finish(Result.MOVED, reply.isOk() ? "" : reply.message());
    }

    private void onRolledBack(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        writesReleased();
        finish(Result.ROLLED_BACK, detail);
    }
}
