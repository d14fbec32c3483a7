package io.cairn.core.kv;

import io.cairn.core.ErrorCode;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * DUMP and RESTORE (issue 24) with Cairn's own payload, as Redis allows ("the serialization format is
 * opaque"): {@code "CAIRN"}, a format version byte, the key's record in its move form (a string record,
 * or a collection's metadata and every element entry, {@link CollectionMeta#packForMove}) with no
 * expiry (DUMP carries no TTL, as in Redis), then a CRC-32C of all that. A payload from redis-server
 * (RDB encoding, CRC-64 footer) is refused with Redis's "DUMP payload version or checksum are wrong",
 * as is any payload whose checksum fails. RESTORE follows redis-server 7.0's order: BUSYKEY without
 * REPLACE, then the TTL, then the payload; a TTL already in the past deletes the old key (REPLACE)
 * and creates nothing. A collection is restored entry by entry in one Raft entry, so the payload is
 * bounded by the maximum value size and the entry count by {@link KeyCopyApplier#MAX_COPIED_ENTRIES}.
 */
final class DumpApplier {
    private static final byte[] MAGIC = "CAIRN".getBytes(StandardCharsets.US_ASCII);
    private static final byte FORMAT_VERSION = 1;
    private static final int CRC_BYTES = 4;

    private DumpApplier() {}

    static OpResult dump(KvOp op, byte[] stored, KvView view, int maxValueBytes) {
        if (stored == null) return OpResult.NIL;
        byte[] record = StoredValue.withExpiry(stored, 0);
        if (CollectionMeta.isCollection(stored)) {
            long entries = CollectionMeta.entryCount(stored);
            if (entries > KeyCopyApplier.MAX_COPIED_ENTRIES) return tooBig("DUMP of a collection of more than "
                    + KeyCopyApplier.MAX_COPIED_ENTRIES + " entries");
            record = CollectionMeta.packForMove(record, view.fields(op.bucket(), op.key()));
        }
        if (record.length + MAGIC.length + 1 + CRC_BYTES > maxValueBytes) {
            return tooBig("DUMP payload over the maximum value size of " + maxValueBytes + " bytes (RESTORE could not take it back)");
        }
        ByteBuffer out = ByteBuffer.allocate(MAGIC.length + 1 + record.length + CRC_BYTES);
        out.put(MAGIC).put(FORMAT_VERSION).put(record);
        out.putInt((int) crc(out.array(), out.position()));
        return OpResult.bulk(out.array());
    }

    private static OpResult tooBig(String what) {
        return OpResult.error(ErrorCode.PROTOCOL, what + " is not supported by Cairn");
    }

    /** @param raw the key's record as stored (maybe expired); {@code stored} the live one or null */
    static OpResult restore(KvOp op, byte[] raw, byte[] stored, KvView view, long nowMs, int maxValueBytes) {
        PackedArgs parsed = PackedArgs.of(op, 2, maxValueBytes);
        if (parsed.error() != null) return parsed.error();
        List<byte[]> args = parsed.list();
        boolean replace = op.has(KvOp.FLAG_XX);
        if (!replace && stored != null) return OpResult.error(ErrorCode.BUSY_KEY, null);
        Long ttl = KvApplier.parseLong(args.get(0));
        if (ttl == null) return OpResult.error(ErrorCode.NOT_INTEGER, null);
        if (ttl < 0) return OpResult.error(ErrorCode.PROTOCOL, "Invalid TTL value, must be >= 0");
        byte[] record = record(args.get(1));
        if (record == null) return OpResult.error(ErrorCode.PROTOCOL, "DUMP payload version or checksum are wrong");
        List<KvView.Field> fields;
        try {
            CollectionMeta.checkMoveForm(record);
            fields = CollectionMeta.isCollection(record) ? CollectionMeta.fieldsOfMoveForm(record) : List.of();
            if (CollectionMeta.isCollection(record) && CollectionMeta.entryCount(record) != fields.size()) {
                throw new IllegalArgumentException("count and elements disagree");
            }
        } catch (IllegalArgumentException | IndexOutOfBoundsException | java.nio.BufferUnderflowException malformed) {
            return OpResult.error(ErrorCode.PROTOCOL, "Bad data format");
        }
        if (fields.size() > KeyCopyApplier.MAX_COPIED_ENTRIES) return tooBig("RESTORE of more than " + KeyCopyApplier.MAX_COPIED_ENTRIES + " entries");
        long expireAtMs = ttl == 0 ? 0 : op.has(KvOp.FLAG_EXPIRE_ABS) ? ttl : nowMs + ttl;
        if (raw != null) KvApplier.deleteRecord(op.bucket(), op.key(), raw, view);
        if (expireAtMs != 0 && expireAtMs <= nowMs) return OpResult.OK; // already expired: nothing to create
        for (KvView.Field f : fields) view.putField(op.bucket(), op.key(), f.name(), f.value());
        byte[] meta = CollectionMeta.isCollection(record) ? CollectionMeta.metaOfMoveForm(record) : record;
        view.put(op.bucket(), op.key(), StoredValue.withExpiry(meta, expireAtMs));
        return OpResult.OK;
    }

    /** The record inside a Cairn payload whose magic, version and checksum hold, else null. */
    private static byte[] record(byte[] payload) {
        int head = MAGIC.length + 1;
        if (payload.length < head + CRC_BYTES + StoredValue.HEADER_BYTES) return null;
        if (!java.util.Arrays.equals(payload, 0, MAGIC.length, MAGIC, 0, MAGIC.length) || payload[MAGIC.length] != FORMAT_VERSION) return null;
        int end = payload.length - CRC_BYTES;
        if ((int) crc(payload, end) != ByteBuffer.wrap(payload, end, CRC_BYTES).getInt()) return null;
        return java.util.Arrays.copyOfRange(payload, head, end);
    }

    private static long crc(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return crc.getValue();
    }
}
