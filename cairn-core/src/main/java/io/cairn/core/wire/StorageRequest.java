package io.cairn.core.wire;

import io.cairn.core.WireCodes;
import io.cairn.core.kv.CollectionMeta;
import io.cairn.core.kv.MovePiece;
import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.move.ChunkEntry;
import io.cairn.core.move.MoveCodec;
import io.cairn.core.move.MoveCommand;
import io.cairn.core.move.MoveQuery;
import io.cairn.core.move.MoveReply;
import io.cairn.core.topology.TopologyValidator;

import java.io.ByteArrayOutputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Messages a router (or an admin) sends to a replicaset through its Raft group. The first
 * byte is the {@link Kind}. Writes go through the Raft log; the leader stamps its clock into
 * WRITE and BOOTSTRAP entries (bytes 1..8) before they are appended, so every replica
 * applies them with the same "now". Queries are read-only and never enter the log.
 *
 * <pre>
 * WRITE      [kind][stampMs:8][ops]                      -> results
 * BOOTSTRAP  [kind][stampMs:8][first:4][last:4]          -> results (one OK or error)
 * READ       [kind][ops]                                 -> results
 * DISCOVER   [kind][cursor:24][limit:4]                  -> {@link DiscoveryPage} ({@link DiscoveryCursor})
 * STATS      [kind]                                      -> {@link StorageStats}
 * MOVE       [kind][stampMs:8][move command]             -> move reply ({@link io.cairn.core.move.MoveCodec})
 * MOVE_QUERY [kind][move query]                          -> chunk page, digest or move status
 * REF        [kind][stampMs:8][refId:8][ttlMs:8]          -> results (OK, or MOVE_IN_PROGRESS)
 * UNREF      [kind][stampMs:8][refId:8]                   -> results (OK)
 * FLUSH      [kind][stampMs:8][refId:8]                   -> results (keys deleted, or REF_NOT_HELD)
 * KEY_QUERY  [kind][key query]                            -> {@link KeyPage} ({@link KeyQuery})
 * COLLECT    [kind][stampMs:8][belowBsn:8][n:4][bucket:4]*n[retentionMs:8] -> results (tombstones collected;
 *            entries written before retentionMs was added end after the buckets)
 * MOVE_BATCH [kind][stampMs:8][n:4][move command]*n      -> [n:4]([length:4][move reply])*n
 * ONCE       [kind][stampMs:8][client:16][callId:8][log entry] -> the entry's reply, applied at most once per (client, callId)
 * </pre>
 * REF, UNREF, FLUSH and COLLECT are log entries stamped like WRITE: a storage ref (map-reduce) expires at
 * stamp + ttl, judged by later entries' stamps, so every replica agrees on it.
 */
public final class StorageRequest {
    /** A message's first byte is its kind's position here: never reorder, only append (logs on disk hold them). */
    /** A request's kind; its {@link #code()} is the first byte of the request and of every log entry: never reuse or renumber one. */
    public enum Kind {
        WRITE(0), BOOTSTRAP(1), READ(2), DISCOVER(3), STATS(4), MOVE(5), MOVE_QUERY(6), REF(7), UNREF(8), FLUSH(9), KEY_QUERY(10), COLLECT(11), MOVE_BATCH(12), ONCE(13),
        /** The disk a member runs on, recorded in the replicaset's state (issue 21), and its query. */
        DISK(14), DISK_QUERY(15);

        private final byte code;

        Kind(int code) {
            this.code = (byte) code;
        }

        public byte code() {
            return code;
        }
    }

    private static final Kind[] KINDS = WireCodes.index(Kind.values(), Kind::code);
    /** Offset of the leader's timestamp in WRITE and BOOTSTRAP messages. */
    public static final int STAMP_OFFSET = 1;

    private StorageRequest() {}

    /** @throws IllegalArgumentException for an empty message or an unknown kind (a corrupt or newer peer's request) */
    public static Kind kindOf(ByteBuffer message) {
        if (message.limit() < 1) throw new IllegalArgumentException("an empty storage request");
        return kindAt(message.get(0));
    }

