package io.cairn.core.wire;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.testing.SeededRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Discovery pages and bucket records survive encoding exactly; malformed input fails loudly. */
@ExtendWith(SeededRandom.class)
class DiscoveryPageTest {
    private static final String[] PEERS = {"", "rs2", "replicaset-with-a-long-name_42", "ünïcødé-✓"};

    private static BucketRecord randomRecord(Random random) {
        BucketState state = BucketState.values()[random.nextInt(BucketState.values().length)];
        return new BucketRecord(1 + random.nextInt(Integer.MAX_VALUE), state, random.nextLong(), random.nextLong(),
                PEERS[random.nextInt(PEERS.length)], random.nextInt(4));
    }

    private static DiscoveryPage randomPage(Random random) {
        List<BucketRecord> records = new ArrayList<>();
        for (int i = random.nextInt(30); i > 0; i--) records.add(randomRecord(random));
        return new DiscoveryPage(new DiscoveryCursor(random.nextLong(), random.nextLong(), random.nextLong()), random.nextLong(),
                random.nextLong(), random.nextBoolean(), random.nextBoolean(), records);
    }

    @Test
    void pagesRoundTrip(Random random) {
        for (int round = 0; round < 300; round++) {
            DiscoveryPage page = randomPage(random);
            ByteBuffer in = ByteBuffer.wrap(page.encode());
            assertThat(DiscoveryPage.decode(in)).as("round %d", round).isEqualTo(page);
            assertThat(in.remaining()).as("round %d", round).isZero();
        }
    }

    @Test
    void emptyPageRoundTrips() {
        DiscoveryPage page = new DiscoveryPage(new DiscoveryCursor(1, 0, 0), 0, 0, true, false, List.of());
        assertThat(DiscoveryPage.decode(ByteBuffer.wrap(page.encode()))).isEqualTo(page);
    }

    @Test
    void recordsRoundTripOnTheirOwn(Random random) {
        for (int i = 0; i < 300; i++) {
            BucketRecord record = randomRecord(random);
            ByteBuffer in = ByteBuffer.wrap(DiscoveryPage.encodeRecord(record));
            assertThat(DiscoveryPage.decodeRecord(in)).as("record %d", i).isEqualTo(record);
            assertThat(in.remaining()).as("record %d", i).isZero();
        }
    }

    @Test
    void everyTruncationOfAPageFails(Random random) {
        List<BucketRecord> records = List.of(randomRecord(random), randomRecord(random));
        byte[] full = new DiscoveryPage(new DiscoveryCursor(3, 4, 7), 8, 5, false, true, records).encode();
        for (int length = 0; length < full.length; length++) {
            ByteBuffer prefix = ByteBuffer.wrap(Arrays.copyOf(full, length));
            assertThatThrownBy(() -> DiscoveryPage.decode(prefix)).as("length %d", length)
                    .isInstanceOf(RuntimeException.class);
        }
    }

    @Test
    void negativeRecordCountIsRejected() {
        byte[] bytes = new DiscoveryPage(new DiscoveryCursor(1, 2, 9), 2, 3, false, false, List.of()).encode();
        ByteBuffer.wrap(bytes).putInt(DiscoveryPage.HEADER_BYTES, -1);
        assertThatThrownBy(() -> DiscoveryPage.decode(ByteBuffer.wrap(bytes))).isInstanceOf(RuntimeException.class);
    }

    @Test
    void unknownStateOrInvalidBucketIdIsRejected() {
        BucketRecord record = new BucketRecord(9, BucketState.ACTIVE, 1, 1, "rs1", 0);
        byte[] badState = DiscoveryPage.encodeRecord(record);
        badState[4] = 99;
        assertThatThrownBy(() -> DiscoveryPage.decodeRecord(ByteBuffer.wrap(badState))).isInstanceOf(RuntimeException.class);
        byte[] badId = DiscoveryPage.encodeRecord(record);
        ByteBuffer.wrap(badId).putInt(0, 0);
        assertThatThrownBy(() -> DiscoveryPage.decodeRecord(ByteBuffer.wrap(badId))).isInstanceOf(IllegalArgumentException.class);
    }
}
