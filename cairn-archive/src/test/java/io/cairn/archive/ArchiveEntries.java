package io.cairn.archive;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;

/**
 * A bucket's worth of entries generated on the fly (never held in memory), in key order, reproducible
 * from a seed: tests compare what a reader returns with a second generator of the same seed.
 */
final class ArchiveEntries implements Iterator<ArchiveEntry> {
    private static final byte[] POOL = new byte[1 << 20];

    static {
        new java.util.Random(20261203).nextBytes(POOL);
    }

    private final long count;
    private final int valueBytes;
    private final SplittableRandom random;
    private long index;

    ArchiveEntries(long seed, long count, int valueBytes) {
        if (valueBytes > POOL.length) throw new IllegalArgumentException("values up to " + POOL.length + " bytes");
        this.count = count;
        this.valueBytes = valueBytes;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public boolean hasNext() {
        return index < count;
    }

    @Override
    public ArchiveEntry next() {
        if (!hasNext()) throw new NoSuchElementException();
        // zero-padded index first: strictly increasing byte order, like a RocksDB iteration
        byte[] key = String.format("k%012d", index).getBytes(StandardCharsets.US_ASCII);
        // a slice of a fixed random pool: cheap enough that benchmarks measure the archive, not this
        int offset = random.nextInt(POOL.length - valueBytes + 1);
        byte[] value = java.util.Arrays.copyOfRange(POOL, offset, offset + valueBytes);
        long expiry = random.nextInt(4) == 0 ? 1_900_000_000_000L + random.nextInt(1_000_000) : ArchiveEntry.NO_EXPIRY;
        index++;
        return new ArchiveEntry(key, value, expiry);
    }
}
