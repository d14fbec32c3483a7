package io.cairn.core.wire;

import java.nio.ByteBuffer;

/**
 * Where a router stands in one replicaset's bucket history: the storage incarnation, the last
 * BSN it has seen, and the replicaset's history checksum at that BSN. The checksum is what
 * tells a replicaset restored from an old copy apart from the one the router knew: after a
 * restore the same BSNs are handed out again for other changes, and the checksums differ.
 */
public record DiscoveryCursor(long incarnation, long bsn, long historyHash) {
    public static final int BYTES = 8 + 8 + 8;
    /** A router that knows nothing of the replicaset yet. */
    public static final DiscoveryCursor START = new DiscoveryCursor(-1, 0, 0);

    void writeTo(ByteBuffer out) {
        out.putLong(incarnation).putLong(bsn).putLong(historyHash);
    }

    static DiscoveryCursor readFrom(ByteBuffer in) {
        return new DiscoveryCursor(in.getLong(), in.getLong(), in.getLong());
    }
}
