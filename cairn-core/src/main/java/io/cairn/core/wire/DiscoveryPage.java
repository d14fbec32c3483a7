package io.cairn.core.wire;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.kv.OpCodec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A replicaset's answer to DISCOVER: bucket records changed after the cursor, in BSN order.
 * {@code resync} means the cursor is unusable (other incarnation, older than the tombstone
 * horizon, or from a history this replicaset no longer has) and the records are a full listing
 * from the start. {@code next} is the cursor to send next time.
 *
 * @param lastBsn    the replicaset's last BSN when it answered (the router's lag is lastBsn - next.bsn)
 * @param horizonBsn tombstones with a BSN up to this one may have been collected
 */
public record DiscoveryPage(DiscoveryCursor next, long lastBsn, long horizonBsn, boolean resync, boolean more,
                            List<BucketRecord> records) {
    /** Bytes before the record count. */
    public static final int HEADER_BYTES = DiscoveryCursor.BYTES + 8 + 8 + 1 + 1;

    public long incarnation() {
        return next.incarnation();
    }

    public long nextBsn() {
        return next.bsn();
    }

    public byte[] encode() {
        int size = HEADER_BYTES + 4;
        for (BucketRecord r : records) size += 4 + 1 + 8 + 8 + 4 + 4 + r.peer().getBytes(StandardCharsets.UTF_8).length;
        ByteBuffer out = ByteBuffer.allocate(size);
        next.writeTo(out);
        out.putLong(lastBsn).putLong(horizonBsn).put((byte) (resync ? 1 : 0)).put((byte) (more ? 1 : 0));
        out.putInt(records.size());
        for (BucketRecord r : records) encodeRecord(out, r);
        return out.array();
    }

    public static DiscoveryPage decode(ByteBuffer in) {
        DiscoveryCursor next = DiscoveryCursor.readFrom(in);
        long lastBsn = in.getLong();
        long horizon = in.getLong();
        boolean resync = OpCodec.readBoolean(in);
        boolean more = OpCodec.readBoolean(in);
        int n = in.getInt();
        OpCodec.checkCount(n, in);
        List<BucketRecord> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) records.add(decodeRecord(in));
        return new DiscoveryPage(next, lastBsn, horizon, resync, more, records);
    }

    public static void encodeRecord(ByteBuffer out, BucketRecord r) {
        out.putInt(r.id()).put(r.state().code()).putLong(r.generation()).putLong(r.bsn()).putInt(r.flags());
        OpCodec.writeBytes(out, r.peer().getBytes(StandardCharsets.UTF_8));
    }

    public static BucketRecord decodeRecord(ByteBuffer in) {
        int id = in.getInt();
        BucketState state = BucketState.ofCode(in.get());
        long generation = in.getLong();
        long bsn = in.getLong();
        int flags = in.getInt();
        String peer = new String(OpCodec.readPresentBytes(in, "peer"), StandardCharsets.UTF_8);
        return new BucketRecord(id, state, generation, bsn, peer, flags);
    }

    public static byte[] encodeRecord(BucketRecord r) {
        ByteBuffer out = ByteBuffer.allocate(4 + 1 + 8 + 8 + 4 + 4 + r.peer().getBytes(StandardCharsets.UTF_8).length);
        encodeRecord(out, r);
        return out.array();
    }
}