    /** The kind whose code is {@code code}. @throws IllegalArgumentException for an unknown one */
    public static Kind kindAt(byte code) {
        return WireCodes.lookup(KINDS, code, "storage request kind");
    }

    /** Kinds that are log entries, stamped with the leader's clock before they are appended. */
    private static final Set<Kind> LOGGED = EnumSet.of(Kind.WRITE, Kind.BOOTSTRAP, Kind.MOVE, Kind.REF, Kind.UNREF,
            Kind.FLUSH, Kind.COLLECT, Kind.MOVE_BATCH, Kind.ONCE, Kind.DISK);

    /** Whether {@code kind} goes through the log (the others are queries). */
    public static boolean isLogged(Kind kind) {
        return LOGGED.contains(kind);
    }

    /** Stamps the leader's clock {@code nowMs} into the log entry {@code request}, in place, and returns it; refuses a query. */
    public static byte[] stamp(byte[] request, long nowMs) {
        Kind kind = kindOf(ByteBuffer.wrap(request));
        if (!isLogged(kind)) throw new IllegalArgumentException("not a log entry: " + kind);
        ByteBuffer.wrap(request).putLong(STAMP_OFFSET, nowMs);
        return request;
    }

    /**
     * Checks that a log entry a client asks the leader to append decodes whole, as every replica's apply
     * will decode it, with nothing left over. The leader refuses a malformed entry here: once committed,
     * an entry that every replica fails to apply would stop the whole replicaset. ONCE is refused too:
     * only the leader wraps an entry in it.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static void checkEntry(ByteBuffer entry) {
        ByteBuffer in = entry.duplicate();
        Kind kind = kindOf(in);
        if (!isLogged(kind) || kind == Kind.ONCE) throw new IllegalArgumentException("not a log entry a client may send: " + kind);
        try {
            skip(in, 1 + 8); // the kind and the stamp the leader writes
            switch (kind) {
                case WRITE -> OpCodec.readOps(in);
                case BOOTSTRAP -> checkBootstrapRange(in.getInt(), in.getInt());
                case MOVE -> checkChunk(MoveCodec.decodeCommand(in));
                case MOVE_BATCH -> {
                    int n = in.getInt();
                    OpCodec.checkCount(n, in);
                    for (int i = 0; i < n; i++) checkChunk(MoveCodec.decodeCommand(in));
                }
                case REF -> skip(in, 16);
                case UNREF, FLUSH -> skip(in, 8);
                case COLLECT -> {
                    in.getLong();
                    int n = in.getInt();
                    OpCodec.checkCount(n, in);
                    skip(in, 4L * n + 8);
                }
                case DISK -> {
                    idString(in, "node");
                    idString(in, "disk");
                }
                default -> throw new IllegalArgumentException("not a log entry: " + kind);
            }
        } catch (BufferUnderflowException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("a " + kind + " entry cut short (" + entry.remaining() + " bytes)");
        }
        if (in.hasRemaining()) throw new IllegalArgumentException("a " + kind + " entry with " + in.remaining() + " bytes after its end");
    }

    /** The records a chunk carries must be what a source sends: a string record or a collection's move form. */
    private static void checkChunk(MoveCommand command) {
        List<ChunkEntry> entries = command instanceof MoveCommand.ReceiveChunk c ? c.entries()
                : command instanceof MoveCommand.ReceiveLastChunk l ? l.entries()
                : command instanceof MoveCommand.RestoreChunk r ? r.entries() : List.of();
        for (ChunkEntry e : entries) {
            if (e.isPiece()) MovePiece.check(e.stored());
            else if (!e.isDeletion()) CollectionMeta.checkMoveForm(e.stored());
        }
    }

    private static void skip(ByteBuffer in, long bytes) {
        if (bytes > in.remaining()) throw new BufferUnderflowException();
        in.position(in.position() + (int) bytes);
    }

    private static void checkBootstrapRange(int first, int last) {
        int max = TopologyValidator.MAX_BUCKET_COUNT;
        if (first < 0 || last < first - 1 || last >= max) {
            throw new IllegalArgumentException("bootstrap range " + first + ".." + last + " outside 0.." + (max - 1));
        }
    }

