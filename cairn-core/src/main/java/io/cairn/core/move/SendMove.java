package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.move.MoveCommand.*;
import io.cairn.core.move.MoveQuery.BucketDigest;
import io.cairn.core.move.MoveQuery.ChunkPage;

import java.util.List;
import java.util.function.Consumer;

/**
 * Drives one bucket from its source replicaset to a destination, step by step, through
 * {@link MovePort}. Every step is a replicated command checked by {@link BucketLedger} on the
 * receiving side, so this object holds no authority: if it dies (its node crashes, or the
 * rebalancer moves elsewhere) a new one created by {@link #resume} from the source's record
 * finishes or rolls the move back, and two drivers racing on the same move cannot break it.
 *
 * <p>Recovery never guesses: a SENDING source asks the destination for its verdict
 * (FinishReceive: COMPLETE or fenced), and acts on that one replicated answer.
 *
 * <p>Single-threaded: all calls and callbacks run on the driver thread.
 */
public final class SendMove {
    public enum Phase {
        STARTING, STREAMING, FINISHING, MARKING_SENT, ACTIVATING, DROPPING, ROLLING_BACK, DONE;

        /** The bucket is on its way and not yet ACTIVE at the destination (a rollback is not on its way). */
        public boolean beforeActivation() {
            return ordinal() <= ACTIVATING.ordinal();
        }
    }

    public enum Result { MOVED, ROLLED_BACK, REFUSED }

    /** Chunk bounds and the pause before re-trying an unanswered step. */
    public record Limits(int chunkKeys, int chunkBytes, long retryDelayMs) {
        public static Limits defaults() {
            return new Limits(1_000, 1 << 20, 200);
        }
    }

