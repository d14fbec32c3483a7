package io.cairn.core.wire;

import io.cairn.core.kv.KvOp;
import io.cairn.core.kv.OpCodec;
import io.cairn.core.testing.SeededRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The message layouts documented on {@link StorageRequest}, byte for byte. */
@ExtendWith(SeededRandom.class)
class StorageRequestTest {
    private static List<KvOp> randomOps(Random random) {
        List<KvOp> ops = new ArrayList<>();
        for (int i = random.nextInt(10); i > 0; i--) {
            byte[] key = new byte[random.nextInt(20)];
            random.nextBytes(key);
            byte[] value = random.nextBoolean() ? null : ("v" + random.nextInt()).getBytes(StandardCharsets.UTF_8);
            KvOp.Type type = KvOp.Type.values()[random.nextInt(KvOp.Type.values().length)];
            ops.add(new KvOp(type, 1 + random.nextInt(3000), key, value, random.nextLong(), random.nextInt(64)));
        }
        return ops;
    }

    @Test
    void writeCarriesAZeroStampThenTheOps(Random random) {
        for (int round = 0; round < 200; round++) {
            List<KvOp> ops = randomOps(random);
            ByteBuffer message = ByteBuffer.wrap(StorageRequest.write(ops));
            assertThat(StorageRequest.kindOf(message)).as("round %d", round).isEqualTo(StorageRequest.Kind.WRITE);
            assertThat(message.getLong(StorageRequest.STAMP_OFFSET)).as("round %d", round).isZero();
            message.position(1 + 8);
            assertThat(OpCodec.readOps(message)).as("round %d", round).isEqualTo(ops);
            assertThat(message.remaining()).as("round %d", round).isZero();
        }
    }