    /** Bytes of a ONCE entry before the entry it wraps. */
    public static final int ONCE_HEADER_BYTES = 1 + 8 + 16 + 8;

    /**
     * Wraps the log entry {@code entry} so that it is applied at most once for ({@code client},
     * {@code callId}): a re-sent copy is answered with the first one's reply (replication engines
     * without a retry cache of their own; see {@code CallReplies} in cairn-storage).
     */
    public static byte[] once(UUID client, long callId, byte[] entry) {
        if (!isLogged(kindOf(ByteBuffer.wrap(entry))) || entry[0] == Kind.ONCE.code()) {
            throw new IllegalArgumentException("only a log entry other than ONCE can be applied once");
        }
        return ByteBuffer.allocate(ONCE_HEADER_BYTES + entry.length).put(Kind.ONCE.code()).putLong(0)
                .putLong(client.getMostSignificantBits()).putLong(client.getLeastSignificantBits()).putLong(callId).put(entry).array();
    }

    public static byte[] write(List<KvOp> ops) {
        return encodeOps(Kind.WRITE, ops, 8);
    }

    public static byte[] read(List<KvOp> ops) {
        return encodeOps(Kind.READ, ops, 0);
    }

    public static byte[] bootstrap(int firstBucket, int lastBucket) {
        return ByteBuffer.allocate(1 + 8 + 8).put(Kind.BOOTSTRAP.code()).putLong(0)
                .putInt(firstBucket).putInt(lastBucket).array();
    }

    public static byte[] discover(DiscoveryCursor after, int limit) {
        ByteBuffer out = ByteBuffer.allocate(1 + DiscoveryCursor.BYTES + 4).put(Kind.DISCOVER.code());
        after.writeTo(out);
        return out.putInt(limit).array();
    }

    public static DiscoveryCursor discoverCursor(ByteBuffer message) {
        message.position(1);
        return DiscoveryCursor.readFrom(message);
    }

    /**
     * Deletes the tombstone records (SENT or GARBAGE, data dropped) of {@code buckets} whose BSN is
     * below {@code belowBsn} and whose change is at least {@code retentionMs} older than the entry's
     * stamp; anything else in the list is left alone (a log entry: the age is checked where it applies).
     */
    public static byte[] collect(long belowBsn, long retentionMs, int[] buckets) {
        ByteBuffer out = ByteBuffer.allocate(1 + 8 + 8 + 4 + 4 * buckets.length + 8).put(Kind.COLLECT.code()).putLong(0)
                .putLong(belowBsn).putInt(buckets.length);
        for (int b : buckets) out.putInt(b);
        return out.putLong(retentionMs).array();
    }

    public static byte[] move(MoveCommand command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        out.write(Kind.MOVE.code());
        out.writeBytes(new byte[8]);
        MoveCodec.encode(command, out);
        return out.toByteArray();
    }

    /**
     * Several move commands in one log entry (group commit for moves): applied in order, in one
     * batch, each exactly as if it were its own MOVE entry, with one reply each.
     */
    public static byte[] moveBatch(List<MoveCommand> commands) {
        return moveBatchOfEncoded(commands.stream().map(StorageRequest::encodeCommand).toList());
    }

    /** {@link #moveBatch} of commands already encoded with {@link #encodeCommand}. */
    public static byte[] moveBatchOfEncoded(List<byte[]> commands) {
        ByteBuffer out = ByteBuffer.allocate(1 + 8 + 4 + commands.stream().mapToInt(c -> c.length).sum());
        out.put(Kind.MOVE_BATCH.code()).putLong(0).putInt(commands.size());
        for (byte[] c : commands) out.put(c);
        return out.array();
    }

    public static byte[] encodeCommand(MoveCommand command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        MoveCodec.encode(command, out);
        return out.toByteArray();
    }

    public static byte[] moveBatchReplies(List<byte[]> replies) {
        ByteBuffer out = ByteBuffer.allocate(4 + replies.stream().mapToInt(r -> 4 + r.length).sum()).putInt(replies.size());
        for (byte[] r : replies) out.putInt(r.length).put(r);
        return out.array();
    }

