package io.cairn.core.wire;

import io.cairn.core.BucketRecord;
import io.cairn.core.BucketState;
import io.cairn.core.ErrorCode;
import io.cairn.core.ErrorPayload;
import io.cairn.core.wire.KeyPage.Entry;
import io.cairn.core.wire.KeyPage.Position;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Key pages with and without a refusal's payload, and the pages older versions wrote. */
class KeyPageTest {
    private static final List<Entry> KEYS = List.of(new Entry(3, "a".getBytes(StandardCharsets.UTF_8)), new Entry(3, "b".getBytes(StandardCharsets.UTF_8)));

    @Test
    void aRefusalNamingTheNewOwnerKeepsItsPayloadAndMessage() {
        KeyPage page = KeyPage.refused(ErrorCode.WRONG_BUCKET, "bucket 4 is not served here (SENT, peer rs2)", KEYS,
                new Position(4, null), new ErrorPayload("rs2", 6));
        KeyPage decoded = KeyPage.decode(ByteBuffer.wrap(page.encode()));
        assertThat(decoded.error()).isEqualTo(ErrorCode.WRONG_BUCKET);
        assertThat(decoded.message()).isEqualTo("bucket 4 is not served here (SENT, peer rs2)");
        assertThat(decoded.payload()).isEqualTo(new ErrorPayload("rs2", 6));
        assertThat(decoded.keys()).extracting(e -> new String(e.key(), StandardCharsets.UTF_8)).containsExactly("a", "b");
        assertThat(decoded.next().bucket()).isEqualTo(4);
    }

    @Test
    void aPageWithoutPayloadIsTheOldFormAndAnOlderReaderStopsBeforeThePayload() {
        KeyPage without = KeyPage.refused(ErrorCode.WRONG_BUCKET, "bucket 4 is not served here", KEYS, new Position(4, null));
        byte[] old = without.encode();
        KeyPage decoded = KeyPage.decode(ByteBuffer.wrap(old));
        assertThat(decoded.payload()).isNull();
        assertThat(decoded.error()).isEqualTo(ErrorCode.WRONG_BUCKET);

        byte[] with = KeyPage.refused(ErrorCode.WRONG_BUCKET, "bucket 4 is not served here", KEYS, new Position(4, null),
                new ErrorPayload("rs2", 6)).encode();
        assertThat(Arrays.copyOf(with, old.length)).as("everything an older reader decodes is unchanged").isEqualTo(old);
        assertThat(KeyPage.decode(ByteBuffer.wrap(KeyPage.count(12).encode())).payload()).isNull();
    }

    @Test
    void onlyASentRecordNamesWhereTheBucketWent() {
        assertThat(ErrorPayload.of(new BucketRecord(4, BucketState.SENT, 6, 9, "rs2", BucketRecord.FLAG_DATA_DROPPED)))
                .isEqualTo(new ErrorPayload("rs2", 6));
        for (BucketState state : BucketState.values()) {
            if (state == BucketState.SENT) continue;
            assertThat(ErrorPayload.of(new BucketRecord(4, state, 6, 9, "rs2", 0))).as(state.name()).isNull();
        }
        assertThat(ErrorPayload.of(new BucketRecord(4, BucketState.SENT, 6, 9, "", 0))).as("no peer recorded").isNull();
        assertThat(ErrorPayload.of(null)).isNull();
    }
}
