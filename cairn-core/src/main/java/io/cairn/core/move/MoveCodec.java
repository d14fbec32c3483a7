package io.cairn.core.move;

import io.cairn.core.BucketRecord;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.move.MoveCommand.*;
import io.cairn.core.move.MoveQuery.*;
import io.cairn.core.wire.DiscoveryPage;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Binary encoding of move commands, queries and their answers (big-endian, length-prefixed bytes). */
public final class MoveCodec {
    private MoveCodec() {}

    private static final class Out {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);

        Out b(int v) { bytes.write(v); return this; }
        Out i(int v) { for (int s = 24; s >= 0; s -= 8) bytes.write(v >>> s); return this; }
        Out l(long v) { for (int s = 56; s >= 0; s -= 8) bytes.write((int) (v >>> s)); return this; }
        Out bytes(byte[] v) { i(v.length); bytes.writeBytes(v); return this; }
        Out str(String v) { return bytes(v.getBytes(StandardCharsets.UTF_8)); }
        /** Appends an encoding made elsewhere, as is (no length). */
        Out raw(byte[] v) { bytes.writeBytes(v); return this; }
        Out record(BucketRecord r) {
            if (r == null) return b(0);
            b(1);
            bytes.writeBytes(DiscoveryPage.encodeRecord(r));
            return this;
        }
        Out entries(List<ChunkEntry> entries) {
            i(entries.size());
            for (ChunkEntry e : entries) bytes(e.key()).bytes(e.stored());
            return this;
        }
        Out ints(List<Integer> v) {
            i(v.size());
            for (int x : v) i(x);
            return this;
        }
        byte[] done() { return bytes.toByteArray(); }
    }

    public static void encode(MoveCommand command, ByteArrayOutputStream sink) {
        Out o = new Out();
        if (command instanceof StartSend c) o.b(0).i(c.bucket()).str(c.destination());
        else if (command instanceof ReceiveChunk c) o.b(1).i(c.bucket()).str(c.source()).l(c.generation()).i(c.seq()).entries(c.entries());
        else if (command instanceof FinishReceive c) o.b(c.activate() ? 17 : 2).i(c.bucket()).l(c.generation()).l(c.keyCount()).l(c.checksum());
        else if (command instanceof MarkSent c) o.b(3).i(c.bucket()).l(c.generation());
        else if (command instanceof Activate c) o.b(4).i(c.bucket()).l(c.generation());
        else if (command instanceof RollbackSend c) o.b(5).i(c.bucket()).l(c.generation());
        else if (command instanceof AbortReceive c) o.b(6).i(c.bucket()).l(c.generation());
        else if (command instanceof DropData c) o.b(7).i(c.bucket()).l(c.generation());
        else if (command instanceof Pin c) o.b(8).i(c.bucket()).b(c.pinned() ? 1 : 0);
        else if (command instanceof Contain c) o.b(9).i(c.bucket()).l(c.generation()).str(c.otherHolders());
        else if (command instanceof Quarantine c) o.b(10).i(c.bucket()).l(c.generation());
        else if (command instanceof Reactivate c) o.b(11).i(c.bucket()).l(c.newGeneration());
        else if (command instanceof DropQuarantined c) o.b(12).i(c.bucket()).l(c.generation()).l(c.retentionMs());
        else if (command instanceof ReceiveLastChunk c) {
            o.b(c.activate() ? 18 : 13).i(c.bucket()).str(c.source()).l(c.generation()).i(c.seq()).entries(c.entries()).l(c.keyCount()).l(c.checksum());
        }
        else if (command instanceof StartCopy c) o.b(14).i(c.bucket()).str(c.destination());
        else if (command instanceof SendCopied c) o.b(15).i(c.bucket()).str(c.destination()).l(c.generation());
        else if (command instanceof CancelCopy c) o.b(c.takeGeneration() ? 16 : 19).i(c.bucket()).l(c.generation());
        else if (command instanceof BeginArchive c) o.b(20).i(c.bucket()).l(c.generation());
        else if (command instanceof FinishArchive c) o.b(21).i(c.bucket()).l(c.generation()).l(c.beganBsn()).bytes(c.pointer().encode()).l(c.checksum());
        else if (command instanceof CancelArchive c) o.b(22).i(c.bucket()).l(c.generation());
        else if (command instanceof RestoreChunk c) o.b(23).i(c.bucket()).l(c.generation()).i(c.seq()).entries(c.entries());
        else if (command instanceof FinishRestore c) o.b(24).i(c.bucket()).l(c.generation()).l(c.keyCount()).l(c.checksum());
        else if (command instanceof AdoptArchive c) o.b(25).i(c.bucket()).str(c.source()).l(c.generation()).bytes(c.pointer().encode());
        else if (command instanceof AdoptBackup c) o.b(26).i(c.bucket()).l(c.generation()).bytes(c.pointer().encode());
        else if (command instanceof AdoptRestored c) o.b(27).i(c.bucket()).l(c.generation()).bytes(c.pointer().encode());
        else throw new IllegalArgumentException("unknown move command " + command);
        sink.writeBytes(o.done());
    }

    public static MoveCommand decodeCommand(ByteBuffer in) {
        int type = in.get();
        int bucket = in.getInt();
        if (bucket < 1) throw new IllegalArgumentException("bucket id must be positive: " + bucket);
        return switch (type) {
            case 0 -> new StartSend(bucket, str(in));
            case 1 -> new ReceiveChunk(bucket, str(in), in.getLong(), in.getInt(), entries(in));
            case 2, 17 -> new FinishReceive(bucket, in.getLong(), in.getLong(), in.getLong(), type == 17);
            case 3 -> new MarkSent(bucket, in.getLong());
            case 4 -> new Activate(bucket, in.getLong());
            case 5 -> new RollbackSend(bucket, in.getLong());
            case 6 -> new AbortReceive(bucket, in.getLong());
            case 7 -> new DropData(bucket, in.getLong());
            case 8 -> new Pin(bucket, OpCodec.readBoolean(in));
            case 9 -> new Contain(bucket, in.getLong(), str(in));
            case 10 -> new Quarantine(bucket, in.getLong());
            case 11 -> new Reactivate(bucket, in.getLong());
            case 12 -> new DropQuarantined(bucket, in.getLong(), in.getLong());
            case 13, 18 -> new ReceiveLastChunk(bucket, str(in), in.getLong(), in.getInt(), entries(in), in.getLong(), in.getLong(), type == 18);
            case 14 -> new StartCopy(bucket, str(in));
            case 15 -> new SendCopied(bucket, str(in), in.getLong());
            case 16, 19 -> new CancelCopy(bucket, in.getLong(), type == 16);
            case 20 -> new BeginArchive(bucket, in.getLong());
            case 21 -> new FinishArchive(bucket, in.getLong(), in.getLong(), ArchivePointer.decode(OpCodec.readPresentBytes(in, "archive pointer")), in.getLong());
            case 22 -> new CancelArchive(bucket, in.getLong());
            case 23 -> new RestoreChunk(bucket, in.getLong(), in.getInt(), entries(in));
            case 24 -> new FinishRestore(bucket, in.getLong(), in.getLong(), in.getLong());
            case 25 -> new AdoptArchive(bucket, str(in), in.getLong(), ArchivePointer.decode(OpCodec.readPresentBytes(in, "archive pointer")));
            case 26 -> new AdoptBackup(bucket, in.getLong(), ArchivePointer.decode(OpCodec.readPresentBytes(in, "archive pointer")));
            case 27 -> new AdoptRestored(bucket, in.getLong(), ArchivePointer.decode(OpCodec.readPresentBytes(in, "archive pointer")));
            default -> throw new IllegalArgumentException("unknown move command type " + type);
        };
    }

    /**
     * Outcome, record, expected seq, message, then a changes flag (1 and the page, or 0) and the
     * refusal's code. Older nodes read the flag and ignore what follows; they wrote neither when
     * there were no changes, and no refusal code at all.
     */
    public static byte[] encode(MoveReply reply) {
        Out o = new Out().b(reply.outcome().code()).record(reply.record()).i(reply.expectedSeq()).str(reply.message());
        if (reply.changes() == null) o.b(0);
        else o.b(1).raw(encode(reply.changes()));
        return o.b(reply.refusal().code()).done();
    }

    public static MoveReply decodeReply(ByteBuffer in) {
        MoveReply.Outcome outcome = MoveReply.Outcome.ofCode(in.get());
        BucketRecord record = record(in);
        int expectedSeq = in.getInt();
        String message = str(in);
        // Replies of older nodes end here when without changes, and after the changes without a refusal code.
        ChangesPage changes = in.hasRemaining() && in.get() == 1 ? decodeChangesPage(in) : null;
        MoveReply.Refusal refusal = in.hasRemaining() ? MoveReply.Refusal.ofCode(in.get()) : legacyRefusal(outcome, message);
        return new MoveReply(outcome, record, expectedSeq, message, changes, refusal);
    }

    /** An older node's refusal, known only by its words: the refs-held one is the only one a driver acts on. */
    private static MoveReply.Refusal legacyRefusal(MoveReply.Outcome outcome, String message) {
        if (outcome != MoveReply.Outcome.REFUSED) return MoveReply.Refusal.NONE;
        return BucketLedger.REFS_HELD.equals(message) ? MoveReply.Refusal.REFS_HELD : MoveReply.Refusal.STATE;
    }

    public static byte[] encode(MoveQuery query) {
        Out o = new Out();
        if (query instanceof ReadChunk q) o.b(0).i(q.bucket()).l(q.generation()).bytes(q.afterKey()).i(q.maxKeys()).i(q.maxBytes()).bytes(q.afterElement());
        else if (query instanceof Digest q) o.b(1).i(q.bucket());
        else if (query instanceof Status q) o.b(2).i(q.maxCandidates());
        else if (query instanceof Inspect q) o.b(3).ints(q.buckets()).b(q.withCounts() ? 1 : 0);
        else if (query instanceof Verify q) o.b(4).ints(q.buckets());
        else if (query instanceof ExportChunk q) o.b(5).i(q.bucket()).bytes(q.afterKey()).i(q.maxKeys()).i(q.maxBytes());
        else if (query instanceof ReadChanges q) o.b(6).i(q.bucket()).l(q.generation()).bytes(q.afterKey()).i(q.maxKeys()).i(q.maxBytes()).bytes(q.afterElement());
        else if (query instanceof ArchiveOf q) o.b(7).i(q.bucket());
        else throw new IllegalArgumentException("unknown move query " + query);
        return o.done();
    }

    public static MoveQuery decodeQuery(ByteBuffer in) {
        int type = in.get();
        return switch (type) {
            case 0 -> new ReadChunk(in.getInt(), in.getLong(), OpCodec.readBytes(in), in.getInt(), in.getInt(), afterElement(in));
            case 1 -> new Digest(in.getInt());
            case 2 -> new Status(in.getInt());
            case 3 -> new Inspect(ints(in), OpCodec.readBoolean(in));
            case 4 -> new Verify(ints(in));
            case 5 -> new ExportChunk(in.getInt(), OpCodec.readBytes(in), in.getInt(), in.getInt());
            case 6 -> new ReadChanges(in.getInt(), in.getLong(), OpCodec.readBytes(in), in.getInt(), in.getInt(), afterElement(in));
            case 7 -> new ArchiveOf(in.getInt());
            default -> throw new IllegalArgumentException("unknown move query type " + type);
        };
    }

    /** A read's element cursor inside its last key (issue 24's pieces); a driver from before them sends none. */
    private static byte[] afterElement(ByteBuffer in) {
        return in.hasRemaining() ? OpCodec.readBytes(in) : new byte[0];
    }

    public static byte[] encode(ChunkPage page) {
        return new Out().entries(page.entries()).b(page.last() ? 1 : 0).str(page.refusal()).done();
    }

    public static ChunkPage decodeChunkPage(ByteBuffer in) {
        return new ChunkPage(entries(in), OpCodec.readBoolean(in), str(in));
    }

    public static byte[] encode(ChangesPage changes) {
        return new Out().raw(encode(changes.page())).l(changes.keyCount()).l(changes.checksum()).done();
    }

    public static ChangesPage decodeChangesPage(ByteBuffer in) {
        return new ChangesPage(decodeChunkPage(in), in.getLong(), in.getLong());
    }

    public static byte[] encode(BucketDigest digest) {
        return new Out().record(digest.record()).l(digest.keyCount()).l(digest.checksum()).done();
    }

    public static BucketDigest decodeDigest(ByteBuffer in) {
        return new BucketDigest(record(in), in.getLong(), in.getLong());
    }

    public static byte[] encode(ArchiveState a) {
        Out o = new Out().record(a.record());
        return a.pointer() == null ? o.b(0).done() : o.b(1).bytes(a.pointer().encode()).done();
    }

    public static ArchiveState decodeArchiveState(ByteBuffer in) {
        BucketRecord record = record(in);
        return new ArchiveState(record, OpCodec.readBoolean(in) ? ArchivePointer.decode(OpCodec.readPresentBytes(in, "archive pointer")) : null);
    }

    public static byte[] encode(MoveStatus s) {
        Out o = new Out().i(s.active()).i(s.pinned()).i(s.sending()).i(s.receiving()).i(s.unfinished().size());
        for (BucketRecord r : s.unfinished()) o.record(r);
        o.i(s.candidates().size());
        for (int id : s.candidates()) o.i(id);
        return o.done();
    }

    public static MoveStatus decodeStatus(ByteBuffer in) {
        int active = in.getInt(), pinned = in.getInt(), sending = in.getInt(), receiving = in.getInt();
        int n = in.getInt();
        OpCodec.checkCount(n, in);
        List<BucketRecord> unfinished = new ArrayList<>(n);
        for (int i = 0; i < n; i++) unfinished.add(record(in));
        int m = in.getInt();
        OpCodec.checkCount(m, in);
        List<Integer> candidates = new ArrayList<>(m);
        for (int i = 0; i < m; i++) candidates.add(in.getInt());
        return new MoveStatus(active, pinned, sending, receiving, unfinished, candidates);
    }

    public static byte[] encodeReports(List<BucketReport> reports) {
        Out o = new Out().i(reports.size());
        for (BucketReport r : reports) o.record(r.record()).l(r.keyCount()).l(r.lastWriteMs());
        return o.done();
    }

    public static List<BucketReport> decodeReports(ByteBuffer in) {
        int n = in.getInt();
        OpCodec.checkCount(n, in);
        List<BucketReport> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(new BucketReport(record(in), in.getLong(), in.getLong()));
        return out;
    }

    private static List<Integer> ints(ByteBuffer in) {
        int n = in.getInt();
        OpCodec.checkCount(n, in);
        if (n > MoveQuery.MAX_INSPECT) throw new IllegalArgumentException("too many buckets in one query: " + n);
        List<Integer> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(in.getInt());
        return out;
    }

    private static List<ChunkEntry> entries(ByteBuffer in) {
        int n = in.getInt();
        OpCodec.checkCount(n, in);
        List<ChunkEntry> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(new ChunkEntry(OpCodec.readPresentBytes(in, "chunk entry key"), OpCodec.readPresentBytes(in, "chunk entry record")));
        return out;
    }

    private static BucketRecord record(ByteBuffer in) {
        return OpCodec.readBoolean(in) ? DiscoveryPage.decodeRecord(in) : null;
    }

    private static String str(ByteBuffer in) {
        return new String(OpCodec.readPresentBytes(in, "name"), StandardCharsets.UTF_8);
    }
}
