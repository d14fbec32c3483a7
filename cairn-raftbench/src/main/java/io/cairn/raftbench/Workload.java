package io.cairn.raftbench;

import java.nio.ByteBuffer;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The writes an entry carries: {@code writesPerEntry} records of an 8-byte key and a
 * {@value #VALUE_BYTES}-byte value, back to back. The same bytes for every engine.
 */
public final class Workload {
    public static final int KEY_BYTES = 8;
    public static final int VALUE_BYTES = 100;
    public static final int RECORD_BYTES = KEY_BYTES + VALUE_BYTES;
    /** Keys are drawn from this many, so the database grows to a realistic size without growing without bound. */
    static final long KEY_SPACE = 1_000_000;

    private Workload() {
    }

    public static byte[] entry(int writesPerEntry) {
        ByteBuffer b = ByteBuffer.allocate(writesPerEntry * RECORD_BYTES);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        byte[] value = new byte[VALUE_BYTES];
        for (int i = 0; i < writesPerEntry; i++) {
            random.nextBytes(value);
            b.putLong(random.nextLong(KEY_SPACE)).put(value);
        }
        return b.array();
    }

    public static int writesIn(byte[] entry) {
        if (entry.length % RECORD_BYTES != 0) throw new IllegalArgumentException("entry of " + entry.length + " bytes is not whole records");
        return entry.length / RECORD_BYTES;
    }
}