    private final int bucket;
    private final String source;
    private final String destination;
    private final MovePort port;
    private final Limits limits;
    private final Consumer<SendMove> onDone;
    private Phase phase;
    private long generation;
    private int seq;
    private byte[] afterKey = new byte[0];
    private ChunkPage pending;
    private long keysSent;
    private long checksumSent;
    private Result result;
    private String detail = "";
    /** When the source's SENDING (writes refused) was confirmed to this driver; -1 for a resumed move. */
    private long writesHeldSinceMs = -1;
    private long writesHeldMs = -1;

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
        m.phase = Phase.STARTING;
        m.step();
        return m;
    }

    /**
     * Takes over an unfinished move found in the source's records (SENDING, or SENT with data
     * not yet dropped); returns null when {@code record} is not one.
     */
    public static SendMove resume(BucketRecord record, String source, MovePort port, Limits limits, Consumer<SendMove> onDone) {
        boolean sentNotDropped = record.state() == BucketState.SENT && (record.flags() & BucketRecord.FLAG_DATA_DROPPED) == 0;
        if (record.state() != BucketState.SENDING && !sentNotDropped) return null;
        SendMove m = new SendMove(record.id(), source, record.peer(), port, limits, onDone);
        m.generation = record.generation();
        m.phase = record.state() == BucketState.SENDING ? Phase.FINISHING : Phase.ACTIVATING;
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
    /** Null until {@link Phase#DONE}. */
    public Result result() { return result; }
    public String detail() { return detail; }
    /**
     * How long the bucket refused writes, as this driver saw it: from the StartSend reply to the
     * destination's Activate reply (or the rollback's); -1 when unknown (a resumed move, a refusal).
     */
    public long writesHeldMs() { return writesHeldMs; }

    private void step() {
        switch (phase) {
            case STARTING -> port.submit(source, new StartSend(bucket, destination), this::onStarted);
            case STREAMING -> streamNext();
            case FINISHING -> port.digest(source, bucket, this::onDigest);
            case MARKING_SENT -> port.submit(source, new MarkSent(bucket, generation), this::onMarkedSent);
            case ACTIVATING -> port.submit(destination, new Activate(bucket, generation), this::onActivated);
            case DROPPING -> port.submit(source, new DropData(bucket, generation), this::onDropped);
            case ROLLING_BACK -> port.submit(source, new RollbackSend(bucket, generation), this::onRolledBack);
            case DONE -> { }
        }
    }

    private void retryLater() {
        port.after(limits.retryDelayMs(), this::step);
    }

    private void moveTo(Phase next) {
        phase = next;
        step();
    }

    private void finish(Result r, String why) {
        phase = Phase.DONE;
        result = r;
        detail = why;
        onDone.accept(this);
    }

    private void onStarted(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        BucketRecord r = reply.record();
        if (!reply.isOk() || r == null || r.state() != BucketState.SENDING || !r.peer().equals(destination)) {
            finish(Result.REFUSED, reply.message());
            return;
        }
        generation = r.generation();
        writesHeldSinceMs = port.nowMs();
        moveTo(Phase.STREAMING);
    }

    private void streamNext() {
        if (pending != null) { sendPending(); return; }
        port.readChunk(source, new MoveQuery.ReadChunk(bucket, generation, afterKey, limits.chunkKeys(), limits.chunkBytes()), page -> {
            if (page == null) { retryLater(); return; }
            if (!page.refusal().isEmpty()) { moveTo(Phase.FINISHING); return; }
            // An empty bucket still sends chunk 0 (as the last one): it creates the destination's RECEIVING record.
            if (page.entries().isEmpty() && !page.last()) { moveTo(Phase.FINISHING); return; } // a reader that would loop
            pending = page;
            sendPending();
        });
    }

    private void sendPending() {
        List<ChunkEntry> entries = pending.entries();
        if (pending.last()) {
            sendLastChunk(entries);
            return;
        }
        port.submit(destination, new ReceiveChunk(bucket, source, generation, seq, entries), reply -> {
            if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
            if (!reply.isOk()) { moveTo(Phase.FINISHING); return; } // GAP or REFUSED: let the verdict decide
            seq++;
            keysSent += entries.size();
            checksumSent += ChunkEntry.checksum(entries);
            if (!entries.isEmpty()) afterKey = entries.get(entries.size() - 1).key();
            pending = null;
            moveTo(Phase.STREAMING);
        });
    }

    /** The last chunk carries the digest of everything streamed, so the destination judges the copy in the same entry. */
    private void sendLastChunk(List<ChunkEntry> entries) {
        long keys = keysSent + entries.size();
        long checksum = checksumSent + ChunkEntry.checksum(entries);
        port.submit(destination, new ReceiveLastChunk(bucket, source, generation, seq, entries, keys, checksum), reply -> {
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
        finishWith(digest.keyCount(), digest.checksum());
    }

    private void finishWith(long keyCount, long checksum) {
        port.submit(destination, new FinishReceive(bucket, generation, keyCount, checksum), this::onVerdict);
    }

    /** The destination's answer to FinishReceive or ReceiveLastChunk; an unclear one sends the same command again. */
    private void onVerdict(MoveReply reply) {
        if (reply == null) { retryLater(); return; }
        switch (reply.outcome()) {
            case COMPLETE -> moveTo(Phase.MARKING_SENT);
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
        moveTo(Phase.ACTIVATING);
    }

    private void onActivated(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        BucketRecord r = reply.record();
        boolean activatedOrMovedOn = reply.isOk() || (r != null && r.generation() > generation);
        if (!activatedOrMovedOn) { retryLater(); return; }
        writesReleased();
        moveTo(Phase.DROPPING);
    }

    private void writesReleased() {
        if (writesHeldSinceMs >= 0) writesHeldMs = port.nowMs() - writesHeldSinceMs;
    }

    private void onDropped(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        finish(Result.MOVED, reply.isOk() ? "" : reply.message());
    }

    private void onRolledBack(MoveReply reply) {
        if (reply == null || reply.outcome() == MoveReply.Outcome.UNAVAILABLE) { retryLater(); return; }
        writesReleased();
        finish(Result.ROLLED_BACK, detail);
    }
}
