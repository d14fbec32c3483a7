package io.cairn.core.wire;

import io.cairn.core.testing.SeededRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Storage stats survive encoding exactly; a short message fails. */
@ExtendWith(SeededRandom.class)
class StorageStatsTest {
    @Test
    void statsRoundTrip(Random random) {
        for (int i = 0; i < 200; i++) {
            StorageStats stats = new StorageStats(random.nextLong(), random.nextInt(), random.nextLong(),
                    random.nextLong(), random.nextLong(), random.nextBoolean(), random.nextInt());
            ByteBuffer in = ByteBuffer.wrap(stats.encode());
            assertThat(StorageStats.decode(in)).as("round %d", i).isEqualTo(stats);
            assertThat(in.remaining()).as("round %d", i).isZero();
        }
    }

    @Test
    void everyTruncationOfStatsFails() {
        byte[] full = new StorageStats(10, 3000, 77, 123, 5, true, 3001).encode();
        assertThat(full).hasSize(8 + 4 + 8 + 8 + 8 + 1 + 4 + 8 + 8 + 24);
        for (int length = 0; length < OLD_LENGTH; length++) {
            ByteBuffer prefix = ByteBuffer.wrap(Arrays.copyOf(full, length));
            assertThatThrownBy(() -> StorageStats.decode(prefix)).as("length %d", length)
                    .isInstanceOf(BufferUnderflowException.class);
        }
    }

    @Test
    void theExpiryCountersTravelAndAnOlderNodeSendsNone() {
        StorageStats stats = new StorageStats(10, 3000, 77, 123, 5, true, 3001, 42, 90_000);
        assertThat(StorageStats.decode(ByteBuffer.wrap(stats.encode()))).isEqualTo(stats);
        byte[] old = Arrays.copyOf(stats.encode(), OLD_LENGTH + 4);
        assertThat(StorageStats.decode(ByteBuffer.wrap(old))).isEqualTo(new StorageStats(10, 3000, 77, 123, 5, true, 3001, 0, 0));
    }

    @Test
    void theLookupAndExpiredCountersTravelAndANodeBeforeThemSendsNone() {
        StorageStats stats = new StorageStats(10, 3000, 77, 123, 5, true, 3001, 42, 90_000, 7, 8, 9);
        assertThat(StorageStats.decode(ByteBuffer.wrap(stats.encode()))).isEqualTo(stats);
        byte[] beforeLookups = Arrays.copyOf(stats.encode(), OLD_LENGTH + 4 + 16);
        assertThat(StorageStats.decode(ByteBuffer.wrap(beforeLookups))).isEqualTo(new StorageStats(10, 3000, 77, 123, 5, true, 3001, 42, 90_000));
    }

    /** Stats from a node older than the held count (2026-12-02). */
    private static final int OLD_LENGTH = 8 + 4 + 8 + 8 + 8 + 1;

    @Test
    void statsFromAnOlderNodeCountItsOwnedBucketsAsHeld() {
        byte[] old = Arrays.copyOf(new StorageStats(10, 3000, 77, 123, 5, true, 3001).encode(), OLD_LENGTH);
        assertThat(StorageStats.decode(ByteBuffer.wrap(old))).isEqualTo(new StorageStats(10, 3000, 77, 123, 5, true, 3000));
    }
}