    @Test
    void leaderStampDoesNotDisturbTheOps() {
        List<KvOp> ops = List.of(KvOp.set(3, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)));
        byte[] bytes = StorageRequest.write(ops);
        ByteBuffer.wrap(bytes).putLong(StorageRequest.STAMP_OFFSET, 1_700_000_000_123L);
        ByteBuffer message = ByteBuffer.wrap(bytes);
        assertThat(message.getLong(StorageRequest.STAMP_OFFSET)).isEqualTo(1_700_000_000_123L);
        assertThat(OpCodec.readOps(message.position(9))).isEqualTo(ops);
    }

    @Test
    void readCarriesTheOpsWithoutStamp(Random random) {
        List<KvOp> ops = randomOps(random);
        ByteBuffer message = ByteBuffer.wrap(StorageRequest.read(ops));
        assertThat(StorageRequest.kindOf(message)).isEqualTo(StorageRequest.Kind.READ);
        assertThat(OpCodec.readOps(message.position(1))).isEqualTo(ops);
        assertThat(message.remaining()).isZero();
    }

    @Test
    void emptyOpListIsAValidMessage() {
        ByteBuffer message = ByteBuffer.wrap(StorageRequest.write(List.of()));
        assertThat(message.capacity()).isEqualTo(1 + 8 + 4);
        assertThat(OpCodec.readOps(message.position(9))).isEmpty();
    }

    @Test
    void bootstrapLayout() {
        byte[] bytes = StorageRequest.bootstrap(1, 3000);
        assertThat(bytes).hasSize(1 + 8 + 4 + 4);
        ByteBuffer message = ByteBuffer.wrap(bytes);
        assertThat(StorageRequest.kindOf(message)).isEqualTo(StorageRequest.Kind.BOOTSTRAP);
        assertThat(message.getLong(StorageRequest.STAMP_OFFSET)).isZero();
        assertThat(message.getInt(9)).isEqualTo(1);
        assertThat(message.getInt(13)).isEqualTo(3000);
    }

    @Test
    void discoverLayout() {
        DiscoveryCursor cursor = new DiscoveryCursor(Long.MAX_VALUE, -1L, 0x1234_5678_9abc_def0L);
        byte[] bytes = StorageRequest.discover(cursor, 500);
        assertThat(bytes).hasSize(1 + 8 + 8 + 8 + 4);
        ByteBuffer message = ByteBuffer.wrap(bytes);
        assertThat(StorageRequest.kindOf(message)).isEqualTo(StorageRequest.Kind.DISCOVER);
        assertThat(StorageRequest.discoverCursor(message)).isEqualTo(cursor);
        assertThat(message.getInt()).isEqualTo(500);
    }

    @Test
    void anUnknownOrMissingKindIsAClearRefusal() {
        assertThatThrownBy(() -> StorageRequest.kindOf(ByteBuffer.wrap(new byte[] {99, 0, 0})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown storage request kind 99");
        assertThatThrownBy(() -> StorageRequest.kindOf(ByteBuffer.wrap(new byte[] {-1})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kind -1");
        assertThatThrownBy(() -> StorageRequest.kindOf(ByteBuffer.allocate(0))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StorageRequest.once(java.util.UUID.randomUUID(), 1, new byte[] {42}))
                .as("not wrapped, refused").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void statsIsOneByte() {
        byte[] bytes = StorageRequest.stats();
        assertThat(bytes).hasSize(1);
        assertThat(StorageRequest.kindOf(ByteBuffer.wrap(bytes))).isEqualTo(StorageRequest.Kind.STATS);
    }

    @Test
    void kindOfIgnoresTheBufferPosition() {
        ByteBuffer message = ByteBuffer.wrap(StorageRequest.discover(new DiscoveryCursor(1, 2, 3), 3));
        message.position(5);
        assertThat(StorageRequest.kindOf(message)).isEqualTo(StorageRequest.Kind.DISCOVER);
    }

    @Test
    void unknownKindOrEmptyMessageIsRejected() {
        assertThatThrownBy(() -> StorageRequest.kindOf(ByteBuffer.wrap(new byte[] {42}))).isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> StorageRequest.kindOf(ByteBuffer.wrap(new byte[] {-1}))).isInstanceOf(RuntimeException.class);
        assertThatThrownBy(() -> StorageRequest.kindOf(ByteBuffer.allocate(0))).isInstanceOf(RuntimeException.class);
    }

    @Test
    void aDiskRecordIsALogEntryThatDecodesWholeAndItsQueryAnswersTheRecordedDisk() {
        byte[] entry = StorageRequest.recordDisk("s1-3", "0f3e-disk");
        assertThat(StorageRequest.kindOf(ByteBuffer.wrap(entry))).isEqualTo(StorageRequest.Kind.DISK);
        assertThat(StorageRequest.isLogged(StorageRequest.Kind.DISK)).isTrue();
        assertThat(StorageRequest.isLogged(StorageRequest.Kind.DISK_QUERY)).isFalse();
        StorageRequest.checkEntry(ByteBuffer.wrap(entry));
        ByteBuffer body = ByteBuffer.wrap(entry).position(1 + 8);
        assertThat(StorageRequest.idString(body, "node")).isEqualTo("s1-3");
        assertThat(StorageRequest.idString(body, "disk")).isEqualTo("0f3e-disk");

        assertThat(StorageRequest.decodeDisk(ByteBuffer.wrap(StorageRequest.encodeDisk("0f3e-disk")))).isEqualTo("0f3e-disk");
        assertThat(StorageRequest.decodeDisk(ByteBuffer.wrap(StorageRequest.encodeDisk(null)))).isNull();
        ByteBuffer query = ByteBuffer.wrap(StorageRequest.diskQuery("s1-3")).position(1);
        assertThat(StorageRequest.idString(query, "node")).isEqualTo("s1-3");
    }

    @Test
    void aMalformedDiskRecordIsRefusedBeforeTheLog() {
        byte[] entry = StorageRequest.recordDisk("s1-3", "disk");
        assertThatThrownBy(() -> StorageRequest.checkEntry(ByteBuffer.wrap(java.util.Arrays.copyOf(entry, entry.length - 1))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StorageRequest.checkEntry(ByteBuffer.wrap(java.util.Arrays.copyOf(entry, entry.length + 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("after its end");
        byte[] tooLong = ByteBuffer.allocate(1 + 8 + 2).put(StorageRequest.Kind.DISK.code()).putLong(0).putShort((short) 5000).array();
        assertThatThrownBy(() -> StorageRequest.checkEntry(ByteBuffer.wrap(tooLong))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StorageRequest.recordDisk("s".repeat(300), "d")).isInstanceOf(IllegalArgumentException.class);
    }
}