    public static List<MoveReply> decodeMoveBatchReplies(ByteBuffer in) {
        int n = in.getInt();
        OpCodec.checkCount(n, in);
        List<MoveReply> replies = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int length = in.getInt();
            replies.add(MoveCodec.decodeReply(in.slice(in.position(), length)));
            in.position(in.position() + length);
        }
        return replies;
    }

    public static byte[] moveQuery(MoveQuery query) {
        byte[] q = MoveCodec.encode(query);
        return ByteBuffer.allocate(1 + q.length).put(Kind.MOVE_QUERY.code()).put(q).array();
    }

    /** Takes storage ref {@code refId} for {@code ttlMs} (a log entry). */
    public static byte[] ref(long refId, long ttlMs) {
        return ByteBuffer.allocate(1 + 8 + 8 + 8).put(Kind.REF.code()).putLong(0).putLong(refId).putLong(ttlMs).array();
    }

    public static byte[] unref(long refId) {
        return ByteBuffer.allocate(1 + 8 + 8).put(Kind.UNREF.code()).putLong(0).putLong(refId).array();
    }

    /** Deletes every key of the buckets the replicaset owns, under storage ref {@code refId} (a log entry). */
    public static byte[] flush(long refId) {
        return ByteBuffer.allocate(1 + 8 + 8).put(Kind.FLUSH.code()).putLong(0).putLong(refId).array();
    }

    /** The longest node or disk id a DISK entry carries. */
    public static final int MAX_ID_BYTES = 256;

    /** Records, through the log, that node {@code node} runs on disk {@code disk} (its data folder's identity). */
    public static byte[] recordDisk(String node, String disk) {
        byte[] n = idBytes(node, "node");
        byte[] d = idBytes(disk, "disk");
        return ByteBuffer.allocate(1 + 8 + 2 + n.length + 2 + d.length).put(Kind.DISK.code()).putLong(0)
                .putShort((short) n.length).put(n).putShort((short) d.length).put(d).array();
    }

    /** Asks which disk the replicaset's state records for {@code node}; the answer is {@link #decodeDisk} of it. */
    public static byte[] diskQuery(String node) {
        byte[] n = idBytes(node, "node");
        return ByteBuffer.allocate(1 + 2 + n.length).put(Kind.DISK_QUERY.code()).putShort((short) n.length).put(n).array();
    }

    /** The disk a DISK_QUERY's answer names: empty when none is recorded. */
    public static byte[] encodeDisk(String disk) {
        byte[] d = disk == null ? new byte[0] : disk.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + d.length).putShort((short) d.length).put(d).array();
    }

    /** @see #encodeDisk; null when none is recorded */
    public static String decodeDisk(ByteBuffer answer) {
        String disk = idString(answer, "disk");
        return disk.isEmpty() ? null : disk;
    }

    /**
     * A node or disk id of a DISK entry or query, at {@code in}'s position (after the kind, and the stamp for an entry).
     * @throws IllegalArgumentException when longer than {@link #MAX_ID_BYTES} or cut short
     */
    public static String idString(ByteBuffer in, String what) {
        int n = Short.toUnsignedInt(in.getShort());
        if (n > MAX_ID_BYTES || n > in.remaining()) throw new IllegalArgumentException("a " + what + " id of " + n + " bytes");
        byte[] b = new byte[n];
        in.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] idBytes(String id, String what) {
        byte[] b = id.getBytes(StandardCharsets.UTF_8);
        if (b.length > MAX_ID_BYTES) throw new IllegalArgumentException("a " + what + " id of " + b.length + " bytes (at most " + MAX_ID_BYTES + ")");
        return b;
    }

    public static byte[] stats() {
        return new byte[] {Kind.STATS.code()};
    }

    private static byte[] encodeOps(Kind kind, List<KvOp> ops, int headerBytes) {
        int size = 1 + headerBytes + 4;
        for (KvOp op : ops) size += OpCodec.encodedSize(op);
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(kind.code());
        out.position(1 + headerBytes);
        OpCodec.writeOps(out, ops);
        return out.array();
    }
}
